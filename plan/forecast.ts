// The fielding forecast: when a target group will reach its filling goal and what it will have cost by then
// (or by end_fielding_at, when that comes first), with a range. Pure, so `studyflow plan`, `status`, the
// report and the workflows' current details compute it alike.
//
// Before launch it comes from the API's own estimates: feasibility's `suggested_completes_goal_range` over the
// fielding window gives a low and a high daily rate, and the calendar's suggested days (suggest-days) the
// expected one; the cost is feasibility's suggested price × the completes, its band the fewest completes at the
// low end of suggested_price_range and the most at its high end (when the answer gives that range).
//
// During fielding it is recomputed from the completes series (cumulative counts, as the watch's readings
// and the reference's get_target_group_completes_aggregated_by_interval give them: "completes collected thus
// far" at the end of each interval). The method, stated plainly:
// - the rate is the completes of the most recent 72 hours (or since the first reading, when fielding is
//   younger) divided by that span: recent enough to follow a slowing target group, long enough to span
//   day and night;
// - its band treats completes as a Poisson count: k ± 1.96·√k completes in the span (about 95% for a steady
//   rate), and for k = 0 the "rule of three" (at most 3 in the span); the low end may be zero, and then the
//   latest finish is unknown (absent), not a made-up date;
// - the remaining completes at that rate give the finish; the completes by end_fielding_at are capped at the
//   goal; the cost is the cost per complete so far (completes_cost / completes) × those completes.
// It assumes the recent rate holds: it knows nothing of weekdays, pacing or a quota that closes; the band is
// the uncertainty of counting, not of those. Fewer than one hour of readings gives no forecast from fielding.
import { DEFAULT_FIELDING_DAYS, feasibilityWindow, type FeasibilityVerdict } from './launch-gates';
import { latestTime } from '../shared/times';
import { isMoney, moneyOf, moneyText, scaleMicros, toMicros } from './money';
import type { ServerCheck, TargetGroupChecks } from './check-types';
import type { DesiredTargetGroup, Money } from './types';
import { SOFT_LAUNCH_HOLDS, type SoftLaunchState } from './soft-launch';

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;
/** The span of readings the fielding rate is taken over. */
export const RECENT_WINDOW_MS = 72 * HOUR_MS;
/** Less than this span of readings gives no rate. */
export const MIN_SPAN_MS = HOUR_MS;
/** The normal quantile of a two-sided 95% band. */
const Z95 = 1.96;

export interface CompletesReading {
  /** ISO-8601 time of the reading (the end of the interval, for the aggregated read). */
  t: string;
  /** Completes collected so far at `t`. */
  completes: number;
}

/**
 * What a forecast comes from: the calendar's days or feasibility's range (before launch), the completes series
 * (fielding), the completion (completed); `paused`, `awaiting` and `soft_launch` have no finish (paused: none while
 * paused; awaiting: a staged launch has no start yet; soft_launch: the goal is collected only once the soft launch is
 * promoted); `none` knows nothing.
 */
export type ForecastBasis = 'calendar' | 'feasibility' | 'fielding' | 'completed' | 'paused' | 'awaiting' | 'soft_launch' | 'none';

export interface Range<T> {
  expected: T;
  low: T;
  high: T;
}

export interface TargetGroupForecast {
  key: string;
  basis: ForecastBasis;
  goal: number;
  /** Completes so far (0 before launch). */
  completes: number;
  /**
   * The point the forecast projects from: the start of fielding with no completes (before launch), the latest
   * reading (during fielding). Absent without a forecast. A chart draws the band from here to the goal.
   */
  from?: { t: string; completes: number };
  endFieldingAt?: string;
  /**
   * When the goal is reached: expected, earliest and latest (ISO, to the minute). `latest` is absent when the
   * low rate is zero (no bound); everything is absent when there is no rate at all.
   */
  finish: { expected?: string; earliest?: string; latest?: string };
  /** Completes per day. */
  ratePerDay?: Range<number>;
  /** Completes when fielding ends: at end_fielding_at, or at the goal when it is reached first. */
  completesByEnd?: Range<number>;
  /** The cost of those completes. */
  cost?: Range<Money>;
  /** The expected finish is not after end_fielding_at (absent: unknown). */
  finishesBeforeEnd?: boolean;
  /** Completes still to collect (goal − completes), when known; 0 once completed. */
  remaining?: number;
  /** Paused: who holds it (`a guard (...)`, `the budget`, `the file or the operator`). */
  pausedBy?: string;
  /** Paused or completed: what it has spent (completes_cost of the latest reading). */
  spent?: Money;
  /**
   * Before launch: the price of one complete the cost is taken at (expected, and the low and high ends of the
   * suggested range), so the forecast can be made again for another goal or launch moment (forecastTargetGroup).
   */
  unitPrice?: Range<Money>;
  /** One line: what the forecast comes from. */
  method: string;
}

const toMinute = (ms: number) => new Date(Math.round(ms / 60_000) * 60_000).toISOString();
const fixed = (x: number, places = 1) => String(Math.round(x * 10 ** places) / 10 ** places);

