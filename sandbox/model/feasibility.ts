// Feasibility: how many completes a target group can collect in its fielding window.
//   reachable      = population of the locale - excluded respondent IDs
//   qualifying     = reachable * targeting share (profiles) * supplier coverage (allocations)
//   entrants/day   = qualifying * DAILY_PARTICIPATION_RATE
//   completes/day  = entrants/day * incidence * LOI completion factor * quota fill ratio
//   ceiling        = qualifying * MAX_REACHABLE_SHARE * incidence * LOI factor * quota fill ratio
//   feasible_completes = floor(min(ceiling, completes/day * fielding days)); feasible when >= filling_goal.

import { DAILY_PARTICIPATION_RATE, MAX_REACHABLE_SHARE, type LocaleMarket } from './locale-markets';
import { moneyFromMinorUnits, type Money } from './money';
import { costPerCompleteMinorUnits } from './pricing';
import type { Profile } from './profile-types';
import { quotaFillRatio, targetingShare } from './targeting-share';
import { supplierCapacityWeight } from './supplier-quota-distribution';

/** Inputs of a feasibility estimate (already validated). */
export interface FeasibilityInput {
  market: LocaleMarket;
  /** In (0, 1]. */
  incidenceRate: number;
  /** Minutes, >= 1. */
  lengthOfInterviewMinutes: number;
  fillingGoal: number;
  /** Length of the fielding window in days (fractions allowed), > 0. */
  fieldingDays: number;
  profiles: readonly Profile[];
  /** Respondent IDs excluded by ID lists; they leave the reachable population. */
  excludedRespondentCount: number;
  /** Suppliers the allocations are limited to; empty or undefined means the whole exchange. */
  supplierIds?: readonly number[];
}

export interface FeasibilityEstimate {
  feasible: boolean;
  feasible_completes: number;
  filling_goal: number;
  completes_per_day: number;
  /** Days to reach filling_goal at the daily rate, or null when the ceiling is below it. */
  estimated_field_time_days: number | null;
  fielding_days: number;
  suggested_cpi: Money;
}

/** Share of interviews still completed at a given length: 1 up to 10 minutes, then (10/LOI)^0.9. */
export const lengthOfInterviewCompletionFactor = (minutes: number): number => (minutes <= 10 ? 1 : (10 / minutes) ** 0.9);

/** Share of the exchange the listed suppliers cover: 1 - prod(1 - 0.15 * weight). */
export function supplierCoverage(supplierIds: readonly number[] | undefined, locale: string): number {
  if (!supplierIds || supplierIds.length === 0) return 1;
  return 1 - [...new Set(supplierIds)].reduce((uncovered, id) => uncovered * (1 - 0.15 * supplierCapacityWeight(id, locale)), 1);
}

export function estimateFeasibility(input: FeasibilityInput): FeasibilityEstimate {
  const { market } = input;
  const reachable = Math.max(0, market.population - input.excludedRespondentCount);
  const qualifying = reachable * targetingShare(input.profiles, market) * supplierCoverage(input.supplierIds, market.locale);
  const conversion = input.incidenceRate * lengthOfInterviewCompletionFactor(input.lengthOfInterviewMinutes) * quotaFillRatio(input.profiles, market, input.fillingGoal);
  const completesPerDay = qualifying * DAILY_PARTICIPATION_RATE * conversion;
  const ceiling = qualifying * MAX_REACHABLE_SHARE * conversion;
  const feasibleCompletes = Math.floor(Math.min(ceiling, completesPerDay * input.fieldingDays) + 1e-9);
  const reachableEver = ceiling + 1e-9 >= input.fillingGoal && completesPerDay > 0;
  return {
    feasible: feasibleCompletes >= input.fillingGoal,
    feasible_completes: feasibleCompletes,
    filling_goal: input.fillingGoal,
    completes_per_day: Math.round(completesPerDay * 100) / 100,
    estimated_field_time_days: reachableEver ? Math.max(1, Math.ceil(input.fillingGoal / completesPerDay - 1e-9)) : null,
    fielding_days: input.fieldingDays,
    suggested_cpi: moneyFromMinorUnits(costPerCompleteMinorUnits(market, input.incidenceRate, input.lengthOfInterviewMinutes)),
  };
}
