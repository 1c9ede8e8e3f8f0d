// The watch's timing, decided: when the study reads its project's list of target groups and which figures it
// sends on (workflows/study/watch.ts), when a target group reads its performance and checks its state for drift
// (workflows/target-group/watch.ts). Pure and deterministic, as plan/guards.ts is: given the watch's state, what
// happened and the time, it returns the state after it and what to do (read performance, check drift, send
// figures, sleep until a time). The workflows only call it and carry the action out, so its long horizons (the
// 6-hour slow fallback, the pacing carried across continue-as-new) are unit-tested without waiting
// (test/plan/watch-timing.test.ts). docs/workflows.md, "The watch".
import { fnv1a } from '../shared/fnv1a';
import { WATCHED_PHASES } from './phase-groups';

/**
 * The longest wait of a target group's fallback timer (the drift check nothing else triggers), and its wait once
 * the study's list tells when the target group last changed (`updated_at`): a change then wakes the check itself.
 */
export const MAX_QUIET_MS = 6 * 3_600_000;

/**
 * The least time between two performance reads of a target group whose figures keep changing, in watch
 * intervals: every live target group of a busy fielding changes every interval, and one detailed read each
 * would outgrow the API's rate limit at 10,000 (docs/benchmarks.md, "Cost of watching at scale").
 */
export const PERFORMANCE_PACE_INTERVALS = 3;

export { WATCHED_PHASES } from './phase-groups';

/** A stable offset in [0, spanMs) for `id` (FNV-1a): the same on every replay and every run of the workflow. */
export function spreadMs(id: string, spanMs: number): number {
  return spanMs > 0 ? fnv1a(id) % Math.floor(spanMs) : 0;
}

// ---------------------------------------------------------------------------------------------------------
// A target group's watch
// ---------------------------------------------------------------------------------------------------------

/** What a target group's watch keeps between its turns; carried across continue-as-new as it is (plain JSON). */
export interface TargetGroupPacing {
  /** When the fallback check is due (workflow time, ms; 0: not scheduled yet). */
  nextReadAt: number;
  /** The fallback timer's current wait (0: not started); it doubles up to MAX_QUIET_MS. */
  quietMs: number;
  /** When performance was last read by the watch (workflow time, ms; 0: not yet). */
  lastPerformanceAt: number;
  /** The study's watch sent figures at least once (a study that does not watch: the fallback reads performance). */
  figuresSeen: boolean;
  /** Figures came since the last performance read (the read is paced). */
  unread: boolean;
  /** The `updated_at` of the last figures (the exchange's time of the last change to the target group itself). */
  updatedAt?: string;
}

/** The target group a turn is about: its watch interval, its workflow id (the spread), its phase now. */
export interface TargetGroupWatchContext {
  intervalMs: number;
  workflowId: string;
  phase: string;
}

/**
 * What happened:
 * - `turn`: a turn of the watch begins (a new run after continue-as-new begins with one, its pacing carried):
 *   until when does it sleep, unless something wakes it?
 * - `woke`: the sleep ended (its time came, or a revision, a control, a webhook event or figures woke it), after
 *   the events and controls were taken: `figures` the study sent (their status and `updated_at`), and
 *   `targetGroupUpdated` when a `target_group.updated` event came (a change made in the exchange).
 */
export type TargetGroupWatchEvent =
  | { kind: 'turn' }
  | { kind: 'woke'; figures?: { status: string; updatedAt?: string }; targetGroupUpdated?: boolean };

/**
 * What to do:
 * - `sleep` until `until` (workflow time, ms), or until a revision, a control, an event or figures wake it;
 * - `read`: read performance (`performance`), then check the state for drift (`drift: 'check'`; `'check_later_completion'`:
 *   a change made in the exchange, checked at once, but a completion it shows is taken at the next reading, with
 *   its performance; the session events of the last completes may still be on their way). Nothing to do is a
 *   `read` of neither.
 */
export type TargetGroupWatchAction =
  | { kind: 'sleep'; until: number }
  | { kind: 'read'; performance: boolean; drift: 'none' | 'check' | 'check_later_completion' };

