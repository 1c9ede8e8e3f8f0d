import type { BatchItemFailure, BatchItemResult } from '../activities';
import { inBatches } from '../plan/batches';
import { failureOf, rethrowPassThrough } from './failures';

/**
 * Runs one batch activity per BATCH_SIZE items, the batches side by side, and hands every item its
 * result in order. When a batch fails as a whole (after its retries), or leaves an item out, those
 * items get a retryable failure: the caller treats them as any other item the batch could not do.
 */
export async function eachInBatches<T, O>(
  items: readonly T[],
  keyOf: (item: T) => string,
  what: string,
  call: (batch: T[], summary: string) => Promise<{ results: Array<BatchItemResult<O>> }>,
  each: (item: T, result: BatchItemResult<O>) => void,
): Promise<void> {
  await Promise.all(inBatches(items).map((batch) => oneBatch(batch, keyOf, what, call, each)));
}

/** One batch activity over `batch` (at most BATCH_SIZE items), each item handed its result as by {@link eachInBatches}. */
export async function oneBatch<T, O>(
  batch: T[],
  keyOf: (item: T) => string,
  what: string,
  call: (batch: T[], summary: string) => Promise<{ results: Array<BatchItemResult<O>> }>,
  each: (item: T, result: BatchItemResult<O>) => void,
): Promise<void> {
  const keys = batch.map(keyOf);
  const summary = keys.length === 1 ? `${what} (${keys[0]})` : `${what} (${keys.length} target groups ${keys[0]} … ${keys[keys.length - 1]})`;
  let results: Array<BatchItemResult<O> | undefined>;
  let missing: BatchItemFailure = { ok: false, retryable: true, failure: { type: 'missing_result', message: 'the batch returned no result for this item' } };
  try {
    ({ results } = await call(batch, summary));
  } catch (error) {
    rethrowPassThrough(error);
    results = [];
    missing = { ok: false, retryable: true, failure: failureOf(error) };
  }
  batch.forEach((item, i) => each(item, results[i] ?? missing));
}
