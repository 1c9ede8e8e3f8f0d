// How work on many target groups is grouped into batch activities. Pure: the planner schedules the
// batches, the workflows run them, and the batch activities check their size against the same limit.

/**
 * Target groups per batch activity (`ensureDraftTargetGroups`, `checkLaunchGatesBatch`,
 * `launchAndAwaitBatch`, `awaitJobsBatch`). Fewer, bigger batches mean fewer activity completions
 * for the study workflow to take one at a time: at 200 target groups, 4 batches of 50 went live
 * sooner than 8 of 25 (docs/benchmarks.md).
 */
export const BATCH_SIZE = 50;

/** `items` in consecutive groups of at most `size`, in order. */
export function inBatches<T>(items: readonly T[], size: number = BATCH_SIZE): T[][] {
  if (!Number.isInteger(size) || size < 1) throw new RangeError(`batch size must be a positive integer, got ${size}`);
  const batches: T[][] = [];
  for (let i = 0; i < items.length; i += size) batches.push(items.slice(i, i + size));
  return batches;
}