export interface TargetGroupWatchDecision {
  pacing: TargetGroupPacing;
  action: TargetGroupWatchAction;
}

/** A target group's watch before its first turn. */
export const NEW_PACING: Readonly<TargetGroupPacing> = { nextReadAt: 0, quietMs: 0, lastPerformanceAt: 0, figuresSeen: false, unread: false };

/**
 * One decision of a target group's watch:
 * - figures whose status is not the phase: read performance and the state at once (a completion is taken with
 *   that last reading);
 * - figures changed otherwise: read performance, at most once per PERFORMANCE_PACE_INTERVALS watch intervals
 *   (the turn sleeps until that read is due);
 * - figures whose `updated_at` moved (the target group itself was changed, by anyone), the first such included:
 *   check the state for drift;
 * - the fallback timer (first at twice the watch interval plus an offset within one interval by the workflow's id,
 *   so target groups launched together spread their checks; then doubling up to MAX_QUIET_MS): check the state
 *   for drift (and read performance if figures never came: a study that does not watch). Once figures carry
 *   `updated_at`, the fallback waits MAX_QUIET_MS, its first wait spread over that span by the workflow's id.
 * A `scheduled` run collects nothing yet: its performance is not read, only its state.
 */
export function nextWatchAction(pacing: Readonly<TargetGroupPacing>, event: TargetGroupWatchEvent, now: number, context: TargetGroupWatchContext): TargetGroupWatchDecision {
  const next: TargetGroupPacing = { ...pacing };
  const watchMs = context.intervalMs;
  const paceMs = PERFORMANCE_PACE_INTERVALS * watchMs;
  const watching = WATCHED_PHASES.has(context.phase);
  const readsPerformance = context.phase !== 'scheduled';
  if (event.kind === 'turn') {
    if (!watching) return { pacing: next, action: { kind: 'sleep', until: now + watchMs } };
    if (next.nextReadAt === 0) {
      next.quietMs = 2 * watchMs;
      // Spread over one interval by the workflow's id: target groups launched together do not all check at once.
      next.nextReadAt = now + next.quietMs + spreadMs(context.workflowId, watchMs);
    }
    // A paced performance read is due at its time (never for a scheduled run, which reads none: it would be due
    // at once, again and again).
    const until = next.unread && readsPerformance ? Math.min(next.nextReadAt, next.lastPerformanceAt + paceMs) : next.nextReadAt;
    return { pacing: next, action: { kind: 'sleep', until } };
  }
  const figures = event.figures;
  let changedItself = false;
  if (figures) {
    next.unread = true;
    next.figuresSeen = true;
    if (figures.updatedAt !== undefined && figures.updatedAt !== next.updatedAt) {
      // The list now tells when this target group changes: the fallback check becomes a slow safety net, every
      // MAX_QUIET_MS, the first within that span at an offset by the workflow's id (10,000 target groups launched
      // within minutes do not all check at once).
      if (next.updatedAt === undefined) {
        next.quietMs = MAX_QUIET_MS;
        next.nextReadAt = Math.max(next.nextReadAt, now + spreadMs(context.workflowId, MAX_QUIET_MS));
      }
      changedItself = true;
      next.updatedAt = figures.updatedAt;
    }
  }
  if (!watching) return { pacing: next, action: { kind: 'read', performance: false, drift: 'none' } };
  const statusChanged = figures !== undefined && figures.status !== context.phase;
  const fallback = now >= next.nextReadAt;
  if (fallback) {
    next.quietMs = Math.min(2 * next.quietMs, MAX_QUIET_MS);
    next.nextReadAt = now + next.quietMs;
  }
  const performanceDue = statusChanged || (next.unread && now >= next.lastPerformanceAt + paceMs) || (fallback && !next.figuresSeen);
  const performance = performanceDue && readsPerformance;
  if (performance) {
    next.unread = false;
    next.lastPerformanceAt = now;
  }
  const drift = statusChanged || fallback || changedItself ? 'check' : event.targetGroupUpdated ? 'check_later_completion' : 'none';
  return { pacing: next, action: { kind: 'read', performance, drift } };
}

