// Bounded concurrency for work that makes many calls (observing a study; the benchmarks' history reads).

/** Runs `fn` over `items`, at most `limit` at a time; the results in the order of the items. Rejects with the first failure. */
export async function inParallel<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  return out;
}
