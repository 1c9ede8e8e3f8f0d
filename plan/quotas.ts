// Quotas, forecast: each quota's completes at the target group's end date, and how far they fall short of its goal.
// Pure, so the watch (the quota_behind guard, plan/guards.ts), `status` and the report compute it alike.
//
// The method, stated plainly: the target group's pace is the fielding forecast's (plan/forecast.ts: completes per
// day over the recent window, with its 95% band); a quota gets the share of that pace it has had of the target
// group's completes so far (its completes / the group's completes), over the time left to the end date, capped
// at its goal (a full quota closes). It assumes each quota keeps its share: it knows nothing of a quota that the
// exchange starts favouring once others close, so a lagging quota's shortfall is an upper bound of sorts. A quota
// with no goal is not forecast; with no group complete yet (no share known) or no pace, neither.
import type { Range, TargetGroupForecast } from './forecast';

const DAY_MS = 86_400_000;

/** One quota's figures as the exchange reports them (reference: get_profile's quota completes and prescreens). */
export interface QuotaFigures {
  /** The profile's name (or id) and the quota's, to name the cell. */
  profile: string;
  quota: string;
  /** The quota's completes goal. */
  goal: number;
  completes: number;
  /** Respondents who passed its conditions in prescreening (absent: not read). */
  prescreens?: number;
}

/** The target group's pace and time left: what every quota's forecast is taken from. */
export interface QuotaPace {
  /** The time of the forecast (ISO-8601). */
  now: string;
  /** The end date: end_fielding_at (ISO-8601). */
  end: string;
  /** The target group's completes so far. */
  completes: number;
  /** Its completes per day (expected, low and high), from the fielding forecast; absent: no pace known. */
  ratePerDay?: Range<number>;
}

/** The pace of a target group from its fielding forecast (plan/forecast.ts forecastDuringFielding). Undefined without an end date. */
export function quotaPaceOf(forecast: Pick<TargetGroupForecast, 'completes' | 'endFieldingAt' | 'ratePerDay' | 'from'>, now: string): QuotaPace | undefined {
  if (!forecast.endFieldingAt) return undefined;
  return { now: forecast.from?.t ?? now, end: forecast.endFieldingAt, completes: forecast.completes, ...(forecast.ratePerDay ? { ratePerDay: { ...forecast.ratePerDay } } : {}) };
}

/**
 * - `full`: its goal is reached;
 * - `forecast`: forecast from its share of the pace;
 * - `no_share`: the target group has no complete yet, so its share is unknown;
 * - `no_pace`: the target group has no pace (under an hour of readings);
 * - `no_goal`: a goal of 0, nothing to fill.
 */
export type QuotaForecastBasis = 'full' | 'forecast' | 'no_share' | 'no_pace' | 'no_goal';

export interface QuotaForecast extends QuotaFigures {
  basis: QuotaForecastBasis;
  /** completes / goal, 0–1 (absent with no goal). */
  fill?: number;
  /** Its share of the target group's completes so far, 0–1 (absent with no group complete). */
  share?: number;
  /** Its completes at the end date (capped at its goal). */
  completesByEnd?: Range<number>;
  /** goal − expected completes at the end date (0 when it fills). */
  shortfall?: number;
  /** shortfall / goal, 0–1. */
  shortfallFraction?: number;
}

/** Rates and fractions at 10 decimals, so 1/10 of a goal is exactly the 0.1 a threshold says. */
const round10 = (x: number) => Math.round(x * 1e10) / 1e10;

/** Each quota's completes at the end date and its expected shortfall, in the order given. */
export function forecastQuotas(quotas: readonly QuotaFigures[], pace: QuotaPace): QuotaForecast[] {
  const left = Math.max(0, Date.parse(pace.end) - Date.parse(pace.now));
  return quotas.map((q): QuotaForecast => {
    const figures: QuotaFigures = { ...q };
    if (q.goal <= 0) return { ...figures, basis: 'no_goal' };
    const fill = round10(Math.min(1, q.completes / q.goal));
    if (q.completes >= q.goal) {
      const n = q.completes;
      return { ...figures, basis: 'full', fill, completesByEnd: { expected: n, low: n, high: n }, shortfall: 0, shortfallFraction: 0 };
    }
    if (pace.completes <= 0) return { ...figures, basis: 'no_share', fill };
    const share = round10(Math.min(1, q.completes / pace.completes));
    // Past the end date nothing more comes in, pace or not.
    if (!pace.ratePerDay && left > 0) return { ...figures, basis: 'no_pace', fill, share };
    const rate = pace.ratePerDay ?? { expected: 0, low: 0, high: 0 };
    const byEnd = (perDay: number) => Math.min(q.goal, q.completes + Math.floor(share * perDay * (left / DAY_MS) + 1e-9));
    const completesByEnd = { expected: byEnd(rate.expected), low: byEnd(rate.low), high: byEnd(rate.high) };
    const shortfall = q.goal - completesByEnd.expected;
    return { ...figures, basis: 'forecast', fill, share, completesByEnd, shortfall, shortfallFraction: round10(shortfall / q.goal) };
  });
}

/** The worst cell: the quota with the lowest fill (completes / goal), and its fill in percent (one decimal). */
export interface WorstQuota {
  profile: string;
  quota: string;
  goal: number;
  completes: number;
  fillPercent: number;
}

/** The quota furthest from its goal by fill; the first of equals. Undefined when no quota has a goal. */
export function worstQuota(quotas: readonly QuotaFigures[]): WorstQuota | undefined {
  let worst: QuotaFigures | undefined;
  for (const q of quotas) {
    if (q.goal <= 0) continue;
    if (!worst || q.completes / q.goal < worst.completes / worst.goal) worst = q;
  }
  if (!worst) return undefined;
  const fillPercent = Math.round(Math.min(1, worst.completes / worst.goal) * 1000) / 10;
  return { profile: worst.profile, quota: worst.quota, goal: worst.goal, completes: worst.completes, fillPercent };
}

/** The forecast quota with the largest expected shortfall (a share of its goal); the first of equals. Undefined when none is forecast. */
export function mostBehind(forecasts: readonly QuotaForecast[]): QuotaForecast | undefined {
  let behind: QuotaForecast | undefined;
  for (const f of forecasts) {
    if (f.shortfallFraction === undefined) continue;
    if (!behind || f.shortfallFraction > (behind.shortfallFraction as number)) behind = f;
  }
  return behind;
}
