// The one observe -> plan -> schedule pipeline (plan/pipeline.ts): what `studyflow plan` shows and what the
// study workflow carries out are the same function of desired and observed state.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadStudyFile } from '../../definitions';
import { desiredStudyOf } from '../../plan/desired';
import { planRevision, withGuardHolds } from '../../plan/pipeline';
import { isWrite, planStudy } from '../../plan/plan-study';
import { programStudy, runningFromStatus, specDigest, type RunningChild } from '../../plan/program';
import { scheduleStudy } from '../../plan/schedule';
import type { DesiredStudy, ObservedStudy } from '../../plan/types';

const REPO_ROOT = path.resolve(import.meta.dirname, '../..');
const EMPTY: ObservedStudy = { targetGroups: {}, exclusionGroups: {} };

async function desiredOf(example: string): Promise<DesiredStudy> {
  const loaded = await loadStudyFile(path.join(REPO_ROOT, 'examples', example, 'study.yaml'));
  if (!loaded.study) throw new Error(`${example} does not load`);
  return desiredStudyOf(loaded.study.study, {});
}

describe('planRevision', () => {
  it('is planStudy, scheduleStudy then programStudy, with no running children by default', async () => {
    const desired = await desiredOf('multi-country-tracker');
    const plan = planStudy(desired, EMPTY);
    const schedule = scheduleStudy(desired, plan, EMPTY, new Set());
    expect(planRevision(desired, EMPTY)).toEqual({ plan, schedule, program: programStudy(desired, EMPTY, { plan, schedule, running: new Map() }), applied: desired, leftOut: [] });
  });

  it('hands the target groups whose workflows run to them (the schedule changes, the plan does not)', async () => {
    const desired = await desiredOf('multi-country-tracker');
    const keys = desired.targetGroups.map((t) => t.key);
    const none = planRevision(desired, EMPTY);
    const children = new Map<string, RunningChild>(keys.map((k) => [k, { phase: 'live' }]));
    const running = planRevision(desired, EMPTY, children);
    expect(running.plan).toEqual(none.plan);
    expect(running.schedule).toEqual(scheduleStudy(desired, none.plan, EMPTY, new Set(keys)));
    expect(running.schedule).not.toEqual(none.schedule);
    expect(running.program).toEqual(programStudy(desired, EMPTY, { plan: none.plan, schedule: running.schedule, running: children }));
  });

  it('hands the plan the guards\' hold each running target group reports in its status (plan/live-fielding.ts reads it), without changing what was observed', () => {
    const hold = { guards: [{ guard: 'low_incidence', kind: 'incidence_below' as const, definition: '{}', at: '2026-11-20T11:00:00.000Z', text: 'incidence 0.1 is below 0.175' }] };
    const running = runningFromStatus({ managedTargetGroups: ['us', 'uk'], targetGroups: { us: { phase: 'paused', guards: { hold } }, uk: { phase: 'live', guards: {} } } });
    expect(running.get('us')).toEqual({ specDigest: undefined, phase: 'paused', guardHold: hold });
    expect(running.get('uk')).not.toHaveProperty('guardHold');
    const observed: ObservedStudy = {
      targetGroups: { us: { id: 'tg-us', status: 'paused', fields: {}, idLists: {} }, uk: { id: 'tg-uk', status: 'live', fields: {}, idLists: {} } },
      exclusionGroups: {},
    };
    const seen = withGuardHolds(observed, running);
    expect(seen.targetGroups.us.guardHold).toEqual(hold);
    expect(seen.targetGroups.uk).toBe(observed.targetGroups.uk);
    expect(observed.targetGroups.us.guardHold).toBeUndefined();
    // A hold of a target group the exchange does not show (removed, not observed) adds nothing.
    expect(withGuardHolds(EMPTY, running)).toBe(EMPTY);
  });

  it('hands the plan where each running target group\'s soft launch stands (a paused one it holds is not resumed)', () => {
    const soft = { via: 'fielding_assistant' as const, startedAt: '2026-11-20T10:00:00.000Z', endsAt: '2026-11-22T10:00:00.000Z', completes: 50 };
    const running = runningFromStatus({
      managedTargetGroups: ['us', 'uk'],
      targetGroups: { us: { phase: 'paused', softLaunch: { ...soft, state: 'awaiting_decision' } }, uk: { phase: 'live', softLaunch: { ...soft, state: 'promoted' } } },
    });
    expect(running.get('us')).toEqual({ specDigest: undefined, phase: 'paused', softLaunch: 'awaiting_decision' });
    expect(running.get('uk')).toEqual({ specDigest: undefined, phase: 'live', softLaunch: 'promoted' });
    const observed: ObservedStudy = { targetGroups: { us: { id: 'tg-us', status: 'paused', fields: {}, idLists: {} } }, exclusionGroups: {} };
    const seen = withGuardHolds(observed, running);
    expect(seen.targetGroups.us.softLaunch).toBe('awaiting_decision');
    expect(seen.targetGroups.us).not.toHaveProperty('guardHold');
    expect(observed.targetGroups.us.softLaunch).toBeUndefined();
    // A soft launch that only analyses holds nothing.
    const analysing = runningFromStatus({ managedTargetGroups: ['us'], targetGroups: { us: { phase: 'paused', softLaunch: { ...soft, state: 'running', analysisOnly: true } } } });
    expect(analysing.get('us')).not.toHaveProperty('softLaunch');
  });
});

