// suggest-time-range: GET /v1/demand/intelligent-calendar/suggest-time-range?locale=…&days=N or
// ?locale=…&start=…&end=… (dates YYYY-MM-DD or ISO timestamps). locale is required; days (1-365) alone,
// or both start and end; days with start/end, or neither, is 400 bad_request.
// With days: the best window of N whole days starting within the next 30 days (from tomorrow).
// With start/end: the best window of the same number of days starting at most 7 days before (not
// before tomorrow) or after the requested start; ties go to the window nearest the request, then the earlier.
// "Best": highest mean fielding-day score, plus a tenth of the first day's score (start on a good day).
// The suggestion: {locale, days, suggested_start, suggested_end} (start of the first day, last millisecond of
// the last day, UTC); routes/calendar.ts answers the window under the dialect's names (spec: suggested_start/
// suggested_end; reference: start/end), in every version.

import { ISO_TIMESTAMP } from '../core/input-validation';
import { DAY_MS, fieldingDayScore, startOfUtcDay, windowScore } from './fielding-calendar';
import { canonicalLocale, findLocaleMarket, type LocaleMarket } from './locale-markets';
import { badRequest, type InvalidParam } from './rule-violation';

export const MAX_SUGGESTION_DAYS = 365;
export const SEARCH_HORIZON_DAYS = 30;
export const SHIFT_TOLERANCE_DAYS = 7;
const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

export interface TimeRangeSuggestion {
  locale: string;
  days: number;
  suggested_start: string;
  suggested_end: string;
}

type TimeRangeQuery = { market: LocaleMarket; locale: string } & ({ mode: 'days'; days: number } | { mode: 'range'; startDayMs: number; days: number });

export function readTimeRangeQuery(query: URLSearchParams, nowMs: number): TimeRangeQuery {
  const problems: InvalidParam[] = [];
  const locale = query.get('locale');
  const days = query.get('days');
  const start = query.get('start');
  const end = query.get('end');
  if (locale === null || locale === '') problems.push({ name: 'locale', reason: 'is required' });
  else if (!canonicalLocale(locale)) problems.push({ name: 'locale', reason: 'must be a locale such as en_US, en_us or eng_us' });
  else if (!findLocaleMarket(locale)) problems.push({ name: 'locale', reason: 'is not a supported locale' });
  if (days !== null && (start !== null || end !== null)) {
    problems.push({ name: 'days', reason: 'give either days alone, or both start and end' });
    throw badRequest('days cannot be combined with start and end.', problems);
  }
  if (days === null && start === null && end === null) problems.push({ name: 'days', reason: 'give either days alone, or both start and end' });
  if (days === null && (start === null) !== (end === null)) problems.push({ name: start === null ? 'start' : 'end', reason: 'start and end go together' });
  let dayCount = 0;
  if (days !== null) {
    if (!/^\d{1,3}$/.test(days) || Number(days) < 1 || Number(days) > MAX_SUGGESTION_DAYS) problems.push({ name: 'days', reason: `must be an integer from 1 to ${MAX_SUGGESTION_DAYS}` });
    else dayCount = Number(days);
  }
  let startDayMs = 0;
  if (start !== null && end !== null) {
    const startMs = parseDay(start);
    const endMs = parseDay(end);
    if (startMs === null) problems.push({ name: 'start', reason: 'must be a date (YYYY-MM-DD) or an ISO-8601 timestamp' });
    if (endMs === null) problems.push({ name: 'end', reason: 'must be a date (YYYY-MM-DD) or an ISO-8601 timestamp' });
    if (startMs !== null && endMs !== null) {
      if (startMs < startOfUtcDay(nowMs)) problems.push({ name: 'start', reason: 'must not be in the past' });
      if (endMs < startMs) problems.push({ name: 'end', reason: 'must not be before start' });
      else if ((endMs - startMs) / DAY_MS + 1 > MAX_SUGGESTION_DAYS) problems.push({ name: 'end', reason: `the range is at most ${MAX_SUGGESTION_DAYS} days` });
      startDayMs = startMs;
      dayCount = (endMs - startMs) / DAY_MS + 1;
    }
  }
  if (problems.length > 0) throw badRequest('The suggest-time-range request is invalid.', problems);
  const market = findLocaleMarket(locale!)!;
  return days !== null ? { market, locale: locale!, mode: 'days', days: dayCount } : { market, locale: locale!, mode: 'range', startDayMs, days: dayCount };
}

function parseDay(text: string): number | null {
  if (!DATE_ONLY.test(text) && !ISO_TIMESTAMP.test(text)) return null;
  const ms = Date.parse(DATE_ONLY.test(text) ? `${text}T00:00:00Z` : text);
  return Number.isNaN(ms) ? null : startOfUtcDay(ms);
}

export function suggestTimeRange(query: TimeRangeQuery, nowMs: number): TimeRangeSuggestion {
  const tomorrow = startOfUtcDay(nowMs) + DAY_MS;
  const candidates: number[] = [];
  if (query.mode === 'days') {
    for (let i = 0; i < SEARCH_HORIZON_DAYS; i++) candidates.push(tomorrow + i * DAY_MS);
  } else {
    for (let shift = -SHIFT_TOLERANCE_DAYS; shift <= SHIFT_TOLERANCE_DAYS; shift++) {
      const candidate = query.startDayMs + shift * DAY_MS;
      if (candidate >= Math.min(tomorrow, query.startDayMs)) candidates.push(candidate);
    }
  }
  const anchor = query.mode === 'days' ? tomorrow : query.startDayMs;
  let best = candidates[0];
  let bestScore = -Infinity;
  for (const candidate of candidates) {
    const score = windowScore(query.market, candidate, query.days) + 0.1 * fieldingDayScore(query.market, candidate);
    const better = score > bestScore + 1e-12
      || (Math.abs(score - bestScore) <= 1e-12 && (Math.abs(candidate - anchor) < Math.abs(best - anchor) || (Math.abs(candidate - anchor) === Math.abs(best - anchor) && candidate < best)));
    if (better) {
      best = candidate;
      bestScore = score;
    }
  }
  return {
    locale: query.locale,
    days: query.days,
    suggested_start: new Date(best).toISOString(),
    suggested_end: new Date(best + query.days * DAY_MS - 1).toISOString(),
  };
}