/**
 * The pacing a new run takes from its carried state (continue-as-new): what it carried, each field checked, so
 * a run keeps its timers' rhythm and does not read again at once; absent or unreadable fields start afresh.
 */
export function carriedPacing(carried: unknown): TargetGroupPacing {
  const c = carried && typeof carried === 'object' ? (carried as Record<string, unknown>) : {};
  const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : 0);
  const pacing: TargetGroupPacing = {
    nextReadAt: num(c.nextReadAt),
    quietMs: num(c.quietMs),
    lastPerformanceAt: num(c.lastPerformanceAt),
    figuresSeen: c.figuresSeen === true,
    unread: c.unread === true,
  };
  if (typeof c.updatedAt === 'string') pacing.updatedAt = c.updatedAt;
  return pacing;
}

// ---------------------------------------------------------------------------------------------------------
// The study's watch
// ---------------------------------------------------------------------------------------------------------

/**
 * What of a target group's figures, read in the project's list, wakes its workflow when it changes: compared
 * field by field (`sameFigures`), never as text.
 */
export interface SeenFigures {
  status: string;
  completes: number;
  prescreens: number;
  /** The list's `last_complete_date`. */
  lastCompleteDate?: string;
  /** The list's `updated_at`. */
  updatedAt?: string;
}

/** What the study's watch keeps between its reads (the workflow's StudyWatch adds the version of its call). */
export interface StudyWatchTiming {
  intervalMs: number;
  /** The figures last sent per target-group key. */
  seen: Record<string, SeenFigures>;
  /** When the next read is due (workflow time, ms); unset until a target group is watched. */
  nextAt?: number;
  /** When each target group was last sent its figures (workflow time, ms). */
  signaledAt?: Record<string, number>;
}

/** The fields of figures the study compares (figures carry more: rates, cost, the goal). */
export function seenFiguresOf(figures: SeenFigures): SeenFigures {
  const seen: SeenFigures = { status: figures.status, completes: figures.completes, prescreens: figures.prescreens };
  if (figures.lastCompleteDate !== undefined) seen.lastCompleteDate = figures.lastCompleteDate;
  if (figures.updatedAt !== undefined) seen.updatedAt = figures.updatedAt;
  return seen;
}

/** Whether two readings of a target group's figures are the same, field by field. */
export function sameFigures(a: SeenFigures, b: SeenFigures): boolean {
  return a.status === b.status && a.completes === b.completes && a.prescreens === b.prescreens && a.lastCompleteDate === b.lastCompleteDate && a.updatedAt === b.updatedAt;
}

/**
 * What happened to the study's watch:
 * - `revision`: a revision was applied; `intervalMs` is the shortest watch interval of its target groups;
 * - `turn`: the study's loop asks when its next read is due; `watching` whether it has a target group to watch;
 * - `tick`: the list is read now;
 * - `figures`: the list showed a watched target group's figures;
 * - `sent`: the target group took the figures sent.
 */
export type StudyWatchEvent =
  | { kind: 'revision'; intervalMs: number }
  | { kind: 'turn'; watching: boolean }
  | { kind: 'tick' }
  | { kind: 'figures'; key: string; figures: SeenFigures }
  | { kind: 'sent'; key: string; figures: SeenFigures };

/**
 * What to do: `idle` (nothing to watch: wait for a target group to become watchable), `sleep` until the next read,
 * `read_list` now, `send_figures` to the target group, `hold` them (unchanged, or a change not due yet), or
 * `none` (the state was updated, nothing to do).
 */
export type StudyWatchAction =
  | { kind: 'idle' }
  | { kind: 'sleep'; until: number }
  | { kind: 'read_list' }
  | { kind: 'send_figures' }
  | { kind: 'hold'; why: 'unchanged' | 'paced' }
  | { kind: 'none' };

/**
 * One decision of the study's watch. Figures are sent when they changed and are due: always the first figures
 * and a new status (a completion is taken at once); other changes at most once per PERFORMANCE_PACE_INTERVALS
 * watch intervals, the pace at which a target group reads its performance anyway. A change held back is not
 * remembered (only figures sent are), so a later read sends it. After a revision the figures seen are kept, and
 * the next read's time too when the interval is the same.
 */
