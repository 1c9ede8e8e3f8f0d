// Periodic ticks for simulations (e.g. fielding sessions, part 2). Timers are unref'd and stopped on close.
export type TickHandler = (nowMs: number) => void | Promise<void>;

interface Tick {
  name: string;
  intervalMs: number;
  handler: TickHandler;
  timer: NodeJS.Timeout | null;
}

export class TickRegistry {
  private readonly ticks = new Map<string, Tick>();
  private running = false;
  private readonly now: () => number;
  private readonly onError: (name: string, err: unknown) => void;

  constructor(now: () => number, onError: (name: string, err: unknown) => void) {
    this.now = now;
    this.onError = onError;
  }

  /** Registers `handler` to run every `intervalMs` (and on `runAll()`); returns the unregister function. */
  register(name: string, intervalMs: number, handler: TickHandler): () => void {
    if (this.ticks.has(name)) throw new Error(`tick ${name} is already registered`);
    const tick: Tick = { name, intervalMs, handler, timer: null };
    this.ticks.set(name, tick);
    if (this.running) this.arm(tick);
    return () => {
      if (tick.timer) clearInterval(tick.timer);
      this.ticks.delete(name);
    };
  }

  start(): void {
    this.running = true;
    for (const tick of this.ticks.values()) this.arm(tick);
  }

  stop(): void {
    this.running = false;
    for (const tick of this.ticks.values()) {
      if (tick.timer) clearInterval(tick.timer);
      tick.timer = null;
    }
  }

  /** Runs every tick once, now (deterministic tests). */
  async runAll(): Promise<void> {
    for (const tick of [...this.ticks.values()]) await this.fire(tick);
  }

  private arm(tick: Tick): void {
    tick.timer = setInterval(() => void this.fire(tick), tick.intervalMs);
    tick.timer.unref();
  }

  private async fire(tick: Tick): Promise<void> {
    try {
      await tick.handler(this.now());
    } catch (err) {
      this.onError(tick.name, err);
    }
  }
}
