// Remembers the CloudEvents ids of accepted webhook deliveries, so a redelivery of the same event
// (the sender retries until it sees a 2xx) is acknowledged without being processed twice.

/**
 * Where the receiver records accepted event ids. `claim` must be atomic: of two concurrent claims of
 * one id exactly one returns true. A store shared by several receivers (a database, a cache) can
 * implement this interface; the default is {@link InMemoryDeliveryDedupe}.
 */
export interface DeliveryDedupe {
  /** Records `id` as accepted. False when it was already recorded and has not expired (a duplicate). */
  claim(id: string): boolean | Promise<boolean>;
  /** Forgets `id` (its event could not be queued or delivered), so a redelivery is accepted again. */
  release(id: string): void | Promise<void>;
}

/** Options of {@link InMemoryDeliveryDedupe}. */
export interface InMemoryDeliveryDedupeOptions {
  /**
   * How long an id is remembered, in milliseconds. Default 24 hours. Keep it longer than the
   * signature tolerance plus the sender's retry horizon: a replay older than the tolerance is
   * rejected as stale anyway, a retry inside the horizon must still be recognised.
   */
  ttlMs?: number;
  /** Most ids held at once; the oldest are forgotten first beyond it. Default 100,000. */
  maxEntries?: number;
  /** Milliseconds since the epoch. Default `Date.now`. */
  clock?: () => number;
}

export const DEFAULT_DEDUPE_TTL_MS = 24 * 60 * 60 * 1000;
export const DEFAULT_DEDUPE_MAX_ENTRIES = 100_000;

/** Process-local dedupe: a Map in insertion order, pruned by age on every claim and bounded in size. */
export class InMemoryDeliveryDedupe implements DeliveryDedupe {
  private readonly expiresAt = new Map<string, number>();
  private readonly ttlMs: number;
  private readonly maxEntries: number;
  private readonly clock: () => number;
  /** Ids forgotten because of the size bound before their TTL ran out. */
  evicted = 0;

  constructor(options: InMemoryDeliveryDedupeOptions = {}) {
    this.ttlMs = options.ttlMs ?? DEFAULT_DEDUPE_TTL_MS;
    this.maxEntries = options.maxEntries ?? DEFAULT_DEDUPE_MAX_ENTRIES;
    this.clock = options.clock ?? Date.now;
    if (!(this.ttlMs > 0)) throw new RangeError(`dedupe ttlMs must be positive, got ${this.ttlMs}`);
    if (!Number.isInteger(this.maxEntries) || this.maxEntries < 1) throw new RangeError(`dedupe maxEntries must be a positive integer, got ${this.maxEntries}`);
  }

  get size(): number {
    return this.expiresAt.size;
  }

  claim(id: string): boolean {
    const now = this.clock();
    this.pruneExpired(now);
    const expires = this.expiresAt.get(id);
    if (expires !== undefined && expires > now) return false;
    // Delete first so a re-claimed id moves to the end (insertion order = expiry order).
    this.expiresAt.delete(id);
    this.expiresAt.set(id, now + this.ttlMs);
    while (this.expiresAt.size > this.maxEntries) {
      const oldest = this.expiresAt.keys().next().value as string;
      this.expiresAt.delete(oldest);
      this.evicted += 1;
    }
    return true;
  }

  release(id: string): void {
    this.expiresAt.delete(id);
  }

  private pruneExpired(now: number): void {
    for (const [id, expires] of this.expiresAt) {
      if (expires > now) return;
      this.expiresAt.delete(id);
    }
  }
}
