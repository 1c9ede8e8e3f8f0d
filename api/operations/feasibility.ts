// Feasibility and price prediction.
import { goalFieldInVersion, profileOfConfig, speaksSpec, withGoalFieldOut } from '../http/dialect';
import { FeasibilityAnswer, ReferencePricePredictionAnswer, ReferencePricePredictionRequest } from '../wire/feasibility';
import { readAnswer } from '../wire/read-answer';
import { requestBody } from '../wire/request-body';
import { fromWireBody, toWireBody } from '../wire/version-adapter';
import { expectObject } from './answers';
import { accountPath, seg, type ApiCaller } from './caller';
import type { JsonObject } from './types';

/**
 * calculate_target_group_feasibility `POST P/target-groups/calculate-feasibility`: the request (the reference's
 * CalculateTargetGroupFeasibilityRequest with the spec's filling_goal) in the caller's dialect and version; the
 * answer checked against CalculateTargetGroupFeasibilityResponse.
 */
export async function calculateFeasibility(caller: ApiCaller, request: JsonObject): Promise<FeasibilityAnswer> {
  const req = {
    method: 'POST',
    path: `${accountPath(caller)}/target-groups/calculate-feasibility`,
    json: goalFieldInVersion(toWireBody(withGoalFieldOut(profileOfConfig(caller), request), caller.apiVersion), caller.apiVersion),
  } as const;
  const answer = readAnswer({ operation: 'calculate_target_group_feasibility', method: req.method, path: req.path }, FeasibilityAnswer, await caller.send(req));
  return fromWireBody(answer, caller.apiVersion);
}

/**
 * generate_price_prediction with the planning core's rate-card config (plan/launch-gates.ts priceQuery): under
 * `sandbox` the spec's GET P/business-units/{id}/generate-price-prediction with the config as query parameters,
 * under `cint` the reference's POST `{config}`. Either answer is read with GetRedactedPricePredictionResponse; the
 * open exchange's CPI and pricing type are the result's `cost_per_interview` and `pricing_model`.
 */
export async function generatePricePrediction(caller: ApiCaller, input: { businessUnitId: string; config: JsonObject }): Promise<Record<string, unknown>> {
  const body = requestBody('generatePricePrediction', 'generate_price_prediction', ReferencePricePredictionRequest, { config: input.config });
  const path = `${accountPath(caller)}/business-units/${seg(input.businessUnitId)}/generate-price-prediction`;
  const req = speaksSpec(profileOfConfig(caller), 'price_prediction_get')
    ? ({ method: 'GET', path, query: toWireBody(body.config as JsonObject, caller.apiVersion) as Record<string, string | number | boolean> } as const)
    : ({ method: 'POST', path, json: toWireBody(body, caller.apiVersion) } as const);
  const res = await caller.send(req);
  const answer = readAnswer({ operation: 'generate_price_prediction', method: req.method, path: req.path }, ReferencePricePredictionAnswer, {
    status: res.status,
    body: fromWireBody(expectObject(req, res), caller.apiVersion),
  });
  const open = answer.open_exchange_price;
  return { ...answer, cost_per_interview: open.cost_per_interview, pricing_model: open.pricing_context.type };
}
