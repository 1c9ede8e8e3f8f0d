// Quota rules (sandbox choices, documented in docs/sandbox.md):
// - with quotas_enabled every target needs completes_goal or completes_goal_percentage (or both);
//   the missing one is derived from the target group's filling_goal: goal = round(fg * pct / 100),
//   pct = round(goal / fg * 100, 2 decimals); when both are given they must agree within one complete;
// - 0 <= pct <= 100 and 0 <= completes_goal <= filling_goal, completes_goal an integer;
// - the goals of one profile's targets add up to at least filling_goal (else the group could never fill);
// - without quotas_enabled the quota is optional and only checked for well-formedness;
// - completes and prescreens are counters the sandbox owns: request values are ignored.

import { hasOwn, isFiniteNumber, isInteger, isRecord } from './json-shape';
import type { Profile, Quota, Target } from './profile-types';
import type { ValidationProblems } from './validation-problems';

export interface QuotaCounters {
  completes: number;
  prescreens: number;
}

export interface QuotaReadOptions {
  quotasEnabled: boolean;
  /** null when unknown (account-level validation without a filling goal): goals are then not derived or bounded. */
  fillingGoal: number | null;
  defaultName: string;
  path: string;
  counters: QuotaCounters;
}

export const percentageOf = (goal: number, fillingGoal: number): number =>
  fillingGoal > 0 ? Math.round((goal / fillingGoal) * 10_000) / 100 : 0;

export const goalFromPercentage = (percentage: number, fillingGoal: number): number => Math.round((fillingGoal * percentage) / 100);

export function readQuota(raw: unknown, options: QuotaReadOptions, problems: ValidationProblems): Quota {
  const { quotasEnabled, fillingGoal, defaultName, path, counters } = options;
  const empty: Quota = { name: defaultName, completes_goal_percentage: null, completes_goal: null, quota_nominal: null, ...counters };
  if (raw === undefined || raw === null) {
    if (quotasEnabled) problems.rule('quota_inconsistent', path, 'a quota is required on every target while quotas_enabled is true');
    return empty;
  }
  if (!isRecord(raw)) {
    problems.shape(path, 'must be a quota object');
    return empty;
  }
  let name = defaultName;
  if (hasOwn(raw, 'name') && raw.name !== null) {
    if (typeof raw.name !== 'string' || raw.name.trim() === '' || raw.name.length > 255) problems.shape(`${path}.name`, 'must be a non-empty string of up to 255 characters');
    else name = raw.name;
  }
  const rawPercentage = raw.completes_goal_percentage;
  const rawGoal = raw.completes_goal;
  let percentage: number | null = null;
  let goal: number | null = null;
  if (rawPercentage !== undefined && rawPercentage !== null) {
    if (!isFiniteNumber(rawPercentage)) problems.shape(`${path}.completes_goal_percentage`, 'must be a number');
    else if (rawPercentage < 0 || rawPercentage > 100) problems.rule('quota_inconsistent', `${path}.completes_goal_percentage`, 'must be between 0 and 100');
    else percentage = rawPercentage;
  }
  if (rawGoal !== undefined && rawGoal !== null) {
    if (!isInteger(rawGoal)) problems.shape(`${path}.completes_goal`, 'must be an integer');
    else if (rawGoal < 0 || (fillingGoal !== null && rawGoal > fillingGoal)) problems.rule('quota_inconsistent', `${path}.completes_goal`, fillingGoal === null ? 'must not be negative' : `must be between 0 and the filling_goal ${fillingGoal}`);
    else goal = rawGoal;
  }
  const percentageGiven = rawPercentage !== undefined && rawPercentage !== null;
  const goalGiven = rawGoal !== undefined && rawGoal !== null;
  if (fillingGoal === null) {
    // Nothing to derive from or check against.
  } else if (percentage !== null && goal !== null && Math.abs(goal - (fillingGoal * percentage) / 100) >= 1) {
    problems.rule('quota_inconsistent', path, `completes_goal ${goal} does not match completes_goal_percentage ${percentage} of filling_goal ${fillingGoal}`);
  } else if (percentage !== null && goal === null && !goalGiven) {
    goal = goalFromPercentage(percentage, fillingGoal);
  } else if (goal !== null && percentage === null && !percentageGiven) {
    percentage = percentageOf(goal, fillingGoal);
  }
  if (quotasEnabled && !percentageGiven && !goalGiven) {
    problems.rule('quota_inconsistent', path, 'completes_goal or completes_goal_percentage is required while quotas_enabled is true');
  }
  return { name, completes_goal_percentage: percentage, completes_goal: goal, quota_nominal: goal, ...counters };
}

/** The goals of one quota-enabled profile must add up to at least the filling goal. */
export function checkQuotaSum(targets: readonly Target[], fillingGoal: number | null, path: string, problems: ValidationProblems): void {
  if (fillingGoal === null || targets.some((target) => target.quota.completes_goal === null)) return;
  const total = targets.reduce((sum, target) => sum + (target.quota.completes_goal ?? 0), 0);
  if (total < fillingGoal) {
    problems.rule('quota_sum_below_filling_goal', `${path}.targets`, `the completes_goal values add up to ${total}, below the filling_goal ${fillingGoal}`);
  }
}

/** Recomputes every completes_goal from its percentage after the filling goal changed. */
export function rescaleQuotasToFillingGoal<P extends Profile>(profiles: readonly P[], fillingGoal: number): P[] {
  return profiles.map((profile) => ({
    ...profile,
    targets: profile.targets.map((target) => {
      const percentage = target.quota.completes_goal_percentage;
      if (percentage === null) return target;
      const goal = goalFromPercentage(percentage, fillingGoal);
      return { ...target, quota: { ...target.quota, completes_goal: goal, quota_nominal: goal } };
    }),
  }));
}

/**
 * Splits `total` into integer parts proportional to `weights` (largest remainder), so the parts add up
 * to exactly `total`.
 */
export function apportion(total: number, weights: readonly number[]): number[] {
  const weightSum = weights.reduce((sum, weight) => sum + weight, 0);
  if (weights.length === 0) return [];
  if (weightSum <= 0) return apportion(total, weights.map(() => 1));
  const exact = weights.map((weight) => (total * weight) / weightSum);
  const parts = exact.map(Math.floor);
  let remaining = total - parts.reduce((sum, part) => sum + part, 0);
  const order = exact.map((value, index) => ({ index, remainder: value - Math.floor(value) })).sort((a, b) => b.remainder - a.remainder || a.index - b.index);
  for (const { index } of order) {
    if (remaining <= 0) break;
    parts[index] += 1;
    remaining -= 1;
  }
  return parts;
}