/** The price of one complete before launch: the suggested price, widened by the suggested range (in its currency). */
function unitPriceOf(price: Money | undefined, priceRange?: { min: Money; max: Money }): Range<Money> | undefined {
  const priceMicros = price ? toMicros(price.value) : undefined;
  if (!price || priceMicros === undefined) return undefined;
  const same = priceRange && priceRange.min.currency_code === price.currency_code && priceRange.max.currency_code === price.currency_code;
  const lowMicros = same ? toMicros(priceRange.min.value) : undefined;
  const highMicros = same ? toMicros(priceRange.max.value) : undefined;
  return {
    expected: { ...price },
    low: lowMicros !== undefined && lowMicros < priceMicros ? { ...priceRange!.min } : { ...price },
    high: highMicros !== undefined && highMicros > priceMicros ? { ...priceRange!.max } : { ...price },
  };
}

/** The cost of completes at a unit price: the fewest at the lowest price, the most at the highest. Exact. */
function costAtUnitPrice(unit: Range<Money>, completes: Range<number>): Range<Money> | undefined {
  const at = (n: number, price: Money) => {
    const micros = toMicros(price.value);
    return micros === undefined ? undefined : moneyOf(micros * BigInt(n), price.currency_code);
  };
  const expected = at(completes.expected, unit.expected);
  const low = at(completes.low, unit.low);
  const high = at(completes.high, unit.high);
  return expected && low && high ? { expected, low, high } : undefined;
}

function costRange(price: Money | undefined, spend: Money | undefined, completesNow: number, completes: Range<number>): Range<Money> | undefined {
  // The cost per complete so far when there is one, else the suggested price: exact, in millionths.
  const spendMicros = spend ? toMicros(spend.value) : undefined;
  if (spend && spendMicros !== undefined && completesNow > 0) {
    const at = (n: number) => moneyOf(scaleMicros(spendMicros, BigInt(n), BigInt(completesNow)), spend.currency_code);
    return { expected: at(completes.expected), low: at(completes.low), high: at(completes.high) };
  }
  const unit = unitPriceOf(price);
  return unit ? costAtUnitPrice(unit, completes) : undefined;
}

/** What the plan knows before launch: feasibility's answer and the calendar's suggested days. */
export interface BeforeLaunchInput {
  key: string;
  goal: number;
  /** When fielding starts (the launch moment: launch.at, start_fielding_at, or now). */
  start: string;
  /** end_fielding_at (or the default window's end). */
  end: string;
  /** feasibility's suggested_completes_goal_range (min, max) for the window, its suggested_price and suggested_price_range. */
  feasibility?: { minCompletes?: number; maxCompletes?: number; suggestedPrice?: Money; suggestedPriceRange?: { min: Money; max: Money } };
  /** suggest-days: the days the calendar suggests for the goal. */
  suggestedDays?: number;
}

/** Rates before launch, in completes a day, with where they come from: what a forecast is made again from. */
interface LaunchRates {
  basis: 'calendar' | 'feasibility';
  ratePerDay: Range<number>;
  unitPrice?: Range<Money>;
  /** What the rates come from (without the `before launch: ` head). */
  source: string;
}

/**
 * The projection before launch, from rates that do not depend on the goal or the moment: the goal at the expected,
 * high and low rates from `start`, the completes by `end`, the cost at the unit price. The one place both the
 * gate's forecast (forecastBeforeLaunch) and a forecast made again for a new goal or launch moment
 * (forecastTargetGroup) compute it.
 */
function projectBeforeLaunch(key: string, goal: number, start: number, endIso: string, rates: LaunchRates): TargetGroupForecast {
  const end = Date.parse(endIso);
  const windowDays = (end - start) / DAY_MS;
  const base = { key, goal, completes: 0, endFieldingAt: endIso, remaining: goal };
  const { expected, low, high } = rates.ratePerDay;
  if (!(expected > 0) || !Number.isFinite(start)) {
    // A range of no completes: no rate, so no finish (the launch rule holds it), rather than a made-up date.
    return { ...base, basis: 'feasibility', finish: {}, ratePerDay: { expected: 0, low: 0, high: 0 }, method: `before launch: ${rates.source || 'no rate'}: no finish` };
  }
  const at = (rate: number) => (rate > 0 ? start + (goal / rate) * DAY_MS : undefined);
  const expectedAt = at(expected) as number;
  const earliestAt = Math.min(at(high) ?? expectedAt, expectedAt);
  const latestAt = at(low) === undefined ? undefined : Math.max(at(low) as number, expectedAt);
  const byEnd = (rate: number) => Math.min(goal, Math.max(0, Math.floor(rate * windowDays + 1e-9)));
  const completesByEnd = windowDays > 0 ? { expected: byEnd(expected), low: Math.min(byEnd(low), byEnd(expected)), high: Math.max(byEnd(high), byEnd(expected)) } : undefined;
  const cost = completesByEnd && rates.unitPrice ? costAtUnitPrice(rates.unitPrice, completesByEnd) : undefined;
  return {
    ...base,
    from: { t: new Date(start).toISOString(), completes: 0 },
    basis: rates.basis,
    finish: { expected: toMinute(expectedAt), earliest: toMinute(earliestAt), ...(latestAt !== undefined ? { latest: toMinute(latestAt) } : {}) },
    ratePerDay: { expected, low: Math.min(low, expected), high: Math.max(high, expected) },
    ...(completesByEnd ? { completesByEnd } : {}),
    ...(cost ? { cost } : {}),
    ...(rates.unitPrice ? { unitPrice: rates.unitPrice } : {}),
    finishesBeforeEnd: expectedAt <= end,
    method: `before launch: ${rates.source}`,
  };
}

