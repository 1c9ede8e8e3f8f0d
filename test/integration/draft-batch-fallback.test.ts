// The study workflow creates its drafts in batch activities; a draft its batch could not make is made by
// an activity of its own, and a batch that fails as a whole leaves every one of its drafts to be made
// alone. The worker here wraps the real batch activity to fail in those two ways.
import { ApplicationFailure } from '@temporalio/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EnsureDraftTargetGroupsInput, EnsureDraftTargetGroupsOutput } from '../../activities';
import { connectWorker } from '../../worker/temporal-connection';
import { startStudyflowWorkers, type RunningWorkers } from '../../worker/studyflow-worker';
import { createWorkerActivities } from '../../worker/worker-activities';
import { startTestStack, writeStudy, type TestStack } from './harness';

function study(id: string, keys: string[]): string {
  return `format: studyflow/v1
study: ${id}
account: "1001"
business_unit: "2001"
project:
  name: Fallback ${id}
  project_customer_reference_number: PO-${id}
defaults:
  locale: en_US
  expected_incidence_rate: 0.5
  expected_length_of_interview_minutes: 10
  project_manager_id: "3001"
  collects_pii: false
  filling_goal: 50
  launch: { mode: auto }
  timing: { job_poll_initial: 100ms, job_poll_max: 400ms }
target_groups:
${keys.map((k) => `  ${k}:\n    live_url: https://survey.example.com/s/${k}?rid=[%RID%]\n`).join('')}`;
}

const keyOf = (idempotencyKey: string) => idempotencyKey.split('/target-group/')[1];
const studyOf = (idempotencyKey: string) => idempotencyKey.split('/')[2];

describe('draft batches when a batch cannot make every draft', () => {
  let t: TestStack;
  let workers: RunningWorkers;
  const batchCalls: string[][] = [];
  beforeAll(async () => {
    t = await startTestStack('draft-fallback', { inProcessWorker: false });
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
        // The real batch makes every draft but "b": 'one-draft-lost' gets it back as retryable,
        // 'one-draft-refused' as refused for good.
        const others = input.items.filter((i) => keyOf(i.idempotencyKey) !== 'b');
        const made = await real.ensureDraftTargetGroups({ items: others });
        const refused = which === 'one-draft-refused';
        return {
          results: input.items.map((i) =>
            keyOf(i.idempotencyKey) === 'b'
              ? { ok: false, retryable: !refused, failure: refused ? { type: 'unprocessable_entity', message: 'injected: filling_goal refused' } : { type: 'server_error', message: 'injected 503' } }
              : made.results[others.indexOf(i)],
          ),
        };
      },
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
    await t?.stop();
  });

  const scheduled = async (workflowId: string) =>
    ((await t.client.workflow.getHandle(workflowId).fetchHistory()).events ?? []).flatMap((e) =>
      e.activityTaskScheduledEventAttributes ? [e.activityTaskScheduledEventAttributes.activityType?.name] : [],
    );
  const targetGroupsOf = (studyId: string) =>
    Object.values(t.stack.sandbox.state().target_groups).filter((x) => String(x.target_group_customer_reference_number).startsWith(`studyflow:${studyId}:`));

  it('makes a draft its batch came back without in an activity of its own', async () => {
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
});
