import type { DesiredTargetGroup, Money } from './types';
import { desiredProfiling, feasibilityProfile } from './profiling';
import { differenceMicros } from './money';

// The launch gate: what feasibility must say before a target group goes into fielding. Pure functions over
// the API's answers, so the workflow and `studyflow plan` judge alike.
//
// calculate_target_group_feasibility (the reference) answers `suggested_completes_goal_range {min, max}` (the
// completes the fielding window can deliver) and `suggested_price` (the cost per interview it suggests); there
// is no `feasible` flag and no `suggested_cpi`. So:
// - feasible: the wanted completes (filling_goal) are at most the range's max (wanting fewer than its min is
//   still deliverable: the range is what the window can reach, not a floor);
// - the price the max_cpi gate judges: `suggested_price`. One feasibility call answers both questions, so the
//   launch gate makes no price-prediction call.

export interface FeasibilityVerdict {
  feasible: boolean;
  /** The most completes the window can deliver: the suggested range's max. */
  feasibleCompletes?: number;
  /** The suggested range's min. */
  minCompletes?: number;
  fillingGoal?: number;
  /** The answer's suggested_price (cost per interview). */
  suggestedPrice?: Money;
  /** The answer's suggested_price_range (the CPI's range; the forecast's cost band). */
  suggestedPriceRange?: { min: Money; max: Money };
}

/** Fielding window when the study file gives no end_fielding_at. */
export const DEFAULT_FIELDING_DAYS = 30;
const DAY_MS = 86_400_000;

/** RFC 3339 UTC with 3 fractional digits, as the reference writes timestamps. */
const rfc3339 = (ms: number): string => new Date(ms).toISOString();

/** When the fielding run of a launch ends: the study file's end_fielding_at, else 30 days from now (workflow time). */
export function endFieldingAt(desired: DesiredTargetGroup, nowMs: number = Date.now()): string {
  return desired.launch.endFieldingAt ?? rfc3339(nowMs + DEFAULT_FIELDING_DAYS * DAY_MS);
}

function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

/**
 * The draft's fielding window (reference: `fielding_specification`, required on draft create and update): the
 * study file's window when it gives one, else from `nowMs` (workflow time, when the draft is written) to
 * {@link endFieldingAt}. A study that names no start has its draft start when it is written: fielding
 * itself starts when the target group is launched.
 */
export function draftFieldingSpecification(desired: DesiredTargetGroup, nowMs: number): { start_at: string; end_at: string } {
  const spec = record(desired.draft.fielding_specification);
  if (typeof spec?.start_at === 'string' && typeof spec.end_at === 'string') return { start_at: spec.start_at, end_at: spec.end_at };
  const end = Date.parse(endFieldingAt(desired, nowMs));
  return { start_at: rfc3339(Math.min(nowMs, end - 60_000)), end_at: rfc3339(end) };
}

/**
 * The window feasibility is asked for: the draft's fielding_specification, its start moved to `nowMs` when it
 * lies in the past (a launch starts now); without one, now to {@link endFieldingAt}.
 */
export function feasibilityWindow(desired: DesiredTargetGroup, nowMs: number): { start_at: string; end_at: string } {
  const spec = record(desired.draft.fielding_specification);
  const start = typeof spec?.start_at === 'string' ? Date.parse(spec.start_at) : NaN;
  const end = typeof spec?.end_at === 'string' ? Date.parse(spec.end_at) : NaN;
  if (Number.isFinite(end)) return { start_at: rfc3339(Number.isFinite(start) && start > nowMs ? start : nowMs), end_at: rfc3339(end) };
  return { start_at: rfc3339(nowMs), end_at: rfc3339(Date.parse(endFieldingAt(desired, nowMs))) };
}

/** The reference's integer business unit id: the draft's `business_unit_id`, else the study's business unit. */
export function businessUnitIdOf(desired: DesiredTargetGroup, studyBusinessUnit: string): number | string {
  const id = desired.draft.business_unit_id ?? studyBusinessUnit;
  return typeof id === 'string' && /^\d{1,15}$/.test(id) ? Number(id) : (id as number | string);
}

/**
 * The feasibility request for a draft (reference: CalculateTargetGroupFeasibilityRequest; `filling_goal` as the
 * spec names it), from the draft's own fields: business_unit_id and fielding_specification where the draft
 * carries them, else the study's business unit and the window of {@link feasibilityWindow}. `nowMs` is the
 * caller's clock (workflow time in a workflow).
 */
