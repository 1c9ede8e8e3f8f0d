// The live-target-group activities (activities/live-target-groups.ts) as thin adapters: a bad input is the named,
// non-retryable invalid_activity_input naming the field, before any request; a good one reaches the operation.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApplicationFailure } from '@temporalio/common';
import type { RecordedExchange } from '../contract/recording-client';
import { CONTRACT_CTX, startRecordingSandbox, type RecordingSandbox } from '../contract/launched-pair';

const exchanges: RecordedExchange[] = [];
let sb: RecordingSandbox;
beforeAll(async () => {
  sb = await startRecordingSandbox(exchanges);
});
afterAll(async () => {
  await sb?.agent.close();
  await sb?.sandbox.close();
});

async function failureOf(call: () => Promise<unknown>): Promise<ApplicationFailure> {
  const error = await call().then(() => undefined, (e: unknown) => e);
  expect(error).toBeInstanceOf(ApplicationFailure);
  return error as ApplicationFailure;
}

describe('live-target-group activities', () => {
  it('refuse a missing id, a bad goal and a missing money field as invalid_activity_input naming it, without a request', async () => {
    const a = sb.activities;
    const before = exchanges.length;
    const missing = await failureOf(() => a.readLiveTargetGroup({ ctx: CONTRACT_CTX, projectId: '', targetGroupId: 'X' }));
    expect(missing).toMatchObject({ type: 'invalid_activity_input', nonRetryable: true });
    expect(missing.message).toMatch(/readLiveTargetGroup.*projectId/);
    const goal = await failureOf(() => a.updateLiveFillingGoal({ ctx: CONTRACT_CTX, projectId: 'P', targetGroupId: 'T', completesGoal: 0 }));
    expect(goal.message).toMatch(/completesGoal must be a positive integer/);
    const money = await failureOf(() => a.updateLiveCostPerInterview({ ctx: CONTRACT_CTX, projectId: 'P', targetGroupId: 'T', costPerInterview: { value: '2.00' } as never }));
    expect(money.message).toMatch(/costPerInterview.currency_code/);
    const run = await failureOf(() => a.relaunchFieldingRun({ ctx: CONTRACT_CTX, projectId: 'P', targetGroupId: 'T', fieldingRunId: ' ' }));
    expect(run.message).toMatch(/fieldingRunId/);
    expect(exchanges.length).toBe(before);
  });

  it('an unknown target group is the typed not-found failure of the read, not an empty state', async () => {
    const failure = await failureOf(() => sb.activities.liveFeasibility({ ctx: CONTRACT_CTX, projectId: '01ARZ3NDEKTSV4RRFFQ69G5FAV', targetGroupId: '01ARZ3NDEKTSV4RRFFQ69G5FAW', whatIf: {} }));
    expect(failure.type).toMatch(/not_found/);
  });
});
