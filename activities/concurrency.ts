// Bounded concurrency for activities that make many calls (observing a study).

/** Runs `fn` over `items`, at most `limit` at a time; rejects with the first failure. */
export async function inParallel<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < items.length) await fn(items[next++]);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
}
