// How good a calendar day is for fielding in a market (sandbox model): Monday-Thursday 1.0,
// Friday 0.85, Saturday 0.7, Sunday 0.75; a public holiday of the locale 0.3; 24 December to
// 1 January at most 0.5. Days are UTC calendar days.

import type { LocaleMarket } from './locale-markets';

export const DAY_MS = 86_400_000;
const WEEKDAY_SCORES = [0.75, 1, 1, 1, 1, 0.85, 0.7]; // Sunday .. Saturday

/** Midnight UTC of the day containing `ms`. */
export const startOfUtcDay = (ms: number): number => Math.floor(ms / DAY_MS) * DAY_MS;

export function isPublicHoliday(market: LocaleMarket, dayMs: number): boolean {
  return market.publicHolidays.includes(new Date(dayMs).toISOString().slice(5, 10));
}

export function fieldingDayScore(market: LocaleMarket, dayMs: number): number {
  const date = new Date(dayMs);
  let score = WEEKDAY_SCORES[date.getUTCDay()];
  if (isPublicHoliday(market, dayMs)) score = Math.min(score, 0.3);
  const monthDay = date.toISOString().slice(5, 10);
  if (monthDay >= '12-24' || monthDay <= '01-01') score = Math.min(score, 0.5);
  return score;
}

/** Mean day score of `days` consecutive days from `startDayMs`. */
export function windowScore(market: LocaleMarket, startDayMs: number, days: number): number {
  let total = 0;
  for (let i = 0; i < days; i++) total += fieldingDayScore(market, startDayMs + i * DAY_MS);
  return total / days;
}
