// Price per complete (CPI). Deterministic: the locale's base price, raised for low incidence and long
// interviews (CPI = base * incidence^-0.5 * (1 + 0.05 * max(0, LOI - 5))), times a business-unit factor
// for price predictions. Amounts are whole US cents.

import type { LocaleMarket } from './locale-markets';
import { unitHash } from './seeded-random';

/** Multiplier for incidence in (0, 1]: 1 at 100 %, 10 at 1 %. */
export const incidenceMultiplier = (incidenceRate: number): number => incidenceRate ** -0.5;

/** Multiplier for the interview length in minutes: 1 up to 5 minutes, +5 % a minute above. */
export const lengthOfInterviewMultiplier = (minutes: number): number => 1 + 0.05 * Math.max(0, minutes - 5);

/** CPI in cents for a study in `market`. */
export function costPerCompleteMinorUnits(market: LocaleMarket, incidenceRate: number, lengthOfInterviewMinutes: number): number {
  return Math.max(1, Math.round(market.baseCpiMinorUnits * incidenceMultiplier(incidenceRate) * lengthOfInterviewMultiplier(lengthOfInterviewMinutes)));
}

const BUSINESS_UNIT_FACTORS: Record<number, number> = { 2001: 1, 2002: 0.9, 2101: 1.15 };

/** Negotiated price factor of a business unit: seeded ones from the table, others 0.85-1.15 by id. */
export function businessUnitPriceFactor(businessUnitId: number): number {
  return BUSINESS_UNIT_FACTORS[businessUnitId] ?? Math.round((0.85 + 0.3 * unitHash('business-unit', businessUnitId)) * 100) / 100;
}

/** CPI in cents for a business unit's price prediction. */
export function predictedCostPerCompleteMinorUnits(market: LocaleMarket, incidenceRate: number, lengthOfInterviewMinutes: number, businessUnitId: number): number {
  return Math.max(1, Math.round(costPerCompleteMinorUnits(market, incidenceRate, lengthOfInterviewMinutes) * businessUnitPriceFactor(businessUnitId)));
}
