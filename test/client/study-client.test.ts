// The study client without a server: the one error mapping (what each failed workflow call becomes), the
// fielding action and study checks, apply's exit-code policy, a client that never connected closing
// cleanly, and the plan offline: the client runs the one pipeline of plan/pipeline.ts.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { QueryNotRegisteredError, WorkflowNotFoundError } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyExitCode, fieldingAction, StudyClient, StudyClientError, type Followed } from '../../client';
import { workflowCallError } from '../../client/workflow-errors';
import { withBudget } from '../../plan/budget';
import { planRevision } from '../../plan/pipeline';
import type { StudyStatus } from '../../workflows/messages';

const REPO_ROOT = path.resolve(import.meta.dirname, '../..');
let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'studyflow-client-'));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('the error mapping of workflow calls', () => {
  const id = 'study/1001/s1';
  const notFound = new WorkflowNotFoundError('workflow not found', id, undefined);

  it('names a missing workflow: apply first, or nothing running to cancel', () => {
    for (const call of ['status', 'report', 'update'] as const) {
      const mapped = workflowCallError(notFound, id, call);
      expect(mapped).toBeInstanceOf(StudyClientError);
      expect((mapped as StudyClientError).message).toBe(`no study workflow ${id}: apply the study first`);
      expect((mapped as StudyClientError).exitCode).toBe(1);
    }
    expect((workflowCallError(notFound, id, 'cancel') as Error).message).toBe(`no running study workflow ${id}`);
  });

  it('names a worker too old for the report query, and only for the report', () => {
    const old = new QueryNotRegisteredError('report not registered', 3);
    expect((workflowCallError(old, id, 'report') as Error).message).toBe(
      `the workflow ${id} does not answer the report query: its worker runs an older studyflow (upgrade the worker)`,
    );
    expect(workflowCallError(old, id, 'status')).toBe(old);
  });

  it("gives an update's refusal by its cause's message, and passes anything else on unchanged", () => {
    const refused = Object.assign(new Error('Workflow Update failed'), { cause: new Error('target group de_gen_pop is not awaiting approval') });
    expect((workflowCallError(refused, id, 'update') as Error).message).toBe('target group de_gen_pop is not awaiting approval');
    expect(workflowCallError(refused, id, 'status')).toBe(refused);
    const plain = new Error('14 UNAVAILABLE: No connection established');
    expect(workflowCallError(plain, id, 'update')).toBe(plain);
  });
});

describe('what the client checks before it calls', () => {
  it('takes pause, resume and complete; anything else is a usage error (exit 2) naming them', () => {
    expect(fieldingAction('pause')).toBe('pause');
    expect(() => fieldingAction('stop')).toThrow(/^fielding action must be one of pause, resume, complete, got "stop"$/);
    try {
      fieldingAction('stop');
    } catch (error) {
      expect((error as StudyClientError).exitCode).toBe(2);
    }
  });

  it('needs an account for a study named by id, and makes the workflow id from both', async () => {
    const client = new StudyClient({}, dir);
    await expect(client.study('no-such-file-s1')).rejects.toMatchObject({ name: 'StudyClientError', exitCode: 2 });
    await expect(client.study('s1', { account: '1001' })).resolves.toEqual({ studyId: 's1', accountId: '1001', workflowId: expect.stringContaining('s1') });
    await client.close();
  });

  it('opens no Temporal connection until a call needs one, and closes once', async () => {
    const client = new StudyClient({ TEMPORAL_ADDRESS: '127.0.0.1:1' }, dir);
    expect(client.temporalServer.address).toBe('127.0.0.1:1');
    await client.close();
    await client.close();
    await expect(client.status({ studyId: 's1', accountId: '1001', workflowId: 'w' })).rejects.toThrow(/closed/);
  });
});

