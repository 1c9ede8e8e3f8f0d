/** Durations in the workflow are milliseconds; this is the next poll delay of a job. */
export function nextPollDelay(previousMs: number, initialMs: number, maxMs: number): number {
  if (previousMs <= 0) return initialMs;
  return Math.min(maxMs, Math.ceil(previousMs * 1.5));
}
