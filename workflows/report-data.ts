// What the workflows hold for `studyflow report`: a bounded time series of completes, the latest
// performance reading reduced to counts, and what changed after launch. Pure and deterministic, so
// it runs in workflow code; no respondent IDs ever enter it (performance answers carry counts only).
import type { CompletesPoint, ExpectedFigures, PerformanceSnapshot, QuotaFill, ReportChange, TargetGroupReportData, TargetGroupReportUpdate } from './messages';

/** Points a series keeps; beyond it, every other older point is dropped (the span stays, resolution halves). */
export const MAX_SERIES_POINTS = 500;
/** Changes a report keeps (the most recent). */
export const MAX_REPORT_CHANGES = 50;

/**
 * Appends a reading. A reading equal to the two before it only moves the plateau's end (flat stretches
 * cost two points). Over `max` points, every second point is dropped, keeping the first and the last.
 */
export function appendPoint(series: readonly CompletesPoint[], point: CompletesPoint, max = MAX_SERIES_POINTS): CompletesPoint[] {
  const out = [...series];
  const n = out.length;
  if (n >= 2 && out[n - 1].completes === point.completes && out[n - 2].completes === point.completes) {
    out[n - 1] = point;
    return out;
  }
  out.push(point);
  if (out.length <= max) return out;
  const last = out[out.length - 1];
  const thinned = out.filter((_, i) => i % 2 === 0);
  if (thinned[thinned.length - 1] !== last) thinned.push(last);
  return thinned.length <= max ? thinned : [...thinned.slice(0, max - 1), last];
}

/** Appends changes and keeps the most recent `max`. */
export function appendChanges(changes: readonly ReportChange[], added: readonly ReportChange[], max = MAX_REPORT_CHANGES): ReportChange[] {
  const out = [...changes, ...added];
  return out.length > max ? out.slice(out.length - max) : out;
}

function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

function count(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/** The performance answer reduced to the report's counts (unknown fields are dropped). */
export function performanceSnapshot(performance: Record<string, unknown>, readAt: string): PerformanceSnapshot {
  const byStatus: Record<string, number> = {};
  for (const [status, n] of Object.entries(record(performance.completes_by_status) ?? {})) {
    const value = count(n);
    if (value !== undefined) byStatus[status] = value;
  }
  const quotas: QuotaFill[] = (Array.isArray(performance.quotas) ? performance.quotas : [])
    .map(record)
    .filter((q): q is Record<string, unknown> => q !== undefined)
    .map((q) => {
      const fill: QuotaFill = { profileId: String(q.profile_id ?? ''), targetId: String(q.target_id ?? ''), completes: count(q.completes) ?? 0 };
      if (typeof q.name === 'string' && q.name) fill.name = q.name;
      const goal = count(q.completes_goal) ?? count(q.filling_goal);
      if (goal !== undefined) fill.completesGoal = goal;
      const prescreens = count(q.prescreens);
      if (prescreens !== undefined) fill.prescreens = prescreens;
      return fill;
    });
  const snapshot: PerformanceSnapshot = {
    readAt,
    completes: count(performance.completes) ?? byStatus.Complete ?? 0,
    completesByStatus: byStatus,
    quotas,
  };
  if (typeof performance.status === 'string') snapshot.status = performance.status;
  const goal = count(performance.filling_goal);
  if (goal !== undefined) snapshot.fillingGoal = goal;
  const remaining = count(performance.remaining_completes);
  if (remaining !== undefined) snapshot.remainingCompletes = remaining;
  const inProgress = count(performance.in_progress);
  if (inProgress !== undefined) snapshot.inProgress = inProgress;
  const prescreens = count(performance.prescreens);
  if (prescreens !== undefined) snapshot.prescreens = prescreens;
  const cost = record(performance.completes_cost);
  if (cost && (typeof cost.value === 'string' || typeof cost.value === 'number') && typeof cost.currency_code === 'string') {
    snapshot.completesCost = { value: String(cost.value), currency_code: cost.currency_code };
  }
  return snapshot;
}

/** The figures the study file expects of a target group. */
export function expectedFigures(draft: Record<string, unknown>): ExpectedFigures {
  const figures: ExpectedFigures = {};
  const ir = count(draft.expected_incidence_rate);
  if (ir !== undefined) figures.incidenceRate = ir;
  const loi = count(draft.expected_length_of_interview_minutes);
  if (loi !== undefined) figures.lengthOfInterviewMinutes = loi;
  const goal = count(draft.filling_goal);
  if (goal !== undefined) figures.fillingGoal = goal;
  return figures;
}

/** A study's copy of a child's report, brought up to date by the child's update. */
export function mergeReportUpdate(held: TargetGroupReportData | undefined, update: TargetGroupReportUpdate): TargetGroupReportData {
  const next: TargetGroupReportData = {
    key: update.key,
    expected: update.expected,
    series: update.point ? appendPoint(held?.series ?? [], update.point) : [...(held?.series ?? [])],
    changes: appendChanges(held?.changes ?? [], update.changes),
  };
  const launchedAt = update.launchedAt ?? held?.launchedAt;
  if (launchedAt) next.launchedAt = launchedAt;
  const performance = update.performance ?? held?.performance;
  if (performance) next.performance = performance;
  if (update.performanceError) next.performanceError = update.performanceError;
  return next;
}
