// Feasibility and price prediction, and the launch gates' batch read; the operations are api/operations/feasibility.ts.
import { calculateFeasibility, generatePricePrediction } from '../api/operations/feasibility';
import type { FeasibilityAnswer } from '../api/wire/feasibility';
import { activityCaller } from './api-call';
import type { ActivityDeps } from './activity-deps';
import { eachItem, type BatchItemResult } from './batch';
import { checkCtx, requireObject, requireText } from './activity-input';
import type { ActivityCtx, JsonObject } from './types';

export interface CalculateFeasibilityInput {
  ctx: ActivityCtx;
  /** Feasibility request: the reference's CalculateTargetGroupFeasibilityRequest, with the spec's filling_goal. */
  request: JsonObject;
}
export interface CalculateFeasibilityOutput {
  /** The answer, checked against the reference's CalculateTargetGroupFeasibilityResponse. */
  feasibility: FeasibilityAnswer;
}
export interface GeneratePricePredictionInput {
  ctx: ActivityCtx;
  businessUnitId: string;
  /**
   * What to predict, in the spec's query names (`locale`, `expected_incidence_rate`,
   * `expected_length_of_interview_minutes`, `filling_goal`, `pricing_model?`). The `sandbox` profile sends them
   * as the query of the spec's GET; `cint` sends the reference's POST body made of them (see below).
   */
  query: Record<string, string | number | boolean>;
}
export interface GeneratePricePredictionOutput {
  /**
   * The answer in the spec's names: `cost_per_interview`, `pricing_model`, `total_cost` where the answer gives one.
   * Under `cint` the reference's answer with its open exchange's CPI as `cost_per_interview` and its pricing
   * context's type as `pricing_model` (the reference gives no total).
   */
  prediction: Record<string, unknown>;
}

export interface CheckLaunchGatesInput {
  ctx: ActivityCtx;
  /** The feasibility request (plan/launch-gates.ts feasibilityRequest). */
  feasibility: JsonObject;
}
/** Feasibility answers both gates (its suggested_price is the price max_cpi judges): one call per target group. */
export type CheckLaunchGatesOutput = CalculateFeasibilityOutput;
export interface CheckLaunchGatesBatchInput {
  /** At most BATCH_MAX (activities/batch.ts). */
  items: CheckLaunchGatesInput[];
}
export interface CheckLaunchGatesBatchOutput {
  /** In the order of the items. */
  results: Array<BatchItemResult<CheckLaunchGatesOutput>>;
}

export function feasibilityActivities(deps: ActivityDeps) {
  /** calculate_target_group_feasibility, its input checked. */
  async function feasibility(input: CalculateFeasibilityInput): Promise<CalculateFeasibilityOutput> {
    const ctx = checkCtx('calculateFeasibility', input.ctx);
    const request = requireObject('calculateFeasibility', 'request', input.request);
    return { feasibility: await calculateFeasibility(activityCaller(deps, ctx), request) };
  }

  return {
    /** POST P/target-groups/calculate-feasibility */
    calculateFeasibility: feasibility,

    /** generate_price_prediction in the profile's dialect (api/operations/feasibility.ts). */
    async generatePricePrediction(input: GeneratePricePredictionInput): Promise<GeneratePricePredictionOutput> {
      const activity = 'generatePricePrediction';
      const ctx = checkCtx(activity, input.ctx);
      const businessUnitId = requireText(activity, 'businessUnitId', input.businessUnitId);
      const config = requireObject(activity, 'query', input.query ?? {});
      return { prediction: await generatePricePrediction(activityCaller(deps, ctx), { businessUnitId, config }) };
    },

    /**
     * What the launch gate reads, for one target group or many: per item the feasibility answer (its
     * suggested_price answers the price question too, so no price prediction is asked), a result (or
     * failure) per item. A read, so a retry repeats it.
     */
    async checkLaunchGatesBatch(input: CheckLaunchGatesBatchInput): Promise<CheckLaunchGatesBatchOutput> {
      return { results: await eachItem('checkLaunchGatesBatch', input?.items, (item: CheckLaunchGatesInput) => feasibility({ ctx: item.ctx, request: item.feasibility })) };
    },
  };
}
