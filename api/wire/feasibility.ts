// Feasibility and price prediction on the wire (reference: calculate_target_group_feasibility, request
// CalculateTargetGroupFeasibilityRequest, answer CalculateTargetGroupFeasibilityResponse; generate_price_prediction,
// GetRedactedPricePredictionRequest / GetRedactedPricePredictionResponse). The deviations (api/http/dialect.ts):
// under `sandbox` the wanted completes are the spec's `filling_goal` and the price prediction is the spec's GET
// with a query; under `cint` `completes_goal` and the reference's POST.
import { z } from 'zod';

/** MonetaryAmount as the reference answers it: `{value: decimal string, currency_code, currency_scale?}`. */
export const WireMoney = z.looseObject({
  value: z.string().regex(/^\d+(\.\d+)?$/, 'is not a decimal string'),
  currency_code: z.string().min(1),
  currency_scale: z.number().int().nullable().optional(),
});

/** TargetGroupFieldingSpecification: RFC 3339 timestamps. */
export const FieldingSpecification = z.strictObject({ start_at: z.iso.datetime({ offset: true }), end_at: z.iso.datetime({ offset: true }) });

/** The profiling part of a request: `{profile_adjustment_type, profiles}` (profiles: api/wire/profiles.ts). */
export const FeasibilityProfiling = z.strictObject({
  profile_adjustment_type: z.enum(['percentage', 'nominal']),
  profiles: z.array(z.looseObject({ object: z.enum(['regular', 'blended']), quotas_enabled: z.boolean(), targets: z.array(z.unknown()).min(1) })).min(1),
});

const FEASIBILITY_FIELDS = {
  business_unit_id: z.number().int().min(1),
  locale: z.string().min(1),
  collects_pii: z.boolean().optional(),
  expected_incidence_rate: z.number().gt(0).max(1),
  expected_length_of_interview_minutes: z.number().int().min(1),
  fielding_specification: FieldingSpecification,
  profiling: FeasibilityProfiling.optional(),
};
/** The `sandbox` profile's request: the spec's `filling_goal`. */
export const FeasibilityRequest = z.strictObject({ ...FEASIBILITY_FIELDS, filling_goal: z.number().int().min(1) });
/** The `cint` profile's request: the reference's `completes_goal`. */
export const ReferenceFeasibilityRequest = z.strictObject({ ...FEASIBILITY_FIELDS, completes_goal: z.number().int().min(1) });

export const FeasibilityAnswer = z.looseObject({
  suggested_price: WireMoney,
  suggested_price_range: z.looseObject({ min: WireMoney, max: WireMoney }).optional(),
  suggested_completes_goal_range: z.looseObject({ min: z.number().int().min(0), max: z.number().int().min(0) }).optional(),
  profiles: z.array(z.unknown()).optional(),
});
export type FeasibilityAnswer = z.infer<typeof FeasibilityAnswer>;

/** MonetaryAmountRequestModel. */
const MoneyRequest = z.strictObject({ value: z.string().regex(/^\d+(\.\d+)?$/), currency_code: z.string().regex(/^[A-Z]{3}$/) });

/**
 * GetRedactedPricePredictionRequest as the `cint` profile sends it: the rate-card config (RateCardPredictionConfig).
 * A dynamic config needs a requested CPI (`user_requested_cpi`), which a study does not give, so studyflow never
 * asks one.
 */
export const ReferencePricePredictionRequest = z.strictObject({
  config: z.strictObject({
    type: z.literal('rate_card'),
    country_code: z.string().regex(/^[A-Z]{2}$/),
    /** 0 to 1 in steps of 0.01. */
    expected_incidence_rate: z.number().min(0).max(1).refine((v) => Math.abs(Math.round(v * 100) - v * 100) < 1e-9, 'is not a multiple of 0.01'),
    expected_length_of_interview_minutes: z.number().int().min(1).max(45),
    maximum_cpi: MoneyRequest.optional(),
    cpi_boost: MoneyRequest.optional(),
  }),
});

const PricingContext = z.looseObject({ type: z.enum(['rate_card', 'dynamic']) });

/** GetRedactedPricePredictionResponse: the open exchange's CPI and each private exchange supplier's. */
export const ReferencePricePredictionAnswer = z.looseObject({
  buyer_account_id: z.number().int(),
  buyer_business_unit_id: z.string(),
  buyer_business_unit_exchange_rate_from_usd: z.number(),
  open_exchange_price: z.looseObject({ pricing_context: PricingContext, cost_per_interview: WireMoney }),
  /** Not read: MonetaryAmount requires none of its fields (the reference's own example leaves out a currency). */
  private_exchange_prices: z.array(z.looseObject({ pricing_context: PricingContext, supplier_id: z.string(), cost_per_interview: z.looseObject({}) })),
});
export type ReferencePricePredictionAnswer = z.infer<typeof ReferencePricePredictionAnswer>;

