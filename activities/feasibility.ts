// Feasibility and price prediction.
import { accountPath, callApi, expectObject, seg } from './api-call';
import type { ActivityDeps } from './activity-deps';
import { eachItem, type BatchItemResult } from './batch';
import { checkCtx, requireObject, requireText } from './activity-input';
import type { ActivityCtx, JsonObject } from './types';
import { fromWireBody, toWireBody } from './version-adapter';

export interface CalculateFeasibilityInput {
  ctx: ActivityCtx;
  /** Feasibility request (2025-12-18 names; no project_id; allocations may hold supplier_ids). */
  request: JsonObject;
}
export interface CalculateFeasibilityOutput {
  feasibility: Record<string, unknown>;
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
  businessUnitId: string;
  feasibility: JsonObject;
  priceQuery: Record<string, string | number | boolean>;
}
export interface CheckLaunchGatesOutput extends CalculateFeasibilityOutput, GeneratePricePredictionOutput {}
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
      return { feasibility: fromWireBody(expectObject(req, await callApi(deps.api, ctx, req)), ctx.apiVersion) };
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
     * What the launch gate reads, for one target group or many: per item feasibility and the price
     * prediction, sent side by side (they do not depend on each other), a result (or failure) per item.
     * Both are reads, so a retry repeats both.
     */
    async checkLaunchGatesBatch(input: CheckLaunchGatesBatchInput): Promise<CheckLaunchGatesBatchOutput> {
      return { results: await eachItem('checkLaunchGatesBatch', input?.items, readLaunchGates) };
    },
  };

  async function readLaunchGates(input: CheckLaunchGatesInput): Promise<CheckLaunchGatesOutput> {
    const [{ feasibility }, { prediction }] = await Promise.all([
      activities.calculateFeasibility({ ctx: input.ctx, request: input.feasibility }),
      activities.generatePricePrediction({ ctx: input.ctx, businessUnitId: input.businessUnitId, query: input.priceQuery }),
    ]);
    return { feasibility, prediction };
  }
  return activities;
}
