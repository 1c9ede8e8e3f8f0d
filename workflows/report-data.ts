// What the workflows hold for `studyflow report`: a bounded time series of completes, the latest
// performance reading (the reference's TargetGroupPerformance) reduced to counts, money, dates and rates,
// and what changed after launch. Pure and deterministic, so it runs in workflow code; no respondent IDs
// ever enter it (performance answers carry counts only), and every part is bounded in size.
import type { CompletesPoint, ExpectedFigures, PerformanceSnapshot, ReportChange, RespondentStatusCount, TargetGroupPhase, TargetGroupReportData } from './messages';
import type { TargetGroupReportUpdate } from './child-protocol';

/** Points a series keeps; beyond it, every other older point is dropped (the span stays, resolution halves). */
export const MAX_SERIES_POINTS = 500;
/** Changes a report keeps (the most recent). */
export const MAX_REPORT_CHANGES = 50;
/** Respondent statuses a snapshot keeps (the API's first ones), and the longest status code and label kept. */
export const MAX_RESPONDENT_STATUSES = 20;
const MAX_STATUS_TEXT = 80;

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

function rate(value: unknown): number | undefined {
  const n = count(value);
  return n !== undefined && n >= 0 && n <= 1 ? n : undefined;
}

function text(value: unknown, max = MAX_STATUS_TEXT): string | undefined {
  return typeof value === 'string' && value !== '' ? value.slice(0, max) : undefined;
}

/** An ISO-8601 timestamp as the API gave it (bounded), or undefined. */
function timestamp(value: unknown): string | undefined {
  return typeof value === 'string' && value.length <= 40 && !Number.isNaN(Date.parse(value)) ? value : undefined;
}

/**
 * The performance answer (TargetGroupPerformance, checked by the activity) reduced to the report's figures;
 * unknown fields are dropped. `phase` is the workflow's phase at the reading (the answer carries no status).
 * Respondents by status come from `respondent_analysis.live` (test respondents are not fielding figures and
 * are left out); an entry without a status or count is skipped.
 */
export function performanceSnapshot(performance: Record<string, unknown>, readAt: string, phase?: TargetGroupPhase): PerformanceSnapshot {
  const analysis = record(performance.respondent_analysis);
  const respondents: RespondentStatusCount[] = [];
  for (const item of Array.isArray(analysis?.live) ? analysis.live : []) {
    if (respondents.length >= MAX_RESPONDENT_STATUSES) break;
    const entry = record(item);
    const status = text(entry?.status);
    const n = count(entry?.count);
    if (status === undefined || n === undefined) continue;
    const label = text(entry?.label);
    respondents.push(label !== undefined && label !== status ? { status, label, count: n } : { status, count: n });
  }
  const snapshot: PerformanceSnapshot = {
    readAt,
    entrants: count(performance.entrants) ?? 0,
    prescreens: count(performance.prescreens) ?? 0,
    completes: count(performance.completes) ?? 0,
    respondents,
  };
  if (phase !== undefined) snapshot.phase = phase;
  const cost = record(performance.completes_cost);
  if (cost && (typeof cost.value === 'string' || typeof cost.value === 'number') && typeof cost.currency_code === 'string') {
    snapshot.completesCost = { value: String(cost.value), currency_code: cost.currency_code.slice(0, 8) };
  }
  const first = timestamp(performance.first_complete);
  if (first !== undefined) snapshot.firstComplete = first;
  const last = timestamp(performance.last_complete);
  if (last !== undefined) snapshot.lastComplete = last;
  const incidence = rate(performance.incidence_rate);
  if (incidence !== undefined) snapshot.incidenceRate = incidence;
  const conversion = rate(performance.conversion_rate);
  if (conversion !== undefined) snapshot.conversionRate = conversion;
  const dropOff = rate(performance.drop_off_rate);
  if (dropOff !== undefined) snapshot.dropOffRate = dropOff;
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
