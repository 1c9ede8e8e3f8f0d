// Timed and staged launches (issue 28) on a real Temporal server and the sandbox:
// - `launch.at` a few seconds ahead: apply schedules the run in the exchange (schedule-from-draft) and settles
//   `scheduled`; the target group is not live before that moment and is live after it, in the sandbox and in status;
//   a re-apply while it is scheduled writes nothing;
// - `launch.after`: the second market stays a draft while the first has fewer completes than asked (readings from
//   the first one's watch, passed on by the study) and goes live once it has them.
// Only before/after orderings are asserted, never durations.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StudyProgram, TargetGroupStep } from '../../plan/program';
import type { StudyStatus } from '../../workflows/messages';
import { eventually, startTestStack, writeCalls, writeStudy, type TestStack } from './harness';
import { quickLaunchFields } from '../helpers/study-yaml';

const WATCH = { STUDYFLOW_WATCH_INTERVAL_MS: '1000' };

function studyYaml(studyId: string, targetGroups: string): string {
  return `format: studyflow/v1
study: ${studyId}
account: "1001"
business_unit: "2001"
project:
  name: Timed and staged ${studyId}
defaults:
${quickLaunchFields('  ')}
target_groups:
${targetGroups}`;
}

let t: TestStack;

const remote = (studyId: string, key: string) => Object.values(t.stack.sandbox.state().target_groups).find((g) => g.target_group_customer_reference_number === `${studyId}_${key}`);

