// The study workflow creates its drafts, reads gates and launches in batch activities (a new target
// group with nothing between its draft and its launch is launched by its draft batch, its job awaited in
// awaitJobsBatch); what a batch could not do for a target group is done by an activity of its own (a
// draft) or by the target group's own workflow (a gate read, a launch). The worker here wraps the real
// batch activities to fail in those ways.
import { ApplicationFailure } from '@temporalio/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type {
  AwaitJobsBatchInput,
  AwaitJobsBatchOutput,
  CheckLaunchGatesBatchInput,
  CheckLaunchGatesBatchOutput,
  EnsureDraftTargetGroupsInput,
  EnsureDraftTargetGroupsOutput,
  LaunchAndAwaitBatchInput,
  LaunchAndAwaitBatchOutput,
} from '../../activities';
import { connectWorker } from '../../worker/worker-connection';
import { startStudyflowWorkers, type RunningWorkers } from '../../worker/studyflow-worker';
import { createWorkerActivities } from '../../worker/worker-activities';
import { writeStudy } from './harness';
import { useTestStack } from '../fixtures/stack';
import { sampleFields } from '../helpers/study-yaml';

/**
 * A study of automatic target groups. With `grouped`, each is also in an exclusion group: the study
 * then writes its membership between its draft and its launch, so it is launched in a launch batch
 * (launchAndAwaitBatch), not by its draft batch.
 */
function study(id: string, keys: string[], goals: Record<string, number> = {}, grouped = false): string {
  const group = grouped ? '    exclusions:\n      exclusion_groups: [waves]\n' : '';
  return `format: studyflow/v1
study: ${id}
account: "1001"
business_unit: "2001"
project:
  name: Fallback ${id}
  project_customer_reference_number: PO-${id}
defaults:
${sampleFields('  ', { locale: 'en_US', incidenceRate: 0.5, lengthOfInterviewMinutes: 10 })}
  filling_goal: 50
  launch: { mode: auto }
  timing: { job_poll_initial: 100ms, job_poll_max: 400ms }
${grouped ? 'exclusion_groups:\n  waves:\n    name: Fallback waves\n' : ''}target_groups:
${keys.map((k) => `  ${k}:\n    live_url: https://survey.example.com/s/${k}?rid=[%RID%]\n${goals[k] ? `    filling_goal: ${goals[k]}\n` : ''}${group}`).join('')}`;
}

const keyOf = (idempotencyKey: string) => idempotencyKey.split('/target-group/')[1];
const studyOf = (idempotencyKey: string) => idempotencyKey.split('/')[2];