/**
 * The forecast before launch. Feasibility's range over the window gives the low and high daily rates (min
 * and max completes over the window's days); the calendar's suggested days give the expected rate (goal /
 * days), else the middle of the range. The earliest and latest finish widen to take the expected one in.
 */
export function forecastBeforeLaunch(input: BeforeLaunchInput): TargetGroupForecast {
  const { key, goal } = input;
  const start = Date.parse(input.start);
  const end = Date.parse(input.end);
  const windowDays = (end - start) / DAY_MS;
  const min = input.feasibility?.minCompletes;
  const max = input.feasibility?.maxCompletes;
  const hasRange = windowDays > 0 && min !== undefined && max !== undefined && max >= min;
  const days = input.suggestedDays !== undefined && input.suggestedDays > 0 ? input.suggestedDays : undefined;
  if (!hasRange && days === undefined) return { key, goal, completes: 0, endFieldingAt: input.end, remaining: goal, basis: 'none', finish: {}, method: 'no forecast: feasibility gave no completes range and the calendar no days' };

  const low = hasRange ? min / windowDays : goal / (days as number);
  const high = hasRange ? max / windowDays : goal / (days as number);
  const expected = days !== undefined ? goal / days : (low + high) / 2;
  const range = hasRange ? `feasibility's ${min}–${max} completes over the ${fixed(windowDays)}-day window (${fixed(low)}–${fixed(high)} a day)` : '';
  const calendar = days !== undefined ? `the calendar suggests ${days} day(s) for ${goal} completes` : '';
  const unitPrice = unitPriceOf(input.feasibility?.suggestedPrice, input.feasibility?.suggestedPriceRange);
  const prices = input.feasibility?.suggestedPriceRange;
  const priced = unitPrice && prices ? `a CPI of ${prices.min.value}–${prices.max.value} ${prices.max.currency_code}` : '';
  return projectBeforeLaunch(key, goal, start, input.end, {
    basis: days !== undefined ? 'calendar' : 'feasibility',
    ratePerDay: { expected, low, high },
    ...(unitPrice ? { unitPrice } : {}),
    source: expected > 0 ? [range, calendar, priced].filter(Boolean).join('; ') : range,
  });
}

/** `{ suggestedPriceRange }` when `value` is a min and max of money, else undefined. */
function priceRangeOf(value: unknown): { suggestedPriceRange: { min: Money; max: Money } } | undefined {
  const range = typeof value === 'object' && value !== null ? (value as { min?: unknown; max?: unknown }) : undefined;
  return range && isMoney(range.min) && isMoney(range.max) ? { suggestedPriceRange: { min: range.min, max: range.max } } : undefined;
}
const count = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined);

/**
 * The forecast before launch of a draft from a feasibility verdict (plan/launch-gates.ts `readFeasibility`): its range
 * and suggested price over the window feasibility was asked for (feasibilityWindow at `nowMs`, as the launch gate
 * asks), and the calendar's suggested days when the caller has them. The launch gate (workflows/launch.ts) and
 * `studyflow plan` (forecastFromChecks) both compute it here.
 */
export function forecastFromFeasibility(
  desired: DesiredTargetGroup,
  feasibility: Pick<FeasibilityVerdict, 'minCompletes' | 'feasibleCompletes' | 'suggestedPrice' | 'suggestedPriceRange'> | undefined,
  nowMs: number,
  suggestedDays?: number,
): TargetGroupForecast {
  const window = feasibilityWindow(desired, nowMs);
  const price = feasibility?.suggestedPrice;
  const atGate = forecastBeforeLaunch({
    key: desired.key,
    goal: Number(desired.draft.filling_goal),
    start: window.start_at,
    end: desired.launch.endFieldingAt ?? window.end_at,
    feasibility: feasibility
      ? {
          minCompletes: count(feasibility.minCompletes),
          maxCompletes: count(feasibility.feasibleCompletes),
          ...(isMoney(price) ? { suggestedPrice: price } : {}),
          ...(priceRangeOf(feasibility.suggestedPriceRange) ?? {}),
        }
      : undefined,
    suggestedDays: count(suggestedDays),
  });
  // The rates come from the window feasibility was asked for; the finish from the launch moment. A timed launch
  // (launch.at) later than that window's start starts then, not now: made again from its moment.
  const at = desired.launch.at === undefined ? NaN : Date.parse(desired.launch.at);
  if (!Number.isFinite(at) || at <= Date.parse(window.start_at)) return atGate;
  const goal = Number(desired.draft.filling_goal);
  return forecastTargetGroup({ key: desired.key, phase: 'scheduled', goal, now: new Date(nowMs).toISOString(), launchAt: desired.launch.at, ...(desired.launch.endFieldingAt ? { endFieldingAt: desired.launch.endFieldingAt } : {}), launch: atGate }) ?? atGate;
}