export function feasibilityRequest(desired: DesiredTargetGroup, studyBusinessUnit: string, nowMs: number = Date.now()): Record<string, unknown> {
  const d = desired.draft;
  const request: Record<string, unknown> = {
    business_unit_id: businessUnitIdOf(desired, studyBusinessUnit),
    locale: d.locale,
    expected_incidence_rate: d.expected_incidence_rate,
    expected_length_of_interview_minutes: d.expected_length_of_interview_minutes,
    filling_goal: d.filling_goal,
    fielding_specification: feasibilityWindow(desired, nowMs),
  };
  if (typeof d.collects_pii === 'boolean') request.collects_pii = d.collects_pii;
  const profiling = desiredProfiling(desired);
  if (profiling?.profiles?.length) request.profiling = { profile_adjustment_type: profiling.profile_adjustment_type, profiles: profiling.profiles.map(feasibilityProfile) };
  return request;
}

/** Query of the business unit's price prediction for a draft (the spec's GET, carrying the reference's config). */
export function priceQuery(desired: DesiredTargetGroup): Record<string, string | number | boolean> {
  const d = desired.draft;
  // The reference's rate card config (generate_price_prediction), which the sandbox's GET takes as query
  // parameters: the country of the locale (eng_us -> US), the incidence in hundredths.
  return {
    type: 'rate_card',
    country_code: (String(d.locale).split('_')[1] ?? '').toUpperCase(),
    expected_incidence_rate: Math.round(Number(d.expected_incidence_rate) * 100) / 100,
    expected_length_of_interview_minutes: Number(d.expected_length_of_interview_minutes),
  };
}

function money(value: unknown): Money | undefined {
  const m = record(value);
  if (m && (typeof m.value === 'string' || typeof m.value === 'number') && typeof m.currency_code === 'string') {
    return { value: String(m.value), currency_code: m.currency_code };
  }
  return undefined;
}

function count(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : undefined;
}

/** The verdict of a feasibility answer for the draft's filling_goal. */
export function readFeasibility(answer: Record<string, unknown>, desired: DesiredTargetGroup): FeasibilityVerdict {
  const fillingGoal = count(desired.draft.filling_goal);
  const range = record(answer.suggested_completes_goal_range);
  const max = count(range?.max);
  const min = count(range?.min);
  const verdict: FeasibilityVerdict = { feasible: max !== undefined && fillingGoal !== undefined && fillingGoal <= max };
  if (max !== undefined) verdict.feasibleCompletes = max;
  if (min !== undefined) verdict.minCompletes = min;
  if (fillingGoal !== undefined) verdict.fillingGoal = fillingGoal;
  const price = money(answer.suggested_price);
  if (price) verdict.suggestedPrice = price;
  const priceRange = record(answer.suggested_price_range);
  const low = money(priceRange?.min);
  const high = money(priceRange?.max);
  if (low && high) verdict.suggestedPriceRange = { min: low, max: high };
  return verdict;
}

/**
 * The predicted CPI of a price prediction: the reference's `open_exchange_price.cost_per_interview`
 * (GeneratePricePredictionResponse); a top-level `cost_per_interview` (the sandbox's earlier answer) is read too.
 */
export function readPrice(answer: Record<string, unknown>): Money | undefined {
  return money(record(answer.open_exchange_price)?.cost_per_interview) ?? money(answer.cost_per_interview);
}

/** The CPI the gate judges: feasibility's suggested_price; a price prediction's only where feasibility gave none. */
export function judgedCpi(prediction: Record<string, unknown> | undefined, feasibility: FeasibilityVerdict | undefined): Money | undefined {
  return feasibility?.suggestedPrice ?? (prediction ? readPrice(prediction) : undefined);
}

/** Why the gate holds: an empty list means the target group may launch. */
export function gateFailures(desired: DesiredTargetGroup, feasibility: FeasibilityVerdict, cpi: Money | undefined): string[] {
  const blocked: string[] = [];
  if (desired.launch.requireFeasible && !feasibility.feasible) {
    blocked.push(
      feasibility.feasibleCompletes === undefined
        ? `infeasible: feasibility gave no completes range for a filling_goal of ${feasibility.fillingGoal ?? '?'}`
        : `infeasible: at most ${feasibility.feasibleCompletes} completes in the fielding window for a filling_goal of ${feasibility.fillingGoal ?? '?'}`,
    );
  }
  const max = desired.launch.maxCpi;
  if (max) {
    if (!cpi) blocked.push(`max_cpi is set but the API suggested no price`);
    else if (cpi.currency_code !== max.currency_code) blocked.push(`suggested price is in ${cpi.currency_code}, max_cpi in ${max.currency_code}`);
    else {
      // Exact, in millionths (shared/money.ts): never a float comparison.
      const over = differenceMicros(cpi, max);
      if (over === undefined) blocked.push(`suggested price ${cpi.value} ${cpi.currency_code} cannot be compared with max_cpi ${max.value} (not a decimal amount)`);
      else if (over > 0n) blocked.push(`suggested price ${cpi.value} ${cpi.currency_code} is above max_cpi ${max.value}`);
    }
  }
  return blocked;
}