async function sandboxAdmin(method: string, route: string, body: unknown): Promise<void> {
  const res = await fetch(`${t.stack.sandbox.baseUrl}/_sandbox${route}`, { method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  expect(res.status, `${method} ${route}`).toBe(200);
}

function ran(status: StudyStatus, key: string): TargetGroupStep[] {
  return [...(status.program?.ran[key] ?? []), ...(status.targetGroups[key]?.steps ?? [])];
}

beforeAll(async () => {
  t = await startTestStack('timed-staged-launch');
  // No simulated fielding unless the test advances it.
  await sandboxAdmin('PUT', '/fielding/settings', { auto_advance: false });
});
afterAll(async () => t?.stop());

describe('timed and staged launches', () => {
  it('a timed launch is scheduled in the exchange, is not live before launch.at and is live after it', async () => {
    const study = 'timed-launch';
    const at = new Date(Date.now() + 20_000).toISOString().replace(/\.\d{3}Z$/, 'Z');
    const file = writeStudy(
      t.dir,
      'timed.yaml',
      studyYaml(
        study,
        `  us:
    locale: en_US
    live_url: https://survey.example.com/s/timed-us?rid=[%RID%]
    filling_goal: 40
    launch: { at: "${at}" }
`,
      ),
    );

    const planned = await t.cli(['plan', file, '--json'], WATCH);
    expect(planned.code, planned.stderr).toBe(0);
    const program = (JSON.parse(planned.stdout) as { studies: { program: StudyProgram }[] }).studies[0].program;
    const steps = program.targetGroups[0].steps;
    expect(steps.at(-1)).toEqual({ kind: 'schedule_launch', at, idempotencyKey: `study/1001/${study}/tg/us/schedule-launch/{attempt}` });
    const human = await t.cli(['plan', file], WATCH);
    expect(human.stdout).toContain(`launches at ${at}`);

    const applied = await t.cli(['apply', file], WATCH);
    expect(applied.code, applied.stderr + applied.stdout).toBe(0);
    expect(applied.stdout).toContain('converged');
    // Settled before the moment: scheduled in the exchange and in status, not live.
    const scheduled = await t.status('1001', study);
    expect(Date.now()).toBeLessThan(Date.parse(at));
    expect(scheduled.targetGroups.us).toMatchObject({ phase: 'scheduled', launchAt: at });
    expect(remote(study, 'us')?.status).toBe('scheduled');
    expect(ran(scheduled, 'us')).toEqual(steps);
    const shown = await t.cli(['status', file], WATCH);
    expect(shown.stdout).toContain(`launches at ${at}`);

    // A re-apply while it is scheduled plans nothing (the exchange's start is the file's moment) and writes nothing.
    const noChanges = await t.cli(['plan', file, '--detailed-exitcode'], WATCH);
    expect(noChanges.code, noChanges.stdout + noChanges.stderr).toBe(0);
    expect(noChanges.stdout).toContain(`scheduled: goes live at`);
    const before = t.stack.sandbox.requests().length;
    const again = await t.cli(['apply', file], WATCH);
    expect(again.code, again.stderr + again.stdout).toBe(0);
    expect(writeCalls(t.stack.sandbox.requests().slice(before))).toEqual([]);
    expect(Date.now()).toBeLessThan(Date.parse(at));
    expect(remote(study, 'us')?.status).toBe('scheduled');

    // After the moment: live in the exchange and in status.
    const live = await eventually(async () => {
      const s = await t.status('1001', study);
      return s.targetGroups.us?.phase === 'live' ? s : undefined;
    }, 90_000);
    expect(Date.now()).toBeGreaterThanOrEqual(Date.parse(at));
    expect(remote(study, 'us')?.status).toBe('live');
    expect(live.targetGroups.us.launchAt).toBeUndefined();
    expect(live.writes).toBe(scheduled.writes);
  });

  it('a staged launch goes live only once the target group it waits for has N completes', async () => {
    const study = 'staged-launch';
    const N = 5;
    const file = writeStudy(
      t.dir,
      'staged.yaml',
      studyYaml(
        study,
        `  us:
    locale: en_US
    live_url: https://survey.example.com/s/staged-us?rid=[%RID%]
    filling_goal: 200
  de:
    locale: de_DE
    live_url: https://survey.example.com/s/staged-de?rid=[%RID%]
    filling_goal: 40
    launch: { after: { target_group: us, completes: ${N} } }
`,
      ),
    );
    const human = await t.cli(['plan', file], WATCH);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toContain(`launches after us has ${N} completes`);

    const applied = await t.cli(['apply', file], WATCH);
    expect(applied.code, applied.stderr + applied.stdout).toBe(0);
    expect(applied.stdout).toContain('converged');

    // us is live and collects nothing (simulated time does not move): de waits, with us's reading passed on.
    const waiting = await eventually(async () => {
      const s = await t.status('1001', study);
      return s.targetGroups.de?.phase === 'awaiting_completes' && s.targetGroups.de.launchAfter?.has !== undefined ? s : undefined;
    });
    expect(waiting.targetGroups.us.phase).toBe('live');
    expect(waiting.targetGroups.de.launchAfter).toEqual({ targetGroup: 'us', completes: N, has: expect.any(Number) });
    expect(waiting.targetGroups.de.launchAfter!.has).toBeLessThan(N);
    expect(remote(study, 'de')?.status).toBe('draft');
    expect(remote(study, 'us')!.metrics.completes).toBeLessThan(N);
    const shown = await t.cli(['status', file], WATCH);
    expect(shown.stdout).toMatch(new RegExp(`launches after us has ${N} completes \\(it has \\d+\\)`));

    // Simulated fielding until us has N completes; de stays a draft until then.
    for (let i = 0; i < 40 && remote(study, 'us')!.metrics.completes < N; i += 1) {
      expect(remote(study, 'de')?.status).toBe('draft');
      await sandboxAdmin('POST', '/fielding/advance', { minutes: 30 });
    }
    expect(remote(study, 'us')!.metrics.completes).toBeGreaterThanOrEqual(N);

    const live = await eventually(async () => {
      const s = await t.status('1001', study);
      return s.targetGroups.de?.phase === 'live' ? s : undefined;
    }, 60_000);
    expect(remote(study, 'de')?.status).toBe('live');
    expect(live.targetGroups.de.launchAfter).toBeUndefined();
    expect(live.targetGroups.de.steps).toEqual([
      { kind: 'wait_for_completes', targetGroup: 'us', completes: N },
      { kind: 'read_gate', by: 'target_group' },
      { kind: 'launch', by: 'target_group', idempotencyKey: `study/1001/${study}/tg/de/launch/{attempt}` },
    ]);
  });
});