export function nextStudyWatchAction<W extends StudyWatchTiming>(watch: Readonly<W>, event: StudyWatchEvent, now: number): { watch: W; action: StudyWatchAction } {
  const next: W = { ...watch, seen: { ...watch.seen }, ...(watch.signaledAt ? { signaledAt: { ...watch.signaledAt } } : {}) };
  switch (event.kind) {
    case 'revision': {
      const kept = watch.nextAt !== undefined && watch.intervalMs === event.intervalMs;
      next.intervalMs = event.intervalMs;
      next.signaledAt = next.signaledAt ?? {};
      if (!kept) delete next.nextAt;
      return { watch: next, action: { kind: 'none' } };
    }
    case 'turn': {
      if (!event.watching) {
        delete next.nextAt;
        return { watch: next, action: { kind: 'idle' } };
      }
      next.nextAt ??= now + next.intervalMs;
      return { watch: next, action: next.nextAt <= now ? { kind: 'read_list' } : { kind: 'sleep', until: next.nextAt } };
    }
    case 'tick':
      next.nextAt = now + next.intervalMs;
      return { watch: next, action: { kind: 'read_list' } };
    case 'figures': {
      const seen = watch.seen[event.key];
      if (seen !== undefined && sameFigures(seen, event.figures)) return { watch: next, action: { kind: 'hold', why: 'unchanged' } };
      if (seen === undefined || seen.status !== event.figures.status) return { watch: next, action: { kind: 'send_figures' } };
      const last = watch.signaledAt?.[event.key];
      const due = last === undefined || now - last >= PERFORMANCE_PACE_INTERVALS * watch.intervalMs;
      return { watch: next, action: due ? { kind: 'send_figures' } : { kind: 'hold', why: 'paced' } };
    }
    case 'sent':
      next.seen[event.key] = seenFiguresOf(event.figures);
      next.signaledAt = { ...(next.signaledAt ?? {}), [event.key]: now };
      return { watch: next, action: { kind: 'none' } };
  }
}

/**
 * The figures seen as a carried state holds them. A run carried from before they were structured holds each as
 * the text `status|completes|prescreens|last complete|updated_at` (empty for none): read into its fields here,
 * once, so running workflows survive the upgrade. Anything else is dropped (those figures are sent again).
 */
export function carriedSeenFigures(seen: unknown): Record<string, SeenFigures> {
  const out: Record<string, SeenFigures> = {};
  if (!seen || typeof seen !== 'object') return out;
  for (const [key, value] of Object.entries(seen as Record<string, unknown>)) {
    const figures = typeof value === 'string' ? legacyFigures(value) : structuredFigures(value);
    if (figures) out[key] = figures;
  }
  return out;
}

function legacyFigures(text: string): SeenFigures | undefined {
  const parts = text.split('|');
  if (parts.length !== 5) return undefined;
  const [status, completes, prescreens, lastCompleteDate, updatedAt] = parts;
  const c = Number(completes);
  const p = Number(prescreens);
  if (!status || !Number.isFinite(c) || !Number.isFinite(p)) return undefined;
  return seenFiguresOf({ status, completes: c, prescreens: p, lastCompleteDate: lastCompleteDate || undefined, updatedAt: updatedAt || undefined });
}

function structuredFigures(value: unknown): SeenFigures | undefined {
  if (!value || typeof value !== 'object') return undefined;
  const v = value as Record<string, unknown>;
  if (typeof v.status !== 'string' || typeof v.completes !== 'number' || typeof v.prescreens !== 'number') return undefined;
  return seenFiguresOf({
    status: v.status,
    completes: v.completes,
    prescreens: v.prescreens,
    lastCompleteDate: typeof v.lastCompleteDate === 'string' ? v.lastCompleteDate : undefined,
    updatedAt: typeof v.updatedAt === 'string' ? v.updatedAt : undefined,
  });
}
