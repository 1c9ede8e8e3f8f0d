// Feasibility on the wire (reference: calculate_target_group_feasibility; request
// CalculateTargetGroupFeasibilityRequest, answer CalculateTargetGroupFeasibilityResponse). The one listed
// spec deviation: the wanted completes are `filling_goal` (the spec's name), not `completes_goal`.
import { z } from 'zod';

/** MonetaryAmount as the reference answers it: `{value: decimal string, currency_code, currency_scale?}`. */
export const WireMoney = z.looseObject({
  value: z.string().regex(/^\d+(\.\d+)?$/, 'is not a decimal string'),
  currency_code: z.string().min(1),
  currency_scale: z.number().int().nullable().optional(),
});

/** TargetGroupFieldingSpecification: RFC 3339 timestamps. */
export const FieldingSpecification = z.strictObject({ start_at: z.iso.datetime({ offset: true }), end_at: z.iso.datetime({ offset: true }) });

/** The profiling part of a request: `{profile_adjustment_type, profiles}` (profiles: activities/http/wire/profiles.ts). */
export const FeasibilityProfiling = z.strictObject({
  profile_adjustment_type: z.enum(['percentage', 'nominal']),
  profiles: z.array(z.looseObject({ object: z.enum(['regular', 'blended']), quotas_enabled: z.boolean(), targets: z.array(z.unknown()).min(1) })).min(1),
});

export const FeasibilityRequest = z.strictObject({
  business_unit_id: z.number().int().min(1),
  locale: z.string().min(1),
  collects_pii: z.boolean().optional(),
  expected_incidence_rate: z.number().gt(0).max(1),
  expected_length_of_interview_minutes: z.number().int().min(1),
  /** Spec deviation: the reference's `completes_goal`. */
  filling_goal: z.number().int().min(1),
  fielding_specification: FieldingSpecification,
  profiling: FeasibilityProfiling.optional(),
});

export const FeasibilityAnswer = z.looseObject({
  suggested_price: WireMoney,
  suggested_price_range: z.looseObject({ min: WireMoney, max: WireMoney }).optional(),
  suggested_completes_goal_range: z.looseObject({ min: z.number().int().min(0), max: z.number().int().min(0) }).optional(),
  profiles: z.array(z.unknown()).optional(),
});
export type FeasibilityAnswer = z.infer<typeof FeasibilityAnswer>;
