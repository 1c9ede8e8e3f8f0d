// studyflow_target_groups{phase}: the running target-group workflows of this worker's task queue, by the
// StudyflowPhase search attribute, as Temporal's visibility counts them. One count per phase (the server's
// GROUP BY takes only ExecutionStatus: "'group by' clause is only supported for ExecutionStatus search
// attribute"), every `intervalMs` on a timer, and on a scrape when the last count is older than that, so a
// scrape never asks more often. Every worker of a queue reports the same figure: aggregate with max, not sum.
// Visibility is eventually consistent (a phase shows a moment after the workflow upserts it).
import { TARGET_GROUP_PHASES, TARGET_GROUP_WORKFLOW_TYPE } from '../workflows/search-attributes';

/** The part of Temporal's workflow service the collector calls (a NativeConnection's or a Connection's). */
export interface VisibilityCounter {
  countWorkflowExecutions(request: { namespace: string; query: string }): Promise<{ count?: unknown }>;
}

export interface PhaseCollectorOptions {
  workflowService: VisibilityCounter;
  namespace: string;
  /** The workflow task queue whose target groups are counted. */
  taskQueue: string;
  metrics: { setTargetGroupPhases(counts: Record<string, number>): void };
  /** How often the counts are taken. Default 30 s. */
  intervalMs?: number;
  /** One line when counting starts failing and when it works again. */
  log?: (line: string) => void;
  now?: () => number;
}

export const DEFAULT_PHASE_INTERVAL_MS = 30_000;

/** A string literal of Temporal's list-query language. */
function literal(text: string): string {
  return `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

/** The list query counting the running target-group workflows of `taskQueue` in `phase`. */
export function phaseQuery(taskQueue: string, phase: string): string {
  return `WorkflowType = ${literal(TARGET_GROUP_WORKFLOW_TYPE)} AND ExecutionStatus = 'Running' AND TaskQueue = ${literal(taskQueue)} AND StudyflowPhase = ${literal(phase)}`;
}

/** A count as the service answers it: absent for 0, a protobuf Long or a number. */
function countOf(value: unknown): number {
  if (value === undefined || value === null) return 0;
  if (typeof value === 'number') return value;
  const long = value as { toNumber?: () => number };
  return typeof long.toNumber === 'function' ? long.toNumber() : Number(value);
}

/** The running target-group workflows of `taskQueue` in `phase`, as Temporal's visibility counts them. */
export async function countTargetGroupsInPhase(workflowService: VisibilityCounter, namespace: string, taskQueue: string, phase: string): Promise<number> {
  const answer = await workflowService.countWorkflowExecutions({ namespace, query: phaseQuery(taskQueue, phase) });
  return countOf(answer.count);
}

export class TargetGroupPhaseCollector {
  private readonly intervalMs: number;
  private readonly now: () => number;
  private timer?: NodeJS.Timeout;
  private inFlight?: Promise<void>;
  private countedAt = Number.NEGATIVE_INFINITY;
  private failing = false;
  /** Count requests made so far (a test reads how often the collector asked). */
  requests = 0;

  constructor(private readonly options: PhaseCollectorOptions) {
    this.intervalMs = options.intervalMs ?? DEFAULT_PHASE_INTERVAL_MS;
    this.now = options.now ?? Date.now;
    if (!Number.isFinite(this.intervalMs) || this.intervalMs < 1_000) throw new RangeError(`the phase metrics interval must be 1000 ms or more, not ${this.intervalMs}`);
  }

  /** Counts now, then every interval until {@link stop}. */
  start(): void {
    void this.refresh();
    this.timer = setInterval(() => void this.refresh(), this.intervalMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Before a scrape: counts again when the last count is older than the interval (one count at a time). */
  async refreshIfStale(): Promise<void> {
    if (this.inFlight) return await this.inFlight;
    if (this.now() - this.countedAt < this.intervalMs) return;
    await this.refresh();
  }

  /** Counts every phase; a failure leaves no sample (a stale figure would mislead) and is logged once. Never rejects. */
  refresh(): Promise<void> {
    this.inFlight ??= this.count().finally(() => (this.inFlight = undefined));
    return this.inFlight;
  }

  private async count(): Promise<void> {
    const { workflowService, namespace, taskQueue, metrics, log } = this.options;
    try {
      const counts = await Promise.all(
        TARGET_GROUP_PHASES.map(async (phase) => {
          this.requests += 1;
          return [phase, await countTargetGroupsInPhase(workflowService, namespace, taskQueue, phase)] as const;
        }),
      );
      metrics.setTargetGroupPhases(Object.fromEntries(counts));
      this.countedAt = this.now();
      if (this.failing) log?.('target groups by phase: counting again');
      this.failing = false;
    } catch (error) {
      metrics.setTargetGroupPhases({});
      this.countedAt = this.now();
      if (!this.failing) log?.(`target groups by phase: Temporal's visibility did not answer (${error instanceof Error ? error.message : String(error)}); studyflow_target_groups is empty until it does`);
      this.failing = true;
    }
  }
}

/** STUDYFLOW_METRICS_PHASES_INTERVAL_MS is not a whole number of milliseconds of 1000 or more. */
export class PhaseIntervalError extends Error {
  override readonly name = 'PhaseIntervalError';
}

/** The interval from STUDYFLOW_METRICS_PHASES_INTERVAL_MS (unset or empty: the default). */
export function phaseIntervalFromEnv(env: Record<string, string | undefined>): number {
  const text = env.STUDYFLOW_METRICS_PHASES_INTERVAL_MS?.trim();
  if (!text) return DEFAULT_PHASE_INTERVAL_MS;
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1_000) {
    throw new PhaseIntervalError(`STUDYFLOW_METRICS_PHASES_INTERVAL_MS must be a whole number of milliseconds, 1000 or more (it is "${text}")`);
  }
  return value;
}
