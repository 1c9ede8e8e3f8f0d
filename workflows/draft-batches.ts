// How the study workflow groups the drafts it creates into batch activities. No imports: the
// activity that takes a batch checks its size against the same constant.

/** Drafts per `ensureDraftTargetGroups` activity. */
export const DRAFT_BATCH_SIZE = 25;

/**
 * Patch of draft creation: the study workflow creates the drafts of an apply in batches of
 * {@link DRAFT_BATCH_SIZE} (one activity each, run side by side) instead of one activity per draft;
 * a draft whose batch could not make it is tried again in an activity of its own.
 */
export const DRAFT_BATCH_PATCH = 'draft-batch-v1';

/** `items` in consecutive groups of at most `size`, in order. */
export function inBatches<T>(items: readonly T[], size: number = DRAFT_BATCH_SIZE): T[][] {
  if (!Number.isInteger(size) || size < 1) throw new RangeError(`batch size must be a positive integer, got ${size}`);
  const batches: T[][] = [];
  for (let i = 0; i < items.length; i += size) batches.push(items.slice(i, i + size));
  return batches;
}
