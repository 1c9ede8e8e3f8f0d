// Feasibility and price prediction.
import { accountPath, callApi, expectObject, seg } from './api-call';
import { FeasibilityAnswer, ReferencePricePredictionAnswer, ReferencePricePredictionRequest } from '../api/wire/feasibility';
import { readAnswer } from '../api/wire/read-answer';
import { requestBody } from '../api/wire/request-body';
import { goalFieldInVersion, profileOfConfig, speaksSpec, withGoalFieldOut } from '../api/http/dialect';
import type { ActivityDeps } from './activity-deps';
import { eachItem, type BatchItemResult } from './batch';
import { checkCtx, requireObject, requireText } from './activity-input';
import type { ActivityCtx, JsonObject } from './types';
import { fromWireBody, toWireBody } from '../api/wire/version-adapter';

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
  const profile = profileOfConfig(deps.api.config);
  const activities = {
    /** POST P/target-groups/calculate-feasibility */
    async calculateFeasibility(input: CalculateFeasibilityInput): Promise<CalculateFeasibilityOutput> {
      const ctx = checkCtx('calculateFeasibility', input.ctx);
      const request = requireObject('calculateFeasibility', 'request', input.request);
      const req = {
        method: 'POST',
        path: `${accountPath(ctx)}/target-groups/calculate-feasibility`,
        json: goalFieldInVersion(toWireBody(withGoalFieldOut(profile, request), ctx.apiVersion), ctx.apiVersion),
      } as const;
      const answer = readAnswer({ operation: 'calculate_target_group_feasibility', method: req.method, path: req.path }, FeasibilityAnswer, await callApi(deps.api, ctx, req));
      return { feasibility: fromWireBody(answer, ctx.apiVersion) };
    },

    /**
     * generate_price_prediction with the planning core's rate-card config (plan/launch-gates.ts priceQuery): under
     * `sandbox` the spec's GET P/business-units/{id}/generate-price-prediction with the config as query parameters,
     * under `cint` the reference's POST `{config}`. Either answer is read with GetRedactedPricePredictionResponse; the
     * open exchange's CPI and pricing type are the result's `cost_per_interview` and `pricing_model`.
     */
    async generatePricePrediction(input: GeneratePricePredictionInput): Promise<GeneratePricePredictionOutput> {
      const activity = 'generatePricePrediction';
      const ctx = checkCtx(activity, input.ctx);
      const businessUnitId = requireText(activity, 'businessUnitId', input.businessUnitId);
      const config = requireObject(activity, 'query', input.query ?? {});
      const body = requestBody(activity, 'generate_price_prediction', ReferencePricePredictionRequest, { config });
      const path = `${accountPath(ctx)}/business-units/${seg(businessUnitId)}/generate-price-prediction`;
      const req = speaksSpec(profile, 'price_prediction_get')
        ? ({ method: 'GET', path, query: toWireBody(body.config as JsonObject, ctx.apiVersion) as Record<string, string | number | boolean> } as const)
        : ({ method: 'POST', path, json: toWireBody(body, ctx.apiVersion) } as const);
      const res = await callApi(deps.api, ctx, req);
      const answer = readAnswer({ operation: 'generate_price_prediction', method: req.method, path: req.path }, ReferencePricePredictionAnswer, {
        status: res.status,
        body: fromWireBody(expectObject(req, res), ctx.apiVersion),
      });
      const open = answer.open_exchange_price;
      return { prediction: { ...answer, cost_per_interview: open.cost_per_interview, pricing_model: open.pricing_context.type } };
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
