// Intelligent calendar on the wire (reference: suggest_days, SuggestDaysRequest / SuggestDaysResponse;
// suggest_time_range, SuggestedTimeRangeResponse). suggest-time-range answers the spec's suggested_start /
// suggested_end under the `sandbox` profile and the reference's start / end under `cint` (a listed spec
// deviation, api/http/dialect.ts). Either dialect's errors are read as API failures by status
// (the spec's objects `bad_request`, `unauthorized`, `internal_server_error`; the reference's `Error` objects).
import { z } from 'zod';
import { speaksSpec, type ApiProfileName } from '../http/dialect';

export const SuggestDaysRequest = z.strictObject({
  locale: z.string().min(1),
  collects_pii: z.boolean().optional(),
  price: z.strictObject({ value: z.string().regex(/^\d+(\.\d+)?$/), currency_code: z.string().min(1) }),
  length_of_interview: z.number().int().min(1),
  incidence_rate: z.number().min(0).max(1),
  completes: z.number().int().min(1),
});

/** `{days}`; days is optional in the reference (the sandbox leaves it out when the panel can never deliver). */
export const SuggestDaysAnswer = z.looseObject({ days: z.number().int().optional() });

const Timestamp = z.iso.datetime({ offset: true });
/** SuggestedTimeRangeResponse's holidays (every field optional, as in the reference). */
const Holidays = z.array(z.looseObject({ date: z.string().optional(), name: z.string().optional(), respondent_rate: z.number().optional(), completes_rate: z.number().optional() })).optional();

/**
 * The spec's suggest-time-range answer (`sandbox`): `suggested_start`, `suggested_end` ("in every version, not start
 * and end"; the spec gives no format). Required: without them the answer suggests nothing, and reading it as a
 * suggestion would invent one.
 */
export const SpecSuggestedTimeRangeAnswer = z.looseObject({ suggested_start: z.string().min(1), suggested_end: z.string().min(1), holidays: Holidays, timezone: z.string().optional() });
/** SuggestedTimeRangeResponse (`cint`): `start`, `end` (the reference marks none required; studyflow reads both). */
export const ReferenceSuggestedTimeRangeAnswer = z.looseObject({ start: Timestamp, end: Timestamp, holidays: Holidays, timezone: z.string().optional() });

/** The suggest-time-range answer a profile reads. */
export function suggestedTimeRangeAnswer(profile: ApiProfileName) {
  return speaksSpec(profile, 'suggested_time_range') ? SpecSuggestedTimeRangeAnswer : ReferenceSuggestedTimeRangeAnswer;
}