/**
 * The forecast before launch of a draft from the plan's server checks (plan/server-checks.ts): the feasibility
 * check's figures and the calendar check's suggested days (forecastFromFeasibility). `nowMs` is the clock the
 * checks were asked at.
 */
export function forecastFromChecks(desired: DesiredTargetGroup, checks: Pick<TargetGroupChecks, 'checks'> | undefined, nowMs: number): TargetGroupForecast {
  const data = (name: string) => checks?.checks.find((c) => c.name === name && (c.outcome === 'pass' || c.outcome === 'warning' || c.outcome === 'blocking'))?.data;
  const feasibility = data('feasibility');
  const calendar = data('calendar');
  return forecastFromFeasibility(
    desired,
    feasibility
      ? {
          minCompletes: count(feasibility.minCompletes),
          feasibleCompletes: count(feasibility.feasibleCompletes),
          ...(isMoney(feasibility.suggestedPrice) ? { suggestedPrice: feasibility.suggestedPrice } : {}),
          ...(priceRangeOf(feasibility.suggestedPriceRange) ?? {}),
        }
      : undefined,
    nowMs,
    count(calendar?.suggestedDays),
  );
}

/** What the watch knows during fielding. */
export interface DuringFieldingInput {
  key: string;
  goal: number;
  /** end_fielding_at. */
  end: string;
  /** The time of the forecast (workflow time: the latest reading). */
  now: string;
  /** Cumulative completes readings, in any order (the watch's series, or the aggregated-by-interval read). */
  series: readonly CompletesReading[];
  /** completes_cost of the latest performance reading. */
  spend?: Money;
  /** The price to cost completes at while there is no complete yet (feasibility's suggested price). */
  price?: Money;
  /** The forecast to give while fielding has less than an hour of readings (the one made before launch). */
  fallback?: TargetGroupForecast;
}

/**
 * The forecast during fielding, from the completes series (the method is in this file's head): the rate of
 * the recent window with a Poisson band, the remaining completes at that rate.
 */
export function forecastDuringFielding(input: DuringFieldingInput): TargetGroupForecast {
  const { key, goal } = input;
  const now = Date.parse(input.now);
  const end = Date.parse(input.end);
  const points = input.series
    .map((p) => ({ t: Date.parse(p.t), completes: p.completes }))
    .filter((p) => Number.isFinite(p.t) && p.t <= now)
    .sort((a, b) => a.t - b.t);
  const last = points.at(-1);
  const completes = last?.completes ?? 0;
  const base = { key, goal, completes, endFieldingAt: input.end, remaining: Math.max(0, goal - completes) };
  const reachedAt = points.find((p) => p.completes >= goal)?.t;
  if (reachedAt !== undefined) {
    const cost = costRange(input.price, input.spend, completes, { expected: completes, low: completes, high: completes });
    const finished = toMinute(reachedAt);
    return { ...base, basis: 'completed', finish: { expected: finished, earliest: finished, latest: finished }, completesByEnd: { expected: completes, low: completes, high: completes }, ...(cost ? { cost } : {}), finishesBeforeEnd: reachedAt <= end, method: `completed: ${completes} of ${goal} completes` };
  }
  const windowStart = now - RECENT_WINDOW_MS;
  const from = [...points].reverse().find((p) => p.t <= windowStart) ?? points[0];
  const span = from ? now - from.t : 0;
  if (!from || !last || span < MIN_SPAN_MS) {
    return input.fallback
      ? { ...input.fallback, completes, method: `${input.fallback.method} (fielding has under an hour of readings)` }
      : { ...base, basis: 'none', finish: {}, method: 'no forecast: fielding has under an hour of readings' };
  }
  const k = Math.max(0, last.completes - from.completes);
  const spread = k > 0 ? Z95 * Math.sqrt(k) : 0;
  const perMs = { expected: k / span, low: Math.max(0, k - spread) / span, high: (k > 0 ? k + spread : 3) / span };
  const remaining = goal - completes;
  const finishAt = (rate: number) => (rate > 0 ? now + remaining / rate : undefined);
  const left = Math.max(0, end - now);
  const byEnd = (rate: number) => Math.min(goal, completes + Math.floor(rate * left + 1e-9));
  const completesByEnd = { expected: byEnd(perMs.expected), low: byEnd(perMs.low), high: byEnd(perMs.high) };
  const expected = finishAt(perMs.expected);
  const earliest = finishAt(perMs.high);
  const latest = finishAt(perMs.low);
  const cost = costRange(input.price, input.spend, completes, completesByEnd);
  return {
    ...base,
    from: { t: new Date(now).toISOString(), completes },
    basis: 'fielding',
    finish: {
      ...(expected !== undefined ? { expected: toMinute(expected) } : {}),
      ...(earliest !== undefined ? { earliest: toMinute(earliest) } : {}),
      ...(latest !== undefined ? { latest: toMinute(latest) } : {}),
    },
    ratePerDay: { expected: perMs.expected * DAY_MS, low: perMs.low * DAY_MS, high: perMs.high * DAY_MS },
    completesByEnd,
    ...(cost ? { cost } : {}),
    ...(expected !== undefined ? { finishesBeforeEnd: expected <= end } : {}),
    method: `fielding: ${k} completes in the last ${fixed(span / HOUR_MS)} h (${fixed(perMs.expected * DAY_MS)} a day, ${fixed(perMs.low * DAY_MS)}–${fixed(perMs.high * DAY_MS)} at 95%), ${remaining} to go`,
  };
}

