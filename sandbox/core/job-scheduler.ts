// Asynchronous jobs: created Processing with a due time, settled by the settler of their kind once the
// sandbox clock passes the due time (a timer fires, or lazily before each request). Processing jobs loaded
// from a state file get their timers back.
import type { JobRecord, JobStatus } from './state-records';
import type { StateStore } from './state-store';

/** Settles one due job: sets status/failure_reason/result and applies its effect. Must not throw for data. */
export type JobSettler = (job: JobRecord) => void;

export class JobScheduler {
  private readonly settlers = new Map<string, JobSettler>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly store: StateStore;
  private readonly now: () => number;
  private readonly onCommit: () => void;

  constructor(store: StateStore, now: () => number, onCommit: () => void) {
    this.store = store;
    this.now = now;
    this.onCommit = onCommit;
  }

  /** Registers the settler of a job kind (one per kind). */
  defineKind(kind: string, settler: JobSettler): void {
    if (this.settlers.has(kind)) throw new Error(`job kind ${kind} is already defined`);
    this.settlers.set(kind, settler);
  }

  /** Arms the timer of a (new or reloaded) Processing job. */
  arm(job: JobRecord): void {
    const delay = Math.max(0, job.due_at - this.now());
    const timer = setTimeout(() => {
      this.timers.delete(job.id);
      this.settleDue();
    }, delay);
    timer.unref();
    this.timers.set(job.id, timer);
  }

  /** Re-arms every Processing job (after start or a state-file load). */
  armAll(): void {
    for (const job of Object.values(this.store.data.jobs)) if (job.status === 'Processing') this.arm(job);
  }

  /** Settles every due Processing job, in creation order; persists once if anything changed. */
  settleDue(): void {
    const now = this.now();
    const due = Object.values(this.store.data.jobs)
      .filter((job) => job.status === 'Processing' && job.due_at <= now)
      .sort((a, b) => a.seq - b.seq);
    if (due.length === 0) return;
    for (const job of due) {
      const settler = this.settlers.get(job.kind);
      if (!settler) continue;
      settler(job);
      job.input = {};
      if (job.status === 'Processing') job.status = 'Failed';
      job.completed_at = new Date(now).toISOString();
    }
    this.onCommit();
  }

  /** True when a job of one of `kinds` is Processing for the target group. */
  hasRunning(targetGroupId: string, kinds: readonly string[]): boolean {
    return Object.values(this.store.data.jobs).some(
      (job) => job.target_group_id === targetGroupId && job.status === 'Processing' && kinds.includes(job.kind),
    );
  }

  stopAll(): void {
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
  }
}

export const isTerminal = (status: JobStatus) => status !== 'Processing';
