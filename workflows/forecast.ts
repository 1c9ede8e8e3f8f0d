// The forecast of a target group and of its study as studyflow shows it: one function from the figures a
// workflow holds (the status, the completes series and the latest performance reading) to plan/forecast.ts.
// The target group's console (target-group/console.ts) calls it with its own state; the study's `status` and
// `report` queries call it with the copies its children sent (their progress and report updates), so
// `studyflow status`, the report and the workflow's current details show the same forecast. Pure: no
// Temporal API, no I/O; computed when asked for, never stored in history.
import { forecastDuringFielding, forecastStudy, type StudyForecast, type TargetGroupForecast } from '../plan/forecast';
import { DEFAULT_FIELDING_DAYS } from '../plan/launch-gates';
import type { CompletesPoint, StudyStatus, TargetGroupReportData, TargetGroupStatus } from './messages';

const DAY_MS = 86_400_000;

/** What the forecast reads of a target group. */
export interface ForecastSource {
  status: Pick<TargetGroupStatus, 'key' | 'phase' | 'liveAt' | 'price' | 'launchForecast'>;
  report?: { expected: TargetGroupReportData['expected']; series: readonly CompletesPoint[]; performance?: TargetGroupReportData['performance'] };
}

/**
 * When fielding ends: end_fielding_at as the study file states it, else the launch's default window
 * (DEFAULT_FIELDING_DAYS from `from`: when it went live, or the first reading). Undefined when neither is known.
 */
export function fieldingEnd(stated: string | undefined, from: string | undefined): string | undefined {
  if (stated !== undefined && !Number.isNaN(Date.parse(stated))) return new Date(Date.parse(stated)).toISOString();
  const start = from === undefined ? NaN : Date.parse(from);
  return Number.isFinite(start) ? new Date(start + DEFAULT_FIELDING_DAYS * DAY_MS).toISOString() : undefined;
}

const FIELDING = new Set(['live', 'paused', 'completed']);

/**
 * The forecast during fielding (live, paused or completed, with a performance reading and a goal): the rate of
 * the completes series (forecastDuringFielding), the spend of the latest reading, the gate's price while there
 * is no complete, and the forecast before launch while fielding has under an hour of readings. Undefined otherwise.
 */
export function fieldingForecast(source: ForecastSource): TargetGroupForecast | undefined {
  const { status, report } = source;
  const performance = report?.performance;
  const goal = report?.expected.fillingGoal;
  if (!FIELDING.has(status.phase) || !performance || goal === undefined || !(goal > 0)) return undefined;
  const end = fieldingEnd(report.expected.endFieldingAt, status.liveAt ?? performance.readAt);
  if (end === undefined) return undefined;
  return forecastDuringFielding({
    key: status.key,
    goal,
    end,
    now: performance.readAt,
    series: report.series,
    ...(performance.completesCost ? { spend: performance.completesCost } : {}),
    ...(status.price ? { price: status.price } : {}),
    ...(status.launchForecast ? { fallback: status.launchForecast } : {}),
  });
}

/** The forecast to show: during fielding from its readings, else the one its launch gate made (none before a gate read). */
export function targetGroupForecast(source: ForecastSource): TargetGroupForecast | undefined {
  return fieldingForecast(source) ?? source.status.launchForecast;
}

/**
 * The study's status with the forecasts: each target group's (targetGroupForecast over its report data) and the
 * study's (forecastStudy over those), when any target group has one. A copy; the state is not changed (a query).
 */
export function withForecasts(status: StudyStatus, reports: Readonly<Record<string, Pick<TargetGroupReportData, 'expected' | 'series' | 'performance'>>>): StudyStatus {
  const targetGroups: Record<string, TargetGroupStatus> = {};
  const forecasts: TargetGroupForecast[] = [];
  for (const [key, tg] of Object.entries(status.targetGroups)) {
    const forecast = targetGroupForecast({ status: tg, report: reports[key] });
    // The gate's forecast is the forecast, or what it falls back on: shown once.
    const { launchForecast: _shown, ...rest } = tg;
    targetGroups[key] = forecast ? { ...rest, forecast } : tg;
    if (forecast) forecasts.push(forecast);
  }
  if (forecasts.length === 0) return status;
  // A study some of whose target groups have no forecast yet has no finish and no total: only a part is known.
  const missing = Object.keys(status.targetGroups).filter((key) => !targetGroups[key].forecast);
  const forecast: StudyForecast = missing.length ? { finish: {}, targetGroups: forecasts, method: `no forecast yet for ${missing.join(', ')}` } : forecastStudy(forecasts);
  return { ...status, targetGroups, forecast };
}
