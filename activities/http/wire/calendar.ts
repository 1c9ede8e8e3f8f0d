// Intelligent calendar on the wire (reference: suggest_days, SuggestDaysRequest / SuggestDaysResponse).
// suggest-time-range keeps the spec's suggested_start / suggested_end (a listed spec deviation).
import { z } from 'zod';

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
