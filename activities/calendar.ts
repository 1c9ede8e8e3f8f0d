// Intelligent calendar: suggested fielding time range and suggested number of days.
import { callApi } from './api-call';
import type { ActivityDeps } from './activity-deps';
import { checkCtx, requireObject, requireText } from './activity-input';
import { invalidInputFailure } from '../api/http/errors';
import { SuggestDaysAnswer, suggestedTimeRangeAnswer } from '../api/wire/calendar';
import { profileOfConfig } from '../api/http/dialect';
import { readAnswer } from '../api/wire/read-answer';
import type { ActivityCtx, JsonObject } from './types';

export interface SuggestTimeRangeInput {
  ctx: ActivityCtx;
  locale: string;
  /** Either `days` alone, or both `start` and `end` (the API refuses the combination). */
  days?: number;
  start?: string;
  end?: string;
}
export interface SuggestTimeRangeOutput {
  suggestedStart: string;
  suggestedEnd: string;
  /**
   * The whole answer, its range under the spec's names `suggested_start`/`suggested_end` whichever dialect
   * answered (the reference's `start`/`end` under `cint`).
   */
  suggestion: Record<string, unknown>;
}
export interface SuggestDaysInput {
  ctx: ActivityCtx;
  /** `{locale, price: {value, currency_code: "USD"}, length_of_interview, incidence_rate (0 < x < 1), completes}` */
  request: JsonObject;
}
export interface SuggestDaysOutput {
  /** The reference's answer: `{days}` (days absent when the calendar suggests none). */
  suggestion: { days?: number } & Record<string, unknown>;
}

const CALENDAR = '/v1/demand/intelligent-calendar';

export function calendarActivities(deps: ActivityDeps) {
  const profile = profileOfConfig(deps.api.config);
  return {
    /** GET /v1/demand/intelligent-calendar/suggest-time-range?locale&days | &start&end */
    async suggestTimeRange(input: SuggestTimeRangeInput): Promise<SuggestTimeRangeOutput> {
      const activity = 'suggestTimeRange';
      const ctx = checkCtx(activity, input.ctx);
      const locale = requireText(activity, 'locale', input.locale);
      const hasRange = input.start !== undefined || input.end !== undefined;
      if (input.days !== undefined && hasRange) throw invalidInputFailure(activity, 'give either days, or start and end, not both');
      if (hasRange && (input.start === undefined || input.end === undefined)) throw invalidInputFailure(activity, 'start and end go together');
      const req = { method: 'GET', path: `${CALENDAR}/suggest-time-range`, query: { locale, days: input.days, start: input.start, end: input.end } } as const;
      // Read with the profile's wire schema: an answer without its range is a wire_mismatch, never "? to ?".
      const body: Record<string, unknown> = readAnswer({ operation: 'suggest_time_range', method: req.method, path: req.path }, suggestedTimeRangeAnswer(profile), await callApi(deps.api, ctx, req));
      let suggestion = body;
      if ('start' in body && !('suggested_start' in body)) {
        const { start, end, ...rest } = body;
        suggestion = { ...rest, suggested_start: start, suggested_end: end };
      }
      return { suggestedStart: String(suggestion.suggested_start), suggestedEnd: String(suggestion.suggested_end), suggestion };
    },

    /** POST /v1/demand/intelligent-calendar/suggest-days */
    async suggestDays(input: SuggestDaysInput): Promise<SuggestDaysOutput> {
      const ctx = checkCtx('suggestDays', input.ctx);
      const request = requireObject('suggestDays', 'request', input.request);
      const req = { method: 'POST', path: `${CALENDAR}/suggest-days`, json: request } as const;
      return { suggestion: readAnswer({ operation: 'suggest_days', method: req.method, path: req.path }, SuggestDaysAnswer, await callApi(deps.api, ctx, req)) };
    },
  };
}
