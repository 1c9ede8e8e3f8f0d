// Runs an activity the way Temporal's retry policy would, outside a worker: retries retryable failures,
// waits nextRetryDelay when the failure sets it (else the backoff), stops on non-retryable ones.
import { ApplicationFailure } from '@temporalio/common';

export interface RetryPolicyLike {
  maximumAttempts: number;
  initialIntervalMs: number;
  backoffCoefficient?: number;
  maximumIntervalMs?: number;
}

export interface RetryRun<T> {
  result: T;
  attempts: number;
  failures: unknown[];
  /** Milliseconds waited before each retry. */
  waits: number[];
}

export async function runWithRetries<T>(
  attempt: (n: number) => Promise<T>,
  policy: RetryPolicyLike,
  onFailure?: (error: unknown, n: number) => void | Promise<void>,
): Promise<RetryRun<T>> {
  const failures: unknown[] = [];
  const waits: number[] = [];
  for (let n = 1; ; n += 1) {
    try {
      return { result: await attempt(n), attempts: n, failures, waits };
    } catch (error) {
      failures.push(error);
      if (error instanceof ApplicationFailure && error.nonRetryable) throw error;
      if (n >= policy.maximumAttempts) throw error;
      await onFailure?.(error, n);
      const backoff = Math.min(
        policy.initialIntervalMs * (policy.backoffCoefficient ?? 2) ** (n - 1),
        policy.maximumIntervalMs ?? Number.POSITIVE_INFINITY,
      );
      const next = error instanceof ApplicationFailure && typeof error.nextRetryDelay === 'number' ? error.nextRetryDelay : backoff;
      waits.push(next);
      await new Promise((resolve) => setTimeout(resolve, next));
    }
  }
}