/**
 * A target group's state as the forecast reads it: the one input of {@link forecastTargetGroup}, built alike by
 * `studyflow plan` (client/plan-studies.ts), the study's `status` and `report` (workflows/forecast.ts) and the
 * target group's search attribute (workflows/target-group/console.ts).
 */
export interface TargetGroupForecastState {
  key: string;
  /**
   * The target group's phase (workflows/phases.ts: draft, scheduled, awaiting_completes, live, paused, completed,
   * ...), or `planned` for one `studyflow plan` would write and launch.
   */
  phase: string;
  /** The goal the file and the exchange now hold (not the one a forecast was made for before). */
  goal: number;
  /** The time of the forecast: the latest reading while fielding, else the clock the caller reads (workflow time). */
  now: string;
  /** A timed launch's moment (launch.at / the scheduled run's start): fielding starts then, not now. */
  launchAt?: string;
  /** A staged launch that waits for another target group's completes: no start yet, so no finish. */
  awaiting?: { targetGroup: string; completes: number; has?: number };
  /** end_fielding_at as the file states it (else the default window from the start). */
  endFieldingAt?: string;
  /** When it went live (the start of fielding). */
  liveAt?: string;
  /** The cumulative completes readings (fielding). */
  series?: readonly CompletesReading[];
  /** Completes so far (else the latest reading's). */
  completes?: number;
  /** completes_cost of the latest reading. */
  spend?: Money;
  /** The suggested price of a complete (the launch gate's). */
  price?: Money;
  /** The forecast made before launch (the gate's or plan's): its rates and unit price are what is made again. */
  launch?: Pick<TargetGroupForecast, 'basis' | 'ratePerDay' | 'unitPrice' | 'method'>;
  /** Paused: who holds it (`a guard (...)`, `the budget`, `the file or the operator`). */
  pausedBy?: string;
  /**
   * Its soft launch while it holds the goal back (status.softLaunch: starting, running, waiting for a decision,
   * failed or aborted): no finish of the goal until it is promoted.
   */
  softLaunch?: { state: SoftLaunchState; completes: number; endsAt: string };
  /** Completed: when (else when the goal was first read, else the latest reading). */
  completedAt?: string;
}

const PRE_LAUNCH_SOURCE = /^before launch: /;

/** The rates of a forecast made before launch, when it has any (what it is made again from). */
function launchRatesOf(launch: TargetGroupForecastState['launch']): LaunchRates | undefined {
  if (!launch?.ratePerDay || (launch.basis !== 'calendar' && launch.basis !== 'feasibility')) return undefined;
  return { basis: launch.basis, ratePerDay: launch.ratePerDay, ...(launch.unitPrice ? { unitPrice: launch.unitPrice } : {}), source: launch.method.replace(PRE_LAUNCH_SOURCE, '').replace(/ \(fielding has under an hour of readings\)$/, '') };
}

const endFrom = (stated: string | undefined, startMs: number) =>
  stated !== undefined && Number.isFinite(Date.parse(stated)) ? new Date(Date.parse(stated)).toISOString() : new Date(startMs + DEFAULT_FIELDING_DAYS * DAY_MS).toISOString();

/**
 * The forecast of a target group in whatever state it is in: the one function `plan`, `status`, the report and the
 * search attribute take it from (views only render it). Undefined when nothing is known yet (before launch without
 * a feasibility or calendar reading, fielding without readings or a forecast made before launch).
 * - completed: finished when it completed (else when the goal was first read, else at the latest reading); the
 *   cost is what it spent, nothing remains;
 * - paused (by the file, a guard, the budget or the operator): no finish while paused; what is done, what remains
 *   and what is spent;
 * - awaiting a staged launch's completes: no start, so no finish; the cost of the goal at the suggested price;
 * - before launch (draft, scheduled, held, planned): the rates made before launch projected from the launch moment
 *   (a timed launch's, else now) for the goal as it is now;
 * - live: the completes series (forecastDuringFielding), the forecast before launch (from when it went live, for
 *   the goal as it is now) while there is under an hour of readings.
 */
