import type { DesiredTargetGroup, Money } from './types';

// The launch gate: what feasibility and price must say before a target group goes into fielding.
// Pure functions over the API's answers, so the workflow and `studyflow plan` judge alike.

export interface FeasibilityVerdict {
  feasible: boolean;
  feasibleCompletes?: number;
  fillingGoal?: number;
  suggestedCpi?: Money;
}

/** Fielding window when the study file gives no end_fielding_at. */
const DEFAULT_FIELDING_DAYS = 30;

/** When the fielding run of a launch ends: the study file's end_fielding_at, else 30 days from now (workflow time). */
export function endFieldingAt(desired: DesiredTargetGroup): string {
  return desired.launch.endFieldingAt ?? new Date(Date.now() + DEFAULT_FIELDING_DAYS * 86_400_000).toISOString();
}

/** The feasibility request for a draft (2025-12-18 names, no project_id). */
export function feasibilityRequest(desired: DesiredTargetGroup): Record<string, unknown> {
  const d = desired.draft;
  const request: Record<string, unknown> = {
    locale: d.locale,
    expected_incidence_rate: d.expected_incidence_rate,
    expected_length_of_interview_minutes: d.expected_length_of_interview_minutes,
    filling_goal: d.filling_goal,
  };
  if (desired.launch.endFieldingAt) request.end_fielding_at = desired.launch.endFieldingAt;
  if (desired.profiles?.length) request.profiles = desired.profiles;
  return request;
}

/** Query of the business unit's price prediction for a draft. */
export function priceQuery(desired: DesiredTargetGroup): Record<string, string | number | boolean> {
  const d = desired.draft;
  const query: Record<string, string | number | boolean> = {
    locale: String(d.locale),
    expected_incidence_rate: Number(d.expected_incidence_rate),
    expected_length_of_interview_minutes: Number(d.expected_length_of_interview_minutes),
    filling_goal: Number(d.filling_goal),
  };
  if (typeof d.pricing_model === 'string') query.pricing_model = d.pricing_model;
  return query;
}

function money(value: unknown): Money | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const m = value as Record<string, unknown>;
  if ((typeof m.value === 'string' || typeof m.value === 'number') && typeof m.currency_code === 'string') {
    return { value: String(m.value), currency_code: m.currency_code };
  }
  return undefined;
}

function numberOf(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

export function readFeasibility(answer: Record<string, unknown>, desired: DesiredTargetGroup): FeasibilityVerdict {
  const fillingGoal = numberOf(answer.filling_goal) ?? numberOf(desired.draft.filling_goal);
  const feasibleCompletes = numberOf(answer.feasible_completes) ?? numberOf(answer.feasibility);
  const feasible =
    typeof answer.feasible === 'boolean'
      ? answer.feasible
      : feasibleCompletes !== undefined && fillingGoal !== undefined && feasibleCompletes >= fillingGoal;
  return { feasible, feasibleCompletes, fillingGoal, suggestedCpi: money(answer.suggested_cpi) };
}

/** The predicted CPI of a price prediction (the sandbox answers `cost_per_interview`; other spellings are accepted). */
export function readPrice(answer: Record<string, unknown>): Money | undefined {
  return money(answer.cost_per_interview) ?? money(answer.cpi) ?? money(answer.price) ?? money(answer.predicted_cpi) ?? money(answer.suggested_cpi);
}

/** The CPI the gate judges: the price prediction's, else the one feasibility suggests. */
export function judgedCpi(prediction: Record<string, unknown> | undefined, feasibility: FeasibilityVerdict | undefined): Money | undefined {
  return (prediction ? readPrice(prediction) : undefined) ?? feasibility?.suggestedCpi;
}

/** Why the gate holds: an empty list means the target group may launch. */
export function gateFailures(desired: DesiredTargetGroup, feasibility: FeasibilityVerdict, cpi: Money | undefined): string[] {
  const blocked: string[] = [];
  if (desired.launch.requireFeasible && !feasibility.feasible) {
    blocked.push(`infeasible: ${feasibility.feasibleCompletes ?? '?'} feasible completes for a filling_goal of ${feasibility.fillingGoal ?? '?'}`);
  }
  const max = desired.launch.maxCpi;
  if (max) {
    if (!cpi) blocked.push(`max_cpi is set but the API predicted no price`);
    else if (cpi.currency_code !== max.currency_code) blocked.push(`predicted CPI is in ${cpi.currency_code}, max_cpi in ${max.currency_code}`);
    else if (Number(cpi.value) > Number(max.value)) blocked.push(`predicted CPI ${cpi.value} ${cpi.currency_code} is above max_cpi ${max.value}`);
  }
  return blocked;
}
