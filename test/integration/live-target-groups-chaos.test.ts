// Issue 28, the hard cases of in-place changes on real Temporal and the sandbox: the worker killed (SIGKILL) the
// moment the in-place write reached the exchange converges with exactly one write of it; two revisions sent in
// quick succession converge on the later one. The workers are processes of their own (as chaos-worker-kill).
import { describe, expect, it } from 'vitest';
import { useTestStack } from '../fixtures/stack';
import { eventually, writeCalls, writeStudy } from './harness';
import { quickLaunchFields } from '../helpers/study-yaml';

function studyYaml(studyId: string, goal: number): string {
  return `format: studyflow/v1
study: ${studyId}
account: "1001"
business_unit: "2001"
project:
  name: Live chaos ${studyId}
  project_customer_reference_number: PO-${studyId}
defaults:
${quickLaunchFields('  ')}
target_groups:
  us:
    locale: en_US
    live_url: https://survey.example.com/s/${studyId}?rid=[%RID%]
    filling_goal: ${goal}
`;
}

const GOAL_WRITE = /^PUT .*\/profiles\/completes-goal$/;

describe('in-place changes survive a killed worker and converge on the latest revision', () => {
  const t = useTestStack('live-chaos', { inProcessWorker: false });
  const tgOf = (studyId: string) => Object.values(t.stack.sandbox.state().target_groups).find((x) => x.target_group_customer_reference_number === `${studyId}_us`)!;
  const goalWrites = (from: number) => writeCalls(t.stack.sandbox.requests().slice(from)).filter((w) => GOAL_WRITE.test(`${w.method} ${w.route}`));
  const converged = (studyId: string, revision?: string) =>
    eventually(async () => {
      const s = await t.status('1001', studyId);
      return s.phase === 'converged' && s.appliedRevision === s.revision && (!revision || s.revision === revision) ? s : undefined;
    }, 180_000, 250);

  it('a worker killed when the goal write reached the exchange: exactly one write of it, and the goal holds', async () => {
    const studyId = 'live-kill';
    let worker = t.spawnWorker();
    const file = writeStudy(t.dir, `${studyId}.yaml`, studyYaml(studyId, 200));
    expect((await t.cli(['apply', file])).code).toBe(0);
    const start = t.stack.sandbox.requests().length;
    writeStudy(t.dir, `${studyId}.yaml`, studyYaml(studyId, 300));
    expect((await t.cli(['apply', file, '--no-wait'])).code).toBe(0);
    await eventually(async () => (goalWrites(start).length > 0 ? true : undefined), 120_000, 5);
    worker.kill('SIGKILL');
    await new Promise((resolve) => worker.once('exit', resolve));
    worker = t.spawnWorker();
    const status = await converged(studyId);
    expect(status.unapplied).toBeUndefined();
    expect(tgOf(studyId).filling_goal).toBe(300);
    expect(goalWrites(start)).toHaveLength(1);
    // Re-applied: nothing is written.
    const again = t.stack.sandbox.requests().length;
    const reapplied = await t.cli(['apply', file]);
    expect(reapplied.code, reapplied.stdout + reapplied.stderr).toBe(0);
    expect(writeCalls(t.stack.sandbox.requests().slice(again))).toEqual([]);
    worker.kill('SIGKILL');
    await new Promise((resolve) => worker.once('exit', resolve));
  });

  it('two revisions in quick succession converge on the later one', async () => {
    const studyId = 'live-succession';
    const worker = t.spawnWorker();
    const file = writeStudy(t.dir, `${studyId}.yaml`, studyYaml(studyId, 200));
    expect((await t.cli(['apply', file])).code).toBe(0);
    writeStudy(t.dir, `${studyId}.yaml`, studyYaml(studyId, 250));
    expect((await t.cli(['apply', file, '--no-wait'])).code).toBe(0);
    writeStudy(t.dir, `${studyId}.yaml`, studyYaml(studyId, 350));
    const later = await t.cli(['apply', file, '--json']);
    const revision = (JSON.parse(later.stdout) as { studies: { revision: string }[] }).studies[0].revision;
    const status = await converged(studyId, revision);
    expect(status.unapplied).toBeUndefined();
    expect(tgOf(studyId).filling_goal).toBe(350);
    const again = t.stack.sandbox.requests().length;
    expect((await t.cli(['apply', file])).code).toBe(0);
    expect(writeCalls(t.stack.sandbox.requests().slice(again))).toEqual([]);
    worker.kill('SIGKILL');
    await new Promise((resolve) => worker.once('exit', resolve));
  });
});
