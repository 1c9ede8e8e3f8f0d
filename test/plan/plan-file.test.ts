// Plan files (plan/plan-file.ts): written with a format tag and a checksum (a cut or edited file is a named
// error), fingerprints of what a plan read (ETags where the exchange gives them, else body hashes, `absent` where
// it found nothing), the resources a plan writes, and the moved ones among them with what changed since.
import { describe, expect, it } from 'vitest';
import { planStudy } from '../../plan/plan-study';
import { ABSENT, PLAN_FILE_FORMAT, PlanFileError, driftLines, fingerprintsOf, movedResources, readPlanFile, writePlanFile, writtenResources, type PlanFileContent } from '../../plan/plan-file';
import { programStudy } from '../../plan/program';
import type { ObservedStudy, ObservedTargetGroup } from '../../plan/types';
import { desiredStudy, desiredTargetGroup } from '../fixtures/desired-study';

const desired = desiredStudy([desiredTargetGroup('us'), desiredTargetGroup('uk')]);
const declared = { targetGroups: ['uk', 'us'], exclusionGroups: [], webhooks: [] };

function liveGroup(id: string, etag: string, completes = 3): ObservedTargetGroup {
  return {
    id,
    status: 'live',
    fields: { name: id },
    idLists: {},
    fieldingRun: { id: `run-${id}`, status: 'live', etag },
    fieldingAssistant: { assignment: { modules: [] }, etag: `fa-${etag}` },
    fillingGoal: { completesGoal: 40 },
    completes,
  };
}

describe('plan file text', () => {
  const content: PlanFileContent = { profile: 'sandbox', createdAt: '2026-11-28T05:00:00.000Z', studies: [{ file: 'study.yaml', accountId: '1001', studyId: 'demo', revision: 'r1', actions: planStudy(desired, { targetGroups: {}, exclusionGroups: {} }).actions, program: programStudy(desired, { targetGroups: {}, exclusionGroups: {} }), fingerprints: { project: ABSENT } }] };

  it('reads back what it wrote, with its format tag and checksum', () => {
    const text = writePlanFile(content);
    const file = JSON.parse(text) as { format: string; checksum: string };
    expect(file.format).toBe(PLAN_FILE_FORMAT);
    expect(file.checksum).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(readPlanFile(text)).toEqual(content);
  });

  it('refuses a truncated file, another format, and an edited one, each by name', () => {
    const text = writePlanFile(content);
    const reasonOf = (t: string) => {
      try {
        readPlanFile(t);
      } catch (error) {
        expect(error).toBeInstanceOf(PlanFileError);
        return (error as PlanFileError).reason;
      }
      return 'read';
    };
    expect(reasonOf(text.slice(0, text.length / 2))).toBe('unreadable');
    expect(reasonOf(JSON.stringify({ format: 'terraform-plan', content }))).toBe('format');
    expect(reasonOf(text.replace('"revision": "r1"', '"revision": "r2"'))).toBe('checksum');
    expect(reasonOf(text.replace('"profile": "sandbox"', '"profile": "cint"'))).toBe('checksum');
  });
});

describe('fingerprintsOf', () => {
  it('takes the ETags the exchange gives, hashes the other readings, and names what is absent', () => {
    const observed: ObservedStudy = { project: { id: 'p1', fields: { name: 'Demo' } }, targetGroups: { us: liveGroup('tg-us', 'W/"1"') }, exclusionGroups: {} };
    const prints = fingerprintsOf(observed, declared);
    expect(prints['fielding_run:us']).toBe('etag:W/"1"');
    expect(prints['fielding_assistant:us']).toBe('etag:fa-W/"1"');
    expect(prints['target_group:us']).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(prints.project).toMatch(/^sha256:/);
    expect(prints['target_group:uk']).toBe(ABSENT);
  });

  it('ignores what varies without a write (completes so far, a guard\'s hold), and moves with a goal or an ETag', () => {
    const at = (tg: ObservedTargetGroup) => fingerprintsOf({ targetGroups: { us: tg }, exclusionGroups: {} }, declared);
    const base = at(liveGroup('tg-us', '1'));
    expect(at(liveGroup('tg-us', '1', 30))).toEqual(base);
    expect(at({ ...liveGroup('tg-us', '1'), guardHold: { guards: [] } })).toEqual(base);
    const goal = at({ ...liveGroup('tg-us', '1'), fillingGoal: { completesGoal: 60 } });
    expect(goal['target_group:us']).not.toBe(base['target_group:us']);
    expect(at(liveGroup('tg-us', '2'))['fielding_run:us']).toBe('etag:2');
  });
});

describe('movedResources', () => {
  it('lists only the resources the plan writes whose fingerprint moved', () => {
    const empty: ObservedStudy = { targetGroups: {}, exclusionGroups: {} };
    const planned = fingerprintsOf(empty, declared);
    const actions = planStudy(desired, empty).actions;
    const written = writtenResources(actions);
    expect(written).toEqual(expect.arrayContaining(['project', 'target_group:us', 'target_group:uk', 'fielding_run:us']));
    expect(movedResources(planned, planned, written)).toEqual([]);
    // Somebody created uk in the exchange since: the create relied on its absence.
    const now = fingerprintsOf({ targetGroups: { uk: { id: 'tg-uk', status: 'draft', fields: {}, idLists: {} } }, exclusionGroups: {} }, declared);
    expect(movedResources(planned, now, written)).toEqual([{ resource: 'target_group:uk', planned: ABSENT, now: now['target_group:uk'] }]);
    // A resource the plan does not write may move freely.
    expect(movedResources(planned, now, written.filter((r) => !r.endsWith(':uk')))).toEqual([]);
  });

  it('writes nothing of a plan without a write', () => {
    expect(writtenResources([{ kind: 'none', resource: 'target_group', key: 'us', reason: 'up to date' }])).toEqual([]);
  });
});

describe('driftLines', () => {
  it('names each moved resource and the actions of it the plan had and a plan now has', () => {
    const moved = [{ resource: 'target_group:us', planned: 'sha256:a', now: 'sha256:b' }];
    const planned = [{ kind: 'update' as const, resource: 'live_target_group' as const, key: 'us', reason: 'goal', changes: [{ field: 'filling_goal', from: 40, to: 50 }] }];
    const now = [{ kind: 'update' as const, resource: 'live_target_group' as const, key: 'us', reason: 'goal', changes: [{ field: 'filling_goal', from: 60, to: 50 }] }];
    expect(driftLines(moved, planned, now)).toEqual([
      'target_group:us: planned sha256:a, now sha256:b',
      '- planned: update live_target_group us (filling_goal 40 -> 50)',
      '+ now: update live_target_group us (filling_goal 60 -> 50)',
    ]);
  });
});