describe("apply's exit code", () => {
  const status = (phase: StudyStatus['phase'], tgPhases: string[]): StudyStatus =>
    ({ phase, targetGroups: Object.fromEntries(tgPhases.map((p, i) => [`tg${i}`, { key: `tg${i}`, phase: p }])) }) as unknown as StudyStatus;
  const followed = (outcome: Followed['outcome'], s?: StudyStatus): Followed => ({ file: 'f.yaml', workflowId: 'w', revision: 'r', outcome, status: s });

  it('is 0 for settled studies, and 1 for a failure, a timeout or a superseded revision', () => {
    expect(applyExitCode([followed('settled', status('converged', ['live']))], {})).toBe(0);
    expect(applyExitCode([followed('settled', status('failed', ['failed']))], {})).toBe(1);
    expect(applyExitCode([followed('settled', status('partially_failed', ['live', 'failed']))], {})).toBe(1);
    expect(applyExitCode([followed('timeout', status('applying', ['launching']))], {})).toBe(1);
    expect(applyExitCode([followed('superseded', status('applying', ['draft']))], {})).toBe(1);
    expect(applyExitCode([followed('detached', status('applying', ['draft']))], {})).toBe(0);
  });

  it('with requireLive, is 1 while a target group is short of live or completed', () => {
    const waiting = followed('settled', status('converged', ['live', 'awaiting_approval']));
    expect(applyExitCode([waiting], {})).toBe(0);
    expect(applyExitCode([waiting], { requireLive: true })).toBe(1);
    expect(applyExitCode([followed('settled', status('converged', ['live', 'completed']))], { requireLive: true })).toBe(0);
  });

  it('is 4 when a study settled with a change it did not make, unless something failed (1 wins)', () => {
    const unapplied = [{ targetGroup: 'tg0', field: 'locale', reason: 'blocked' as const, detail: 'locale cannot change after the launch' }];
    const withUnapplied = (s: StudyStatus): StudyStatus => ({ ...s, unapplied });
    expect(applyExitCode([followed('settled', withUnapplied(status('converged', ['live'])))], {})).toBe(4);
    expect(applyExitCode([followed('settled', status('converged', ['live'])), followed('settled', withUnapplied(status('converged', ['live'])))], {})).toBe(4);
    expect(applyExitCode([followed('settled', withUnapplied(status('partially_failed', ['live', 'failed'])))], {})).toBe(1);
    // Not settled yet: what the status holds is the previous revision's.
    expect(applyExitCode([followed('detached', withUnapplied(status('applying', ['live'])))], {})).toBe(0);
  });
});

describe('plan through the client, offline', () => {
  it('plans each study with the pipeline the workflow runs, against an empty remote, and says so', async () => {
    const client = new StudyClient({ STUDYFLOW_BLOB_DIR: path.join(dir, 'blobs') }, REPO_ROOT);
    try {
      const { prepared, diagnostics } = await client.prepare([path.join(REPO_ROOT, 'examples/multi-country-tracker/study.yaml')]);
      expect(diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
      expect(prepared).toHaveLength(1);
      const planned = await client.plan(prepared, { offline: true });
      expect(planned.offline).toBe(true);
      expect(planned.apiUnreachable).toBeUndefined();
      const [study] = planned.studies;
      expect(study.note).toBe('offline: planned against an empty remote, no API calls');
      expect(study.checks).toEqual([]);
      expect(study.checksNote).toMatch(/^skipped \(offline\)/);
      const expected = planRevision(prepared[0].desired, { targetGroups: {}, exclusionGroups: {} });
      // The pipeline's plan, with the study's budget judged (offline: no price, so no prediction).
      expect({ plan: study.plan, schedule: study.schedule, program: study.program }).toEqual({ schedule: expected.schedule, program: expected.program, plan: withBudget(expected.plan, prepared[0].desired, undefined, study.checksNote) });
      expect(study.plan.budget).toMatchObject({ verdict: 'incomplete', predicted: { value: '0.00', currency_code: 'USD' } });
      expect(study.plan.hasChanges).toBe(true);
    } finally {
      await client.close();
    }
  });

  it('returns the diagnostics of a broken file and prepares nothing', async () => {
    const file = path.join(dir, 'broken.yaml');
    fs.writeFileSync(file, 'study: s1\naccount: 1001\ntarget_groups: 7\n');
    const client = new StudyClient({ STUDYFLOW_BLOB_DIR: path.join(dir, 'blobs') }, dir);
    const { prepared, diagnostics } = await client.prepare([file]);
    await client.close();
    expect(prepared).toEqual([]);
    expect(diagnostics.some((d) => d.severity === 'error' && d.file.endsWith('broken.yaml') && d.line > 0)).toBe(true);
  });
});
