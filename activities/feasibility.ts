// Feasibility and price prediction.
import { accountPath, callApi, expectObject, seg } from './api-call';
import { FeasibilityAnswer } from './http/wire/feasibility';
import { readAnswer } from './http/wire/read-answer';
import type { ActivityDeps } from './activity-deps';
import { eachItem, type BatchItemResult } from './batch';
import { checkCtx, requireObject, requireText } from './activity-input';
import type { ActivityCtx, JsonObject } from './types';
import { fromWireBody, toWireBody } from './version-adapter';

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
  /** Query parameters of the prediction (e.g. locale, incidence, length of interview, completes). */
  query: Record<string, string | number | boolean>;
}
export interface GeneratePricePredictionOutput {
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
  const activities = {
    /** POST P/target-groups/calculate-feasibility */
    async calculateFeasibility(input: CalculateFeasibilityInput): Promise<CalculateFeasibilityOutput> {
      const ctx = checkCtx('calculateFeasibility', input.ctx);
      const request = requireObject('calculateFeasibility', 'request', input.request);
      const req = {
        method: 'POST',
        path: `${accountPath(ctx)}/target-groups/calculate-feasibility`,
        json: toWireBody(request, ctx.apiVersion),
      } as const;
      const answer = readAnswer({ operation: 'calculate_target_group_feasibility', method: req.method, path: req.path }, FeasibilityAnswer, await callApi(deps.api, ctx, req));
      return { feasibility: fromWireBody(answer, ctx.apiVersion) };
    },

    /** GET P/business-units/{id}/generate-price-prediction?… (carries the renamed pricing_model/type value). */
    async generatePricePrediction(input: GeneratePricePredictionInput): Promise<GeneratePricePredictionOutput> {
      const ctx = checkCtx('generatePricePrediction', input.ctx);
      const businessUnitId = requireText('generatePricePrediction', 'businessUnitId', input.businessUnitId);
      const query = toWireBody(requireObject('generatePricePrediction', 'query', input.query ?? {}), ctx.apiVersion);
      const req = {
        method: 'GET',
        path: `${accountPath(ctx)}/business-units/${seg(businessUnitId)}/generate-price-prediction`,
        query: query as Record<string, string | number | boolean>,
      } as const;
      return { prediction: fromWireBody(expectObject(req, await callApi(deps.api, ctx, req)), ctx.apiVersion) };
    },


    /**
     * What the launch gate reads, for one target group or many: per item the feasibility answer (its
     * suggested_price answers the price question too, so no price prediction is asked), a result (or
     * failure) per item. A read, so a retry repeats it.
     */
    async checkLaunchGatesBatch(input: CheckLaunchGatesBatchInput): Promise<CheckLaunchGatesBatchOutput> {
      return { results: await eachItem('checkLaunchGatesBatch', input?.items, readLaunchGates) };
    },
  };

  async function readLaunchGates(input: CheckLaunchGatesInput): Promise<CheckLaunchGatesOutput> {
    return activities.calculateFeasibility({ ctx: input.ctx, request: input.feasibility });
  }
  return activities;
}
