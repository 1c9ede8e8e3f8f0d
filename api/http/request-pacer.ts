// Paces this process's HTTP requests to the Demand API: request starts at least 1000/rate ms apart.
// Temporal's maxTaskQueueActivitiesPerSecond caps activity starts across all workers; an activity may
// send several requests (observeStudy reads many resources; creates read before they write), so each
// worker process also paces its own requests to its share of the API's quota.

export interface RequestPacer {
  /** Resolves when the next request may start. */
  take(signal?: AbortSignal): Promise<void>;
}

/** A pacer for `requestsPerSecond` (> 0); `undefined` means unpaced. */
export function createRequestPacer(requestsPerSecond: number | undefined, clock: () => number = Date.now): RequestPacer {
  if (requestsPerSecond === undefined) return { take: () => Promise.resolve() };
  if (!(requestsPerSecond > 0) || !Number.isFinite(requestsPerSecond)) throw new Error('requestsPerSecond must be a positive number');
  const spacingMs = 1000 / requestsPerSecond;
  let next = 0;
  return {
    async take(signal) {
      const now = clock();
      const at = Math.max(now, next);
      next = at + spacingMs;
      const wait = at - now;
      if (wait <= 0) return;
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(resolve, wait);
        signal?.addEventListener(
          'abort',
          () => {
            clearTimeout(timer);
            reject(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
          },
          { once: true },
        );
      });
    },
  };
}
