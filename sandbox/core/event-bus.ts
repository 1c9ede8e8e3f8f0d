// In-process event bus. Core routes emit target-group lifecycle events after a change is committed;
// the webhook deliverer (part 2) subscribes. Listeners run on a later tick and their errors are contained.
import type { TargetGroupRecord } from './state-records';

export type TargetGroupChange = 'created' | 'updated' | 'launched' | 'paused' | 'resumed' | 'completed';

export interface TargetGroupEvent {
  change: TargetGroupChange;
  account_id: number;
  project_id: string;
  target_group_id: string;
  /** A copy of the target group after the change. */
  target_group: TargetGroupRecord;
  /** Names of the fields whose value changed (empty for created). */
  changed_fields: string[];
  /** ISO-8601 time of the change (sandbox clock). */
  occurred_at: string;
}

export interface SandboxEventMap {
  'target_group.created': TargetGroupEvent;
  'target_group.updated': TargetGroupEvent;
  'target_group.launched': TargetGroupEvent;
  'target_group.paused': TargetGroupEvent;
  'target_group.resumed': TargetGroupEvent;
  'target_group.completed': TargetGroupEvent;
  /** Free-form events other modules define for each other. */
  [name: string]: unknown;
}

type Listener<T> = (payload: T) => void | Promise<void>;

export class EventBus {
  private readonly listeners = new Map<string, Set<Listener<any>>>();
  private pending = 0;
  private idleWaiters: Array<() => void> = [];

  /** Subscribes; returns the unsubscribe function. `'*'` receives `{name, payload}` for every event. */
  on<K extends keyof SandboxEventMap & string>(name: K | '*', listener: Listener<SandboxEventMap[K]>): () => void {
    let set = this.listeners.get(name);
    if (!set) this.listeners.set(name, (set = new Set()));
    set.add(listener);
    return () => set.delete(listener);
  }

  /** Delivers asynchronously (setImmediate) so a listener never runs inside a request's commit. */
  emit<K extends keyof SandboxEventMap & string>(name: K, payload: SandboxEventMap[K]): void {
    const targets = [...(this.listeners.get(name) ?? []), ...[...(this.listeners.get('*') ?? [])].map(
      (l) => (p: unknown) => l({ name, payload: p }),
    )];
    if (targets.length === 0) return;
    this.pending += 1;
    setImmediate(() => {
      void Promise.allSettled(targets.map(async (listener) => listener(structuredClone(payload)))).then(() => {
        this.pending -= 1;
        if (this.pending === 0) this.idleWaiters.splice(0).forEach((resolve) => resolve());
      });
    });
  }

  /** Resolves once every emitted event has reached its listeners (for tests). */
  idle(): Promise<void> {
    return this.pending === 0 ? Promise.resolve() : new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  clear(): void {
    this.listeners.clear();
  }
}
