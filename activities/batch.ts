// Batch activities: one activity that does the same call for many target groups, each item on its
// own, so that one failing does not fail the others. The workflow retries a retryable item alone.
import { ApplicationFailure } from '@temporalio/common';
import { BATCH_SIZE } from '../plan/batches';
import { withHeartbeats } from './activity-context';
import { requireArray } from './activity-input';
import { invalidInputFailure } from '../api/http/errors';

/** At most this many items in one batch activity. */
export const BATCH_MAX = BATCH_SIZE;

/** Why an item failed, and whether trying it again on its own may succeed. */
export interface BatchItemFailure {
  ok: false;
  retryable: boolean;
  failure: { type: string; message: string };
}

/** One item of a batch: what the call returned, or its failure. */
export type BatchItemResult<T> = ({ ok: true } & T) | BatchItemFailure;

/**
 * Runs `run` for every item at once (at most {@link BATCH_MAX}, checked before any call) and returns
 * a result per item, in order. A failure the API gave as final (400/404/422 and the like, non-retryable
 * ApplicationFailures) comes back as `retryable: false`; anything else as `retryable: true`.
 */
export async function eachItem<I, O extends object>(activity: string, rawItems: unknown, run: (item: I) => Promise<O>): Promise<Array<BatchItemResult<O>>> {
  const items = requireArray(activity, 'items', rawItems) as I[];
  if (items.length > BATCH_MAX) throw invalidInputFailure(activity, `at most ${BATCH_MAX} items, got ${items.length}`);
  let done = 0;
  return await withHeartbeats(
    () => ({ items: items.length, done }),
    () =>
      Promise.all(
        items.map(async (item): Promise<BatchItemResult<O>> => {
          try {
            return await itemOutcome(() => run(item));
          } finally {
            done += 1;
          }
        }),
      ),
  );
}

/**
 * What `run` returned, or its failure as a value: a failure the API gave as final (non-retryable
 * ApplicationFailures) comes back as `retryable: false`, anything else as `retryable: true`.
 */
export async function itemOutcome<O extends object>(run: () => Promise<O>): Promise<BatchItemResult<O>> {
  try {
    return { ok: true, ...(await run()) };
  } catch (error) {
    if (error instanceof ApplicationFailure) {
      return { ok: false, retryable: !error.nonRetryable, failure: { type: error.type ?? 'application_error', message: error.message } };
    }
    return { ok: false, retryable: true, failure: { type: error instanceof Error ? error.name : 'unknown', message: error instanceof Error ? error.message : String(error) } };
  }
}
