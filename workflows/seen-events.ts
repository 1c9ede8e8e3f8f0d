// The webhook event ids a target-group workflow has taken, so that a redelivered event (the sender
// retries; several receivers each pass it on) is recorded once. Pure and deterministic: a bounded set
// in arrival order, carried across continue-as-new as a plain array.

/** Most event ids remembered; the oldest are forgotten first. A redelivery comes within minutes, not thousands of events later. */
export const MAX_SEEN_EVENT_IDS = 2_000;

export class SeenEvents {
  private readonly ids: Set<string>;

  constructor(
    carried: readonly string[] = [],
    private readonly max = MAX_SEEN_EVENT_IDS,
  ) {
    this.ids = new Set(carried.slice(-max));
  }

  /** Records `id`; false when it was already recorded (a duplicate to drop). */
  remember(id: string): boolean {
    if (this.ids.has(id)) return false;
    this.ids.add(id);
    if (this.ids.size > this.max) this.ids.delete(this.ids.values().next().value as string);
    return true;
  }

  get size(): number {
    return this.ids.size;
  }

  /** The ids, oldest first, for the next run's input. */
  toArray(): string[] {
    return [...this.ids];
  }
}
