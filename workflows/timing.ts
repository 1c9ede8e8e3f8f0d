import type { JobWaitOptions } from '../activities';
import type { Timing } from '../plan/types';

/** Durations in the workflow are milliseconds; this is the next poll delay of a job. */
export function nextPollDelay(previousMs: number, initialMs: number, maxMs: number): number {
  if (previousMs <= 0) return initialMs;
  return Math.min(maxMs, Math.ceil(previousMs * 1.5));
}

/** How long one `awaitJob` activity polls before the workflow takes over with durable timers. */
export const JOB_WAIT_BUDGET_MS = 60_000;

/** How an `awaitJob` (or `launchAndAwait`) activity polls a job, from the study file's timing. */
export function jobWaitOptions(timing: Timing): JobWaitOptions {
  return { pollInitialMs: timing.jobPollInitialMs, pollMaxMs: timing.jobPollMaxMs, budgetMs: Math.min(JOB_WAIT_BUDGET_MS, timing.jobTimeoutMs) };
}
