// What a step's catch may not swallow (workflows/failures.ts rethrowPassThrough): Temporal's cancellation, however
// wrapped, and an IllegalTransition (a bug the workflow task waits on); every other failure is the step's to record.
import { ActivityFailure, ApplicationFailure, CancelledFailure, RetryState } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { failureOf, rethrowPassThrough } from '../../workflows/failures';
import { IllegalTransition } from '../../workflows/phases';

const inActivity = (cause: Error) => new ActivityFailure('updateLiveFillingGoal', 'update', 'activity-1', RetryState.NON_RETRYABLE_FAILURE, undefined, cause);

describe('rethrowPassThrough', () => {
  it('rethrows a cancellation, also when an activity failure carries it', () => {
    const cancelled = new CancelledFailure('cancelled');
    expect(() => rethrowPassThrough(cancelled)).toThrow(cancelled);
    const wrapped = inActivity(cancelled);
    expect(() => rethrowPassThrough(wrapped)).toThrow(wrapped);
  });

  it('rethrows an IllegalTransition (a bug: the task fails until fixed code runs)', () => {
    const bug = new IllegalTransition('us', 'draft', 'paused');
    expect(() => rethrowPassThrough(bug)).toThrow(bug);
  });

  it('lets every other failure through to the step, which records it', () => {
    const refused = inActivity(ApplicationFailure.create({ type: 'invalid_request', message: 'goal too low', nonRetryable: true }));
    expect(() => rethrowPassThrough(refused)).not.toThrow();
    expect(() => rethrowPassThrough(new Error('boom'))).not.toThrow();
    expect(failureOf(refused)).toEqual({ type: 'invalid_request', message: 'goal too low' });
  });
});