export function forecastTargetGroup(state: TargetGroupForecastState): TargetGroupForecast | undefined {
  const { key, goal } = state;
  const now = Date.parse(state.now);
  const points = (state.series ?? []).map((p) => ({ t: Date.parse(p.t), completes: p.completes })).filter((p) => Number.isFinite(p.t)).sort((a, b) => a.t - b.t);
  const last = points.at(-1);
  const completes = state.completes ?? last?.completes ?? 0;
  const rates = launchRatesOf(state.launch);

  if (state.phase === 'completed') {
    const reached = points.find((p) => p.completes >= goal)?.t;
    const stated = state.completedAt === undefined ? NaN : Date.parse(state.completedAt);
    const at = Number.isFinite(stated) ? stated : (reached ?? last?.t ?? now);
    const finished = toMinute(at);
    const end = state.endFieldingAt ?? (state.liveAt ? endFrom(undefined, Date.parse(state.liveAt)) : undefined);
    const done = { expected: completes, low: completes, high: completes };
    const spent = state.spend && toMicros(state.spend.value) !== undefined ? { ...state.spend } : undefined;
    const cost = spent ? { expected: spent, low: { ...spent }, high: { ...spent } } : costRange(state.price, undefined, 0, done);
    return {
      key, goal, completes, remaining: 0, basis: 'completed',
      ...(end ? { endFieldingAt: end } : {}),
      finish: { expected: finished, earliest: finished, latest: finished },
      completesByEnd: done,
      ...(cost ? { cost } : {}),
      ...(spent ? { spent } : {}),
      ...(end ? { finishesBeforeEnd: at <= Date.parse(end) } : {}),
      method: `completed: ${completes} of ${goal} completes${completes < goal ? ' (completed before its goal: nothing remains to collect)' : ''}`,
    };
  }

  if ((state.phase === 'live' || state.phase === 'paused') && state.softLaunch && SOFT_LAUNCH_HOLDS.has(state.softLaunch.state)) {
    const soft = state.softLaunch;
    const spent = state.spend && toMicros(state.spend.value) !== undefined ? { ...state.spend } : undefined;
    const stands =
      soft.state === 'starting' || soft.state === 'running'
        ? `soft launch running: ${Math.min(completes, soft.completes)} of its ${soft.completes} completes, judged by ${soft.endsAt} at the latest`
        : `soft launch ${soft.state.replace('_', ' ')}: paused until \`studyflow approve --promote\``;
    return {
      key, goal, completes, remaining: Math.max(0, goal - completes), basis: 'soft_launch', finish: {},
      ...(state.endFieldingAt ? { endFieldingAt: state.endFieldingAt } : {}),
      ...(spent ? { spent } : {}),
      method: `${stands}; no finish of the goal of ${goal} until it is promoted`,
    };
  }

  if (state.phase === 'paused') {
    const remaining = Math.max(0, goal - completes);
    const by = state.pausedBy ? ` by ${state.pausedBy}` : '';
    const spent = state.spend && toMicros(state.spend.value) !== undefined ? { ...state.spend } : undefined;
    return {
      key, goal, completes, remaining, basis: 'paused', finish: {},
      ...(state.endFieldingAt ? { endFieldingAt: state.endFieldingAt } : {}),
      ...(spent ? { spent } : {}),
      ...(state.pausedBy ? { pausedBy: state.pausedBy } : {}),
      method: `paused${by}: ${completes} of ${goal} completes done, ${remaining} remain${spent ? `, ${moneyText(spent)} spent` : ''}; no finish while paused`,
    };
  }

  if (state.phase === 'live') {
    const liveAt = state.liveAt === undefined ? NaN : Date.parse(state.liveAt);
    const startMs = Number.isFinite(liveAt) ? liveAt : (points[0]?.t ?? now);
    const end = endFrom(state.endFieldingAt, startMs);
    const fallback = rates ? projectBeforeLaunch(key, goal, startMs, end, rates) : undefined;
    if (!points.length) return fallback ? { ...fallback, completes, remaining: Math.max(0, goal - completes), method: `${fallback.method} (fielding has no readings yet)` } : undefined;
    return forecastDuringFielding({ key, goal, end, now: state.now, series: points.map((p) => ({ t: new Date(p.t).toISOString(), completes: p.completes })), ...(state.spend ? { spend: state.spend } : {}), ...(state.price ? { price: state.price } : {}), ...(fallback ? { fallback } : {}) });
  }

  // Before launch. A staged launch waiting for completes has no start: no finish, only what the goal will cost.
  if (state.phase === 'awaiting_completes' || (state.awaiting && state.phase !== 'launching' && state.phase !== 'scheduled')) {
    const unit = rates?.unitPrice ?? unitPriceOf(state.price);
    const whole = { expected: goal, low: goal, high: goal };
    const cost = unit ? costAtUnitPrice(unit, whole) : undefined;
    const waits = state.awaiting ? `starts when ${state.awaiting.targetGroup} has ${state.awaiting.completes} completes${state.awaiting.has !== undefined ? ` (it has ${state.awaiting.has})` : ''}` : 'starts when its launch.after target group has its completes';
    return {
      key, goal, completes: 0, remaining: goal, basis: 'awaiting', finish: {},
      ...(state.endFieldingAt ? { endFieldingAt: state.endFieldingAt } : {}),
      ...(rates ? { ratePerDay: rates.ratePerDay } : {}),
      ...(cost ? { cost } : {}),
      ...(unit ? { unitPrice: unit } : {}),
      method: `awaiting completes: ${waits}; no finish before it starts`,
    };
  }
  if (!rates) return state.launch ? { ...(state.launch as TargetGroupForecast), key, goal, completes: 0, remaining: goal } : undefined;
  const moment = state.launchAt === undefined ? NaN : Date.parse(state.launchAt);
  const startMs = Number.isFinite(moment) && moment > now ? moment : now;
  const projected = projectBeforeLaunch(key, goal, startMs, endFrom(state.endFieldingAt, startMs), rates);
  return startMs > now ? { ...projected, method: `${projected.method}; starts at its launch moment ${new Date(startMs).toISOString()}` } : projected;
}

