// The forecast of a target group and of its study as studyflow shows it: the target group's state as the workflow
// holds it (its status, the completes series and the latest performance reading) handed to the one forecast
// function, plan/forecast.ts `forecastTargetGroup`. The target group's console (target-group/console.ts) calls it
// with its own state; the study's `status` and `report` queries call it with the copies its children sent (their
// progress and report updates), so `studyflow status`, the report, the workflow's current details and its
// StudyflowForecastEnd show the same forecast. Pure: no Temporal API, no I/O; computed when asked for, never
// stored in history.
import { forecastStudy, forecastTargetGroup, type StudyForecast, type TargetGroupForecast, type TargetGroupForecastState } from '../plan/forecast';
import { DEFAULT_FIELDING_DAYS } from '../plan/launch-gates';
import { LAUNCHED_PHASES } from '../plan/phase-groups';
import type { CompletesPoint, StudyStatus, TargetGroupReportData, TargetGroupStatus } from './messages';

const DAY_MS = 86_400_000;

/** What the forecast reads of a target group. */
export interface ForecastSource {
  status: Pick<TargetGroupStatus, 'key' | 'phase' | 'liveAt' | 'price' | 'launchForecast'> & Partial<Pick<TargetGroupStatus, 'launchAt' | 'launchAfter' | 'guards' | 'feasibility' | 'updatedAt' | 'softLaunch'>>;
  report?: { expected: TargetGroupReportData['expected']; series: readonly CompletesPoint[]; performance?: TargetGroupReportData['performance'] };
  /** Paused by the study's budget (the study's status names the target groups its budget holds). */
  heldByBudget?: boolean;
  /** The clock for a target group not fielding (workflow time in a workflow); the latest reading's time while fielding. */
  now?: string;
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

/** Who holds a paused target group: a guard's hold, the study's budget, else the file or the operator. */
function pausedBy(source: ForecastSource): string {
  const held = source.status.guards?.hold?.guards ?? [];
  if (held.length) return `a guard (${held.map((g) => g.guard).join(', ')})`;
  if (source.heldByBudget) return "the study's budget";
  return 'the file or the operator';
}

/** The target group's state as plan/forecast.ts reads it, from the figures a workflow holds. Undefined without a goal. */
export function forecastState(source: ForecastSource): TargetGroupForecastState | undefined {
  const { status, report } = source;
  const performance = report?.performance;
  // The goal the file and the exchange now hold: the revision's (its report's expected figures), else the gate's.
  const goal = report?.expected.fillingGoal ?? status.feasibility?.fillingGoal ?? status.launchForecast?.goal;
  if (goal === undefined || !(goal > 0)) return undefined;
  const fielding = LAUNCHED_PHASES.has(status.phase);
  const now = (fielding ? performance?.readAt : undefined) ?? source.now ?? new Date().toISOString();
  // end_fielding_at as the revision states it; without the revision's figures, the one the gate's forecast was made to.
  const endFieldingAt = report ? report.expected.endFieldingAt : status.launchForecast?.endFieldingAt;
  return {
    key: status.key,
    phase: status.phase,
    goal,
    now,
    ...(status.launchAt ? { launchAt: status.launchAt } : {}),
    ...(status.launchAfter ? { awaiting: status.launchAfter } : {}),
    ...(endFieldingAt ? { endFieldingAt } : {}),
    ...(status.liveAt ? { liveAt: status.liveAt } : {}),
    ...(report?.series.length ? { series: report.series } : {}),
    ...(performance ? { completes: performance.completes } : {}),
    ...(performance?.completesCost ? { spend: performance.completesCost } : {}),
    ...(status.price ? { price: status.price } : {}),
    ...(status.launchForecast ? { launch: status.launchForecast } : {}),
    ...(status.phase === 'paused' ? { pausedBy: pausedBy(source) } : {}),
    // A soft launch that only analyses holds nothing back: it fields at its pace.
    ...(status.softLaunch && !status.softLaunch.analysisOnly ? { softLaunch: { state: status.softLaunch.state, completes: status.softLaunch.completes, endsAt: status.softLaunch.endsAt } } : {}),
  };
}

/** The forecast to show of a target group in any phase (plan/forecast.ts forecastTargetGroup); undefined when nothing is known yet. */
export function targetGroupForecast(source: ForecastSource): TargetGroupForecast | undefined {
  const state = forecastState(source);
  if (!state) return undefined;
  // While fielding, a forecast needs a reading or one made before launch; a completed one needs neither.
  return forecastTargetGroup(state);
}

/**
 * The study's status with the forecasts: each target group's (targetGroupForecast over its report data) and the
 * study's (forecastStudy over those), when any target group has one. A copy; the state is not changed (a query).
 * `now` is the query's clock (workflow time).
 */
export function withForecasts(status: StudyStatus, reports: Readonly<Record<string, Pick<TargetGroupReportData, 'expected' | 'series' | 'performance'>>>, now?: string): StudyStatus {
  const targetGroups: Record<string, TargetGroupStatus> = {};
  const forecasts: TargetGroupForecast[] = [];
  const budgetHeld = new Set(status.budget?.reached?.paused ?? []);
  for (const [key, tg] of Object.entries(status.targetGroups)) {
    const forecast = targetGroupForecast({ status: tg, report: reports[key], heldByBudget: budgetHeld.has(key), ...(now ? { now } : {}) });
    // The gate's forecast is made again into the forecast (for the goal and moment as they are now): shown once.
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