describe('study batches when a batch cannot do everything', () => {
  const t = useTestStack('draft-fallback', { inProcessWorker: false });
  let workers: RunningWorkers;
  const batchCalls: string[][] = [];
  beforeAll(async () => {
    const real = createWorkerActivities(t.stack.env).activities;
    const activities = {
      ...real,
      async ensureDraftTargetGroups(input: EnsureDraftTargetGroupsInput): Promise<EnsureDraftTargetGroupsOutput> {
        const keys = input.items.map((i) => keyOf(i.idempotencyKey));
        batchCalls.push(keys);
        const which = studyOf(input.items[0].idempotencyKey);
        if (which === 'whole-batch-fails') {
          throw ApplicationFailure.create({ type: 'injected', message: 'the batch failed as a whole', nonRetryable: true });
        }
        // 'one-draft-lost': the real batch makes every draft, "b" too (not launched), but the answer for "b" is
        // lost and comes back retryable: the draft's own activity then sends the same create with the same
        // Idempotency-Key, so it must send the same body (its fielding window too) and gets the same draft.
        // 'one-draft-refused': "b" is not made and comes back refused for good.
        if (which === 'draft-launch-refused') {
          // The draft batch makes every draft, but the launch of "l" is not sent and comes back refused.
          const made = await real.ensureDraftTargetGroups({ items: input.items.map((i) => (keyOf(i.idempotencyKey) === 'l' ? { ...i, launch: undefined } : i)) });
          return {
            results: made.results.map((r, n) =>
              r.ok && keyOf(input.items[n].idempotencyKey) === 'l' ? { ...r, launch: { ok: false, retryable: false, failure: { type: 'unprocessable_entity', message: 'injected: launch refused' } } } : r,
            ),
          };
        }
        const refused = which === 'one-draft-refused';
        if (which === 'one-draft-lost') {
          const made = await real.ensureDraftTargetGroups({ items: input.items.map((i) => (keyOf(i.idempotencyKey) === 'b' ? { ...i, launch: undefined } : i)) });
          return { results: made.results.map((r, n) => (keyOf(input.items[n].idempotencyKey) === 'b' ? { ok: false, retryable: true, failure: { type: 'server_error', message: 'injected: answer lost' } } : r)) };
        }
        const others = input.items.filter((i) => keyOf(i.idempotencyKey) !== 'b');
        const made = await real.ensureDraftTargetGroups({ items: others });
        return {
          results: input.items.map((i) =>
            keyOf(i.idempotencyKey) === 'b'
              ? { ok: false, retryable: !refused, failure: refused ? { type: 'unprocessable_entity', message: 'injected: filling_goal refused' } : { type: 'server_error', message: 'injected 503' } }
              : made.results[others.indexOf(i)],
          ),
        };
      },
    };
    // 'gate-read-lost': the first gate read of the target group with filling_goal 51 (the study's,
    // beside the project) comes back retryable; its own workflow's read then succeeds.
    let gateReadsLost = 0;
    activities.checkLaunchGatesBatch = async (input: CheckLaunchGatesBatchInput): Promise<CheckLaunchGatesBatchOutput> => {
      const out = await real.checkLaunchGatesBatch(input);
      return {
        results: out.results.map((r, i) =>
          input.items[i].feasibility.filling_goal === 51 && gateReadsLost++ === 0 ? { ok: false, retryable: true, failure: { type: 'server_error', message: 'injected 503' } } : r,
        ),
      };
    };
    // 'launch-job-failed': the launch job of "l" comes back Failed (the real launch is not sent);
    // 'launch-batch-fails': the study's launch batch fails as a whole. A target group's own workflow
    // launches through the same activity (its keys hold `/tg/`) and is left alone.
    activities.launchAndAwaitBatch = async (input: LaunchAndAwaitBatchInput): Promise<LaunchAndAwaitBatchOutput> => {
      const which = input.items[0].idempotencyKey.split('/')[2];
      if (input.items[0].idempotencyKey.includes('/tg/')) return await real.launchAndAwaitBatch(input);
      if (which === 'launch-batch-fails') throw ApplicationFailure.create({ type: 'injected', message: 'the launch batch failed as a whole', nonRetryable: true });
      const isL = (key: string) => key.split('/launch/')[1]?.startsWith('l/');
      const others = input.items.filter((i) => !isL(i.idempotencyKey));
      const made = await real.launchAndAwaitBatch({ items: others });
      return {
        results: input.items.map((i) =>
          isL(i.idempotencyKey)
            ? { ok: true as const, jobId: 'injected-job', alreadyLaunched: false, fieldingRunId: null, job: { status: 'Failed', failureReason: 'injected', polls: 1, done: true } }
            : made.results[others.indexOf(i)],
        ),
      };
    };
    // 'job-wait-failed': the launch job of "l" comes back Failed from the wait; 'job-batch-fails': the
    // wait fails as a whole (the launches were sent by the draft batch and complete in the sandbox).
    activities.awaitJobsBatch = async (input: AwaitJobsBatchInput): Promise<AwaitJobsBatchOutput> => {
      const out = await real.awaitJobsBatch(input);
      const tgs = t.stack.sandbox.state().target_groups as Record<string, { target_group_customer_reference_number?: string }>;
      // The reference number is `<study>_<key>` (a study id has no '_').
      const which = String(tgs[input.items[0].targetGroupId]?.target_group_customer_reference_number ?? '').split('_')[0];
      if (which === 'job-batch-fails') throw ApplicationFailure.create({ type: 'injected', message: 'the job wait failed as a whole', nonRetryable: true });
      return {
        results: out.results.map((r, i) =>
          which === 'job-wait-failed' && String(tgs[input.items[i].targetGroupId]?.target_group_customer_reference_number).endsWith('_l')
            ? { ok: true as const, status: 'Failed', failureReason: 'injected', polls: 1, done: true }
            : r,
        ),
      };
    };
    workers = await startStudyflowWorkers({
      connection: await connectWorker({ address: t.stack.temporalAddress, namespace: 'default', connectionOptions: {} }),
      namespace: 'default',
      activities,
      taskQueue: t.taskQueue,
    });
  });
  afterAll(async () => {
    await workers?.shutdown();
  });

  /**
   * The activities a workflow scheduled. A target group taken live by its draft batch gets its (watching) workflow
   * once the revision settled, after apply returned: its history is awaited until the workflow exists (10 s at most).
   */
  const scheduled = async (workflowId: string): Promise<(string | null | undefined)[]> => {
    const deadline = Date.now() + 10_000;
    for (;;) {
      try {
        return ((await t.client.workflow.getHandle(workflowId).fetchHistory()).events ?? []).flatMap((e) =>
          e.activityTaskScheduledEventAttributes ? [e.activityTaskScheduledEventAttributes.activityType?.name] : [],
        );
      } catch (error) {
        if (!(error instanceof Error && /not found/i.test(error.message)) || Date.now() > deadline) throw error;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  };
  const targetGroupsOf = (studyId: string) =>
    Object.values(t.stack.sandbox.state().target_groups).filter((x) => String(x.target_group_customer_reference_number).startsWith(`${studyId}_`));

  it('makes a draft its batch came back without in an activity of its own, with the same body under the same key', async () => {
    const file = writeStudy(t.dir, 'lost.yaml', study('one-draft-lost', ['a', 'b', 'c']));
    const result = await t.cli(['apply', file, '--require-live']);
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(batchCalls).toContainEqual(['a', 'b', 'c']);
    const names = await scheduled('study/1001/one-draft-lost');
    expect(names.filter((n) => n === 'ensureDraftTargetGroups')).toHaveLength(1);
    expect(names.filter((n) => n === 'ensureDraftTargetGroup')).toHaveLength(1);
    const tgs = targetGroupsOf('one-draft-lost');
    expect(tgs.map((x) => x.status)).toEqual(['live', 'live', 'live']);
  });

  it('makes every draft of a batch that failed as a whole in an activity of its own', async () => {
    const file = writeStudy(t.dir, 'whole.yaml', study('whole-batch-fails', ['x', 'y']));
    const result = await t.cli(['apply', file, '--require-live']);
    expect(result.code, result.stdout + result.stderr).toBe(0);
    const names = await scheduled('study/1001/whole-batch-fails');
    expect(names.filter((n) => n === 'ensureDraftTargetGroups')).toHaveLength(1);
    expect(names.filter((n) => n === 'ensureDraftTargetGroup')).toHaveLength(2);
    const tgs = targetGroupsOf('whole-batch-fails');
    expect(tgs.map((x) => x.status)).toEqual(['live', 'live']);
  });

  it('fails only the draft its batch says the API refused, and launches the others', async () => {
    const file = writeStudy(t.dir, 'refused.yaml', study('one-draft-refused', ['a', 'b']));
    const result = await t.cli(['apply', file, '--require-live']);
    expect(result.code).not.toBe(0);
    const names = await scheduled('study/1001/one-draft-refused');
    expect(names).not.toContain('ensureDraftTargetGroup');
    const status = await t.status('1001', 'one-draft-refused');
    expect(status.targetGroups.b).toMatchObject({ phase: 'failed', failure: { type: 'unprocessable_entity', message: 'injected: filling_goal refused' } });
    expect(status.targetGroups.a.phase).toBe('live');
    expect(targetGroupsOf('one-draft-refused').map((x) => x.status)).toEqual(['live']);
  });

  it('leaves a target group whose gate read its batch lost to its own workflow, which reads the gate and launches it', async () => {
    const file = writeStudy(t.dir, 'gate.yaml', study('gate-read-lost', ['g', 'h'], { g: 51 }));
    const result = await t.cli(['apply', file, '--require-live']);
    expect(result.code, result.stdout + result.stderr).toBe(0);
    const g = await scheduled('study/1001/gate-read-lost/tg/g');
    expect(g).toEqual(['checkLaunchGatesBatch', 'launchAndAwaitBatch']);
    expect(await scheduled('study/1001/gate-read-lost/tg/h')).toEqual([]);
    expect(targetGroupsOf('gate-read-lost').map((x) => x.status)).toEqual(['live', 'live']);
  });

  it('launches new target groups from their draft batch and waits for their jobs in a batch of its own', async () => {
    const file = writeStudy(t.dir, 'with-draft.yaml', study('launch-with-draft', ['d', 'e']));
    const result = await t.cli(['apply', file, '--require-live']);
    expect(result.code, result.stdout + result.stderr).toBe(0);
    const names = await scheduled('study/1001/launch-with-draft');
    expect(names.filter((n) => n === 'ensureDraftTargetGroups')).toHaveLength(1);
    expect(names.filter((n) => n === 'awaitJobsBatch')).toHaveLength(1);
    expect(names).not.toContain('launchAndAwaitBatch');
    for (const key of ['d', 'e']) expect(await scheduled(`study/1001/launch-with-draft/tg/${key}`)).toEqual([]);
    expect(targetGroupsOf('launch-with-draft').map((x) => x.status)).toEqual(['live', 'live']);
  });

  it('puts up to 50 target groups in one batch activity of each kind', async () => {
    const keys = Array.from({ length: 30 }, (_, i) => `t${i}`);
    const file = writeStudy(t.dir, 'thirty.yaml', study('thirty-in-one', keys));
    const result = await t.cli(['apply', file, '--require-live']);
    expect(result.code, result.stdout + result.stderr).toBe(0);
    const names = await scheduled('study/1001/thirty-in-one');
    for (const name of ['checkLaunchGatesBatch', 'ensureDraftTargetGroups', 'awaitJobsBatch']) expect(names.filter((n) => n === name)).toHaveLength(1);
    expect(batchCalls.find((b) => b.includes('t0'))).toHaveLength(30);
    expect(targetGroupsOf('thirty-in-one').filter((x) => x.status === 'live')).toHaveLength(30);
  });

  it('leaves a target group whose launch its draft batch could not send to its own workflow', async () => {
    const file = writeStudy(t.dir, 'draft-launch.yaml', study('draft-launch-refused', ['l', 'm']));
    const result = await t.cli(['apply', file, '--require-live']);
    expect(result.code, result.stdout + result.stderr).toBe(0);
    // The gate the study read is handed over, not read again: the workflow only launches.
    expect(await scheduled('study/1001/draft-launch-refused/tg/l')).toEqual(['launchAndAwaitBatch']);
    expect(await scheduled('study/1001/draft-launch-refused/tg/m')).toEqual([]);
    const names = await scheduled('study/1001/draft-launch-refused');
    expect(names).not.toContain('launchAndAwaitBatch');
    expect(targetGroupsOf('draft-launch-refused').map((x) => x.status)).toEqual(['live', 'live']);
  });

  it('leaves a target group whose launch job the wait saw fail to its own workflow, which launches it again', async () => {
    const file = writeStudy(t.dir, 'job-wait.yaml', study('job-wait-failed', ['l', 'm']));
    const result = await t.cli(['apply', file, '--require-live']);
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(await scheduled('study/1001/job-wait-failed/tg/l')).toEqual(['launchAndAwaitBatch']);
    expect(await scheduled('study/1001/job-wait-failed/tg/m')).toEqual([]);
    const status = await t.status('1001', 'job-wait-failed');
    expect(status.targetGroups.l.phase).toBe('live');
    expect(targetGroupsOf('job-wait-failed').map((x) => x.status)).toEqual(['live', 'live']);
  });

  it('leaves every target group of a job wait that failed as a whole to its own workflow, which awaits the job', async () => {
    const file = writeStudy(t.dir, 'job-batch.yaml', study('job-batch-fails', ['p', 'q']));
    const result = await t.cli(['apply', file, '--require-live']);
    expect(result.code, result.stdout + result.stderr).toBe(0);
    // Their own workflows await the jobs the draft batch started (the launch is not sent again).
    for (const key of ['p', 'q']) expect(await scheduled(`study/1001/job-batch-fails/tg/${key}`)).toEqual(['awaitJob']);
    // Launched once each: by the draft batch.
    const launches = t.stack.sandbox.requests().filter((r) => r.method === 'POST' && r.path.endsWith('/launch-from-draft'));
    const ids = targetGroupsOf('job-batch-fails').map((x) => x.id);
    expect(launches.filter((r) => ids.some((id) => r.path.includes(`/target-groups/${id}/`)))).toHaveLength(2);
    expect(targetGroupsOf('job-batch-fails').map((x) => x.status)).toEqual(['live', 'live']);
  });

  it('leaves a target group whose launch job failed in the batch to its own workflow, which launches it again', async () => {
    const file = writeStudy(t.dir, 'job.yaml', study('launch-job-failed', ['l', 'm'], {}, true));
    const result = await t.cli(['apply', file, '--require-live']);
    expect(result.code, result.stdout + result.stderr).toBe(0);
    const l = await scheduled('study/1001/launch-job-failed/tg/l');
    expect(l).toEqual(['launchAndAwaitBatch']);
    expect(await scheduled('study/1001/launch-job-failed/tg/m')).toEqual([]);
    const status = await t.status('1001', 'launch-job-failed');
    expect(status.targetGroups.l.phase).toBe('live');
    expect(status.targetGroups.l.feasibility).toBeDefined();
    expect(targetGroupsOf('launch-job-failed').map((x) => x.status)).toEqual(['live', 'live']);
  });

  it('leaves every target group of a launch batch that failed as a whole to its own workflow', async () => {
    const file = writeStudy(t.dir, 'launch-batch.yaml', study('launch-batch-fails', ['p', 'q'], {}, true));
    const result = await t.cli(['apply', file, '--require-live']);
    expect(result.code, result.stdout + result.stderr).toBe(0);
    for (const key of ['p', 'q']) expect(await scheduled(`study/1001/launch-batch-fails/tg/${key}`)).toEqual(['launchAndAwaitBatch']);
    expect(targetGroupsOf('launch-batch-fails').map((x) => x.status)).toEqual(['live', 'live']);
  });
});