export interface StudyForecast {
  /** The last target group's finish: the latest of each bound (absent when some target group has none). */
  finish: { expected?: string; earliest?: string; latest?: string };
  /** The target groups' costs summed, when they are all in one currency. */
  cost?: Range<Money>;
  /** Every target group's expected finish is before its end (absent: some are unknown). */
  finishesBeforeEnd?: boolean;
  targetGroups: TargetGroupForecast[];
  method: string;
}

/** The latest of the times, or undefined when one is unknown. */
const latestOf = (times: (string | undefined)[]): string | undefined => (times.some((t) => t === undefined) ? undefined : latestTime(...times));

/** The study's forecast: it finishes when its last target group does, and costs what they all cost. */
export function forecastStudy(forecasts: readonly TargetGroupForecast[]): StudyForecast {
  const finish = {
    expected: latestOf(forecasts.map((f) => f.finish.expected)),
    earliest: latestOf(forecasts.map((f) => f.finish.earliest)),
    latest: latestOf(forecasts.map((f) => f.finish.latest)),
  };
  const costs = forecasts.map((f) => f.cost);
  const currencies = new Set(costs.map((c) => c?.expected.currency_code));
  let cost: Range<Money> | undefined;
  if (forecasts.length > 0 && currencies.size === 1 && !currencies.has(undefined)) {
    const currency = [...currencies][0] as string;
    const sum = (pick: (c: Range<Money>) => Money) => moneyOf(costs.reduce((n, c) => n + (toMicros(pick(c as Range<Money>).value) ?? 0n), 0n), currency);
    cost = { expected: sum((c) => c.expected), low: sum((c) => c.low), high: sum((c) => c.high) };
  }
  const known = forecasts.every((f) => f.finishesBeforeEnd !== undefined);
  const unknown = forecasts.filter((f) => f.finish.expected === undefined).map((f) => f.key);
  return {
    finish: Object.fromEntries(Object.entries(finish).filter(([, v]) => v !== undefined)),
    ...(cost ? { cost } : {}),
    ...(known && forecasts.length ? { finishesBeforeEnd: forecasts.every((f) => f.finishesBeforeEnd) } : {}),
    targetGroups: [...forecasts],
    method: unknown.length ? `no finish for ${unknown.join(', ')}` : currencies.size > 1 ? 'costs in several currencies are not added' : `${forecasts.length} target group(s)`,
  };
}

/** Whether a forecast finishes before end_fielding_at, and why not: the `require_forecast_before_end` rule. */
export function forecastEndsBeforeEnd(forecast: Pick<TargetGroupForecast, 'finish' | 'method' | 'endFieldingAt'>, endFieldingAt = forecast.endFieldingAt): { ok: boolean; reason?: string } {
  if (endFieldingAt === undefined) return { ok: false, reason: 'no end_fielding_at to finish before' };
  const expected = forecast.finish.expected;
  if (expected === undefined) return { ok: false, reason: `no forecast finish (${forecast.method})` };
  if (Date.parse(expected) > Date.parse(endFieldingAt)) {
    const band = forecast.finish.earliest && forecast.finish.earliest !== expected ? ` (at the earliest ${forecast.finish.earliest})` : '';
    return { ok: false, reason: `the forecast finishes ${expected}${band}, after end_fielding_at ${endFieldingAt}` };
  }
  return { ok: true };
}

/** The launch gate's failures of the forecast rule (as plan/launch-gates.ts's gateFailures): none unless the rule is set. */
export function forecastGateFailures(desired: DesiredTargetGroup, forecast: TargetGroupForecast): string[] {
  if (!desired.launch.requireForecastBeforeEnd) return [];
  const verdict = forecastEndsBeforeEnd(forecast, desired.launch.endFieldingAt ?? forecast.endFieldingAt);
  return verdict.ok ? [] : [`${verdict.reason} (require_forecast_before_end)`];
}

