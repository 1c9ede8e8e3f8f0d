// Intelligent calendar: suggested fielding time range and suggested number of days.
import { profileOfConfig } from '../http/dialect';
import { SuggestDaysAnswer, suggestedTimeRangeAnswer } from '../wire/calendar';
import { readAnswer } from '../wire/read-answer';
import type { ApiCaller } from './caller';
import type { JsonObject } from './types';

const CALENDAR = '/v1/demand/intelligent-calendar';

/**
 * suggest_time_range `GET /v1/demand/intelligent-calendar/suggest-time-range?locale&days | &start&end`: the whole
 * answer, its range under the spec's names `suggested_start`/`suggested_end` whichever dialect answered.
 */
export async function suggestTimeRange(caller: ApiCaller, input: { locale: string; days?: number; start?: string; end?: string }): Promise<Record<string, unknown>> {
  const req = { method: 'GET', path: `${CALENDAR}/suggest-time-range`, query: { locale: input.locale, days: input.days, start: input.start, end: input.end } } as const;
  // Read with the profile's wire schema: an answer without its range is a wire_mismatch, never "? to ?".
  const body: Record<string, unknown> = readAnswer({ operation: 'suggest_time_range', method: req.method, path: req.path }, suggestedTimeRangeAnswer(profileOfConfig(caller)), await caller.send(req));
  if ('start' in body && !('suggested_start' in body)) {
    const { start, end, ...rest } = body;
    return { ...rest, suggested_start: start, suggested_end: end };
  }
  return body;
}

/** suggest_days `POST /v1/demand/intelligent-calendar/suggest-days`: `{days}` (absent when the calendar suggests none). */
export async function suggestDays(caller: ApiCaller, request: JsonObject): Promise<{ days?: number } & Record<string, unknown>> {
  const req = { method: 'POST', path: `${CALENDAR}/suggest-days`, json: request } as const;
  return readAnswer({ operation: 'suggest_days', method: req.method, path: req.path }, SuggestDaysAnswer, await caller.send(req));
}
