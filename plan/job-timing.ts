// How a job is polled: the schedule the study file's timing gives, shared by the activities that
// poll inside one activity and the workflows that poll on durable timers. Pure.
import type { Timing } from './types';

/** How an `awaitJob` activity polls a job. */
export interface JobWaitOptions {
  /** Delay before the second poll; later delays grow by half up to `pollMaxMs`. The first poll is immediate. */
  pollInitialMs: number;
  pollMaxMs: number;
  /** How long to poll before handing a still-running job back to the workflow. */
  budgetMs: number;
}

/** The statuses in which an exchange job has ended (its final status; a Failed one carries its reason). */
export const TERMINAL_JOB_STATUSES: ReadonlySet<string> = new Set(['Success', 'Completed', 'Failed']);

/** Durations are milliseconds; this is the next poll delay of a job. */
export function nextPollDelay(previousMs: number, initialMs: number, maxMs: number): number {
  if (previousMs <= 0) return initialMs;
  return Math.min(maxMs, Math.ceil(previousMs * 1.5));
}

/** How long one `awaitJob` activity polls before the workflow takes over with durable timers. */
export const JOB_WAIT_BUDGET_MS = 60_000;

/** How an `awaitJob` (or launch) activity polls a job, from the study file's timing. */
export function jobWaitOptions(timing: Timing): JobWaitOptions {
  return { pollInitialMs: timing.jobPollInitialMs, pollMaxMs: timing.jobPollMaxMs, budgetMs: Math.min(JOB_WAIT_BUDGET_MS, timing.jobTimeoutMs) };
}
