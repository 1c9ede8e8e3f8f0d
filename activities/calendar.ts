// Intelligent calendar: suggested fielding time range and suggested number of days (api/operations/calendar.ts).
import { suggestDays, suggestTimeRange } from '../api/operations/calendar';
import { activityCaller } from './api-call';
import type { ActivityDeps } from './activity-deps';
import { checkCtx, requireObject, requireText } from './activity-input';
import { invalidInputFailure } from '../api/http/errors';
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

export function calendarActivities(deps: ActivityDeps) {
  return {
    /** GET /v1/demand/intelligent-calendar/suggest-time-range?locale&days | &start&end */
    async suggestTimeRange(input: SuggestTimeRangeInput): Promise<SuggestTimeRangeOutput> {
      const activity = 'suggestTimeRange';
      const ctx = checkCtx(activity, input.ctx);
      const locale = requireText(activity, 'locale', input.locale);
      const hasRange = input.start !== undefined || input.end !== undefined;
      if (input.days !== undefined && hasRange) throw invalidInputFailure(activity, 'give either days, or start and end, not both');
      if (hasRange && (input.start === undefined || input.end === undefined)) throw invalidInputFailure(activity, 'start and end go together');
      const suggestion = await suggestTimeRange(activityCaller(deps, ctx), { locale, days: input.days, start: input.start, end: input.end });
      return { suggestedStart: String(suggestion.suggested_start), suggestedEnd: String(suggestion.suggested_end), suggestion };
    },

    /** POST /v1/demand/intelligent-calendar/suggest-days */
    async suggestDays(input: SuggestDaysInput): Promise<SuggestDaysOutput> {
      const ctx = checkCtx('suggestDays', input.ctx);
      const request = requireObject('suggestDays', 'request', input.request);
      return { suggestion: await suggestDays(activityCaller(deps, ctx), request) };
    },
  };
}