describe('a launch its running workflow holds', () => {
  // The staged-launch example, planned as a re-apply finds it: us scheduled in the exchange, de a draft whose workflow
  // waits for us's completes (issue 35: the unchanged re-apply handed de the revision and never settled).
  async function staged(): Promise<{ desired: DesiredStudy; observed: ObservedStudy }> {
    const desired = await desiredOf('staged-launch');
    const observed: ObservedStudy = {
      project: { id: 'p1', fields: { ...desired.project } },
      targetGroups: {
        us: { id: 'tg-us', status: 'scheduled', fields: {}, idLists: {} },
        de: { id: 'tg-de', status: 'draft', fields: { ...desired.targetGroups.find((t) => t.key === 'de')!.draft }, idLists: {} },
      },
      exclusionGroups: {},
    };
    return { desired, observed };
  }
  const running = (desired: DesiredStudy, dePhase: string, deDigest?: string) =>
    new Map<string, RunningChild>([
      ['us', { phase: 'scheduled', specDigest: specDigest(desired.targetGroups.find((t) => t.key === 'us')!) }],
      ['de', { phase: dePhase, specDigest: deDigest ?? specDigest(desired.targetGroups.find((t) => t.key === 'de')!) }],
    ]);

  it('is no change: a workflow awaiting completes with the same spec is handed nothing, and its launch is no write', async () => {
    const { desired, observed } = await staged();
    const first = planRevision(desired, observed);
    expect(first.plan.actions.find((a) => a.key === 'de' && a.kind === 'launch')).toBeDefined();
    const again = planRevision(desired, observed, running(desired, 'awaiting_completes'));
    const de = again.plan.actions.filter((a) => a.key === 'de');
    expect(de.some((a) => a.kind === 'launch')).toBe(false);
    expect(de.find((a) => a.resource === 'fielding')).toMatchObject({ kind: 'none', launchAfter: { targetGroup: 'us', completes: 50 } });
    expect(de.some(isWrite)).toBe(false);
    // (us, observed without its live fields here, has writes of its own: the plan's changes are de's none.)
    expect(again.program.targetGroups.find((t) => t.key === 'de')?.steps).toEqual([]);
    // Launching (an approval just given): its workflow launches it; a re-apply right after hands it no gate again.
    const launching = planRevision(desired, observed, running(desired, 'launching'));
    expect(launching.program.targetGroups.find((t) => t.key === 'de')?.steps).toEqual([]);
  });

  it('is handed over as before when the spec changed, or when the workflow is not waiting for its launch', async () => {
    const { desired, observed } = await staged();
    for (const child of [running(desired, 'awaiting_completes', 'other:1'), running(desired, 'draft'), running(desired, 'failed')]) {
      const planned = planRevision(desired, observed, child);
      expect(planned.plan.actions.some((a) => a.key === 'de' && a.kind === 'launch')).toBe(true);
      expect(planned.program.targetGroups.find((t) => t.key === 'de')?.steps[0]).toEqual({ kind: 'hand_over', when: 'now' });
    }
  });
});
