import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startTestStack, writeStudy, type TestStack } from './harness';
import { quickLaunchFields } from '../helpers/study-yaml';

const STUDY = `format: studyflow/v1
study: crash-demo
account: "1001"
business_unit: "2001"
project:
  name: Worker crash
  project_customer_reference_number: PO-CRASH-1
target_groups:
  de_gen_pop:
    locale: de_DE
    live_url: https://survey.example.com/s/crash?rid=[%RID%]
${quickLaunchFields('    ', 50)}
`;

describe('a worker killed while the launch job is being polled', () => {
  let t: TestStack;
  beforeAll(async () => {
    t = await startTestStack('crash', { inProcessWorker: false });
  });
  afterAll(async () => t?.stop());

  it('is replaced by a new worker and the study finishes with exactly one project and one target group', async () => {
    const file = writeStudy(t.dir, 'study.yaml', STUDY);
    // A slow launch job, so the worker dies mid-poll.
    t.stack.sandbox.setFaults({ job_duration_ms: 6000 });
    const first = t.spawnWorker();
    const started = await t.cli(['apply', file, '--no-wait']);
    expect(started.code).toBe(0);

    await eventually(async () => {
      const polls = t.stack.sandbox.requests().filter((r) => r.method === 'GET' && /launch-from-draft\/[^/]+$/.test(r.path));
      return polls.length > 0 ? polls : undefined;
    }, 90_000);
    first.kill('SIGKILL');
    await new Promise((resolve) => first.once('exit', resolve));

    t.spawnWorker();
    const status = await eventually(async () => {
      const s = await t.status('1001', 'crash-demo');
      return s.phase === 'converged' && s.targetGroups.de_gen_pop?.phase === 'live' ? s : undefined;
    }, 120_000, 500);
    expect(status.phase).toBe('converged');

    const state = t.stack.sandbox.state();
    expect(Object.keys(state.projects)).toHaveLength(1);
    // Live, or already completed by the sandbox's fielding simulation: launched exactly once either way.
    expect(Object.values(state.target_groups).map((tg) => tg.status)).toEqual([expect.stringMatching(/^(live|completed)$/)]);
    const launches = t.stack.sandbox.requests().filter((r) => r.method === 'POST' && r.path.endsWith('/launch-from-draft'));
    expect(launches.length).toBeGreaterThanOrEqual(1);
    expect(Object.values(state.fielding_runs)).toHaveLength(1);
  });

  it('keeps the client secret and tokens out of every workflow history', async () => {
    const scanned = await t.scanHistories([t.env.STUDYFLOW_CLIENT_SECRET], 'worker-crash');
    expect(scanned.workflows).toBeGreaterThanOrEqual(2);
  });
});