/** `finishes <expected> (<earliest> to <latest>)` and `costs <expected> (<low> to <high>)`, for the plan's check. */
function forecastSummary(forecast: TargetGroupForecast): string {
  const { expected, earliest, latest } = forecast.finish;
  const range = earliest === expected && latest === expected ? '' : ` (${earliest ?? expected} to ${latest ?? 'no latest: the low rate is zero'})`;
  const cost = forecast.cost;
  const costs = !cost ? '' : cost.low.value === cost.high.value ? `, costs ${moneyText(cost.expected)}` : `, costs ${moneyText(cost.expected)} (${cost.low.value} to ${moneyText(cost.high)})`;
  return `finishes ${expected}${range}${costs}`;
}

/**
 * The plan's forecast check of a draft (plan/server-checks.ts evaluateServerChecks runs it after the others): the
 * forecast before launch from the feasibility and calendar checks (forecastFromChecks), `blocking` when the launch
 * rule require_forecast_before_end fails as the gate will judge it, a `warning` when it finishes after
 * end_fielding_at without the rule, skipped or unavailable as feasibility is. The workflow's gate reads feasibility
 * alone (no calendar call), so the rule is judged here on the forecast from feasibility alone too
 * (forecastFromFeasibility, as workflows/launch.ts judgeGate): plan blocks exactly when the gate will hold; when the
 * calendar moves the finish shown, a detail line says what the gate judges.
 */
export function forecastCheck(desired: DesiredTargetGroup, checks: Pick<TargetGroupChecks, 'checks'>, nowMs: number): ServerCheck {
  const feasibility = checks.checks.find((c) => c.name === 'feasibility');
  if (!feasibility || feasibility.outcome === 'skipped') return { name: 'forecast', outcome: 'skipped', summary: 'no feasibility asked' };
  if (feasibility.outcome === 'unavailable') return { name: 'forecast', outcome: 'unavailable', summary: `unavailable: no feasibility answer (${feasibility.summary})` };
  const made = forecastFromChecks(desired, checks, nowMs);
  // A staged launch (launch.after) has no start until the completes it waits for: no finish, as status shows it.
  const after = desired.launch.after;
  const forecast = after ? (forecastTargetGroup({ key: desired.key, phase: 'planned', goal: made.goal, now: new Date(nowMs).toISOString(), awaiting: after, launch: made }) ?? made) : made;
  const gate = forecastFromChecks(desired, { checks: checks.checks.filter((c) => c.name !== 'calendar') }, nowMs);
  const failures = forecastGateFailures(desired, gate);
  const data = forecast as unknown as Record<string, unknown>;
  const details = [forecast.method];
  if (desired.launch.requireForecastBeforeEnd && gate.finish.expected !== forecast.finish.expected) {
    details.push(`require_forecast_before_end is judged as the launch gate will, on feasibility alone: ${gate.finish.expected ? `finishes ${gate.finish.expected}` : 'no finish'}`);
  }
  if (forecast.basis === 'awaiting') {
    const summary = `${forecast.method}${forecast.cost ? `, costs ${moneyText(forecast.cost.expected)}` : ''}`;
    return failures.length ? { name: 'forecast', outcome: 'blocking', summary, reason: failures.join('; '), details, data } : { name: 'forecast', outcome: 'pass', summary, details, data };
  }
  if (forecast.finish.expected === undefined) {
    const summary = 'no forecast: feasibility gave no completes range and the calendar no days';
    return failures.length ? { name: 'forecast', outcome: 'blocking', summary, reason: failures.join('; '), details, data } : { name: 'forecast', outcome: 'skipped', summary, details, data };
  }
  const summary = forecastSummary(forecast);
  if (failures.length) return { name: 'forecast', outcome: 'blocking', summary, reason: failures.join('; '), details, data };
  if (forecast.finishesBeforeEnd === false) return { name: 'forecast', outcome: 'warning', summary: `${summary}: after end_fielding_at ${forecast.endFieldingAt ?? '?'}`, details, data };
  return { name: 'forecast', outcome: 'pass', summary, details, data };
}

/**
 * The study's forecast before launch from its plan's server checks: forecastStudy over the forecast checks that
 * give one (the drafts'); undefined when none does. Target groups without one (launched already, not asked) are
 * named in its method, and then it has no finish or total: only a part is known.
 */
export function studyForecastFromChecks(checks: readonly TargetGroupChecks[], known: Readonly<Record<string, TargetGroupForecast | undefined>> = {}): StudyForecast | undefined {
  const forecasts: TargetGroupForecast[] = [];
  const without: string[] = [];
  for (const group of checks) {
    const data = group.checks.find((c) => c.name === 'forecast' && c.data)?.data as TargetGroupForecast | undefined;
    // A launched target group has no forecast check: its forecast is the one its workflow's status shows.
    const forecast = data?.finish ? data : known[group.key];
    if (forecast?.finish) forecasts.push(forecast);
    else without.push(group.key);
  }
  if (!forecasts.length) return undefined;
  if (without.length) return { finish: {}, targetGroups: forecasts, method: `no forecast for ${without.join(', ')}` };
  return forecastStudy(forecasts);
}
