import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startTestStack, writeStudy, type TestStack } from './harness';
import { quickLaunchFields } from '../helpers/study-yaml';

// The worker is SIGKILLed at 10 different points of a 5-target-group apply (after the Nth API
// request of the run) and replaced; every run must end live with exactly the desired resources.
const KILL_AFTER_REQUESTS = [2, 5, 8, 11, 14, 17, 21, 25, 30, 36];
const KEYS = ['us', 'uk', 'de', 'fr', 'es'];
const LOCALES: Record<string, string> = { us: 'en_US', uk: 'en_GB', de: 'de_DE', fr: 'fr_FR', es: 'es_ES' };

function chaosStudy(run: number): string {
  const tgs = KEYS.map(
    (key) => `  ${key}:
    locale: ${LOCALES[key]}
    live_url: https://survey.example.com/s/chaos-${run}-${key}?rid=[%RID%]
    filling_goal: ${40 + run}
`,
  ).join('');
  return `format: studyflow/v1
study: chaos-run-${run}
account: "1001"
business_unit: "2001"
project:
  name: Chaos run ${run}
  project_customer_reference_number: PO-CHAOS-${run}
defaults:
${quickLaunchFields('  ')}
exclusion_groups:
  chaos_${run}:
    name: Chaos group ${run}
    target_groups: [us, uk]
target_groups:
${tgs}`;
}

describe('chaos: the worker is killed at 10 points of a 5-target-group apply', () => {
  let t: TestStack;
  beforeAll(async () => {
    t = await startTestStack('chaos', { inProcessWorker: false });
    t.stack.sandbox.setFaults({ job_duration_ms: 800 });
  });
  afterAll(async () => t?.stop());

  it.each(KILL_AFTER_REQUESTS.map((n, i) => [i, n]))('run %i: killed after request %i, it still ends live with exactly the desired resources', async (run, killAfter) => {
    const file = writeStudy(t.dir, `chaos-${run}.yaml`, chaosStudy(run));
    const start = t.stack.sandbox.requests().length;
    const worker = t.spawnWorker();
    expect((await t.cli(['apply', file, '--no-wait'])).code).toBe(0);
    await eventually(async () => (t.stack.sandbox.requests().length - start >= killAfter ? true : undefined), 120_000, 20);
    worker.kill('SIGKILL');
    await new Promise((resolve) => worker.once('exit', resolve));
    const replacement = t.spawnWorker();

    const status = await eventually(
      async () => {
        const s = await t.status('1001', `chaos-run-${run}`);
        return s.phase === 'converged' && s.appliedRevision === s.revision ? s : undefined;
      },
      180_000,
      500,
    );
    // Live, or already completed: the sandbox's fielding simulation advances on performance reads and
    // the small goals fill quickly; either way the target group was launched exactly once.
    const launched = new Set(['live', 'completed']);
    expect(Object.values(status.targetGroups).every((x) => launched.has(x.phase))).toBe(true);
    expect(Object.keys(status.targetGroups).sort()).toEqual([...KEYS].sort());

    const state = t.stack.sandbox.state();
    const projects = Object.values(state.projects).filter((p) => p.project_customer_reference_number === `PO-CHAOS-${run}`);
    expect(projects).toHaveLength(1);
    const tgs = Object.values(state.target_groups).filter((x) => x.project_id === projects[0].id);
    expect(tgs.map((x) => x.target_group_customer_reference_number).sort()).toEqual(KEYS.map((k) => `chaos-run-${run}_${k}`).sort());
    expect(tgs.every((x) => launched.has(x.status))).toBe(true);
    const runs = Object.values(state.fielding_runs).filter((r) => tgs.some((x) => x.id === r.target_group_id));
    expect(runs).toHaveLength(KEYS.length);
    const groups = Object.values(state.exclusion_groups).filter((g) => g.tag === `Chaos group ${run}`);
    expect(groups).toHaveLength(1);
    expect(groups[0].target_group_ids).toHaveLength(2);

    replacement.kill('SIGTERM');
    await new Promise((resolve) => replacement.once('exit', resolve));
  });

  it('keeps the client secret and tokens out of every workflow history', async () => {
    const scanned = await t.scanHistories([t.env.STUDYFLOW_CLIENT_SECRET]);
    expect(scanned.workflows).toBeGreaterThanOrEqual(20);
  });
});
