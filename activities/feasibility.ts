// Feasibility and price prediction.
import { accountPath, callApi, expectObject, seg } from './api-call';
import { FeasibilityAnswer, ReferencePricePredictionAnswer, ReferencePricePredictionRequest } from '../api/wire/feasibility';
import { readAnswer } from '../api/wire/read-answer';
import { requestBody } from '../api/wire/request-body';
import { invalidInputFailure } from '../api/http/errors';
import { profileOfConfig, speaksSpec, withGoalFieldOut } from '../api/http/dialect';
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

/**
 * The reference's price prediction body for the spec's query: the rate-card config, the country the locale's
 * last part names (`en_US`, `eng_us` -> `US`), the incidence to the hundredth (the reference's `multipleOf: 0.01`).
 * A dynamic business unit needs a requested CPI, which a study does not give: refused as invalid input.
 */
export function referencePricePredictionBody(activity: string, query: Record<string, unknown>): Record<string, unknown> {
  if (query.pricing_model !== undefined && query.pricing_model !== 'rate_card') {
    throw invalidInputFailure(activity, `a ${String(query.pricing_model)} price prediction needs a requested CPI (user_requested_cpi), which a study does not give; only rate_card is predicted`);
  }
  const country = /_([A-Za-z]{2})$/.exec(String(query.locale ?? ''))?.[1];
  if (!country) throw invalidInputFailure(activity, `locale ${JSON.stringify(query.locale ?? null)} names no country (e.g. en_US or eng_us)`);
  const incidence = Number(query.expected_incidence_rate);
  const body = {
    config: {
      type: 'rate_card',
      country_code: country.toUpperCase(),
      expected_incidence_rate: Number.isFinite(incidence) ? Math.round(incidence * 100) / 100 : query.expected_incidence_rate,
      expected_length_of_interview_minutes: query.expected_length_of_interview_minutes,
    },
  };
  return requestBody(activity, 'generate_price_prediction', ReferencePricePredictionRequest, body);
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
        json: toWireBody(withGoalFieldOut(profile, request), ctx.apiVersion),
      } as const;
      const answer = readAnswer({ operation: 'calculate_target_group_feasibility', method: req.method, path: req.path }, FeasibilityAnswer, await callApi(deps.api, ctx, req));
      return { feasibility: fromWireBody(answer, ctx.apiVersion) };
    },

    /**
     * generate_price_prediction: under `sandbox` the spec's GET P/business-units/{id}/generate-price-prediction?…
     * (carries the renamed pricing_model/type value); under `cint` the reference's POST with
     * GetRedactedPricePredictionRequest, its answer read with GetRedactedPricePredictionResponse.
     */
    async generatePricePrediction(input: GeneratePricePredictionInput): Promise<GeneratePricePredictionOutput> {
      const activity = 'generatePricePrediction';
      const ctx = checkCtx(activity, input.ctx);
      const businessUnitId = requireText(activity, 'businessUnitId', input.businessUnitId);
      const asked = requireObject(activity, 'query', input.query ?? {});
      const path = `${accountPath(ctx)}/business-units/${seg(businessUnitId)}/generate-price-prediction`;
      if (speaksSpec(profile, 'price_prediction_get')) {
        const req = { method: 'GET', path, query: toWireBody(asked, ctx.apiVersion) as Record<string, string | number | boolean> } as const;
        return { prediction: fromWireBody(expectObject(req, await callApi(deps.api, ctx, req)), ctx.apiVersion) };
      }
      const req = { method: 'POST', path, json: referencePricePredictionBody(activity, asked) } as const;
      const answer = readAnswer({ operation: 'generate_price_prediction', method: req.method, path: req.path }, ReferencePricePredictionAnswer, await callApi(deps.api, ctx, req));
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
