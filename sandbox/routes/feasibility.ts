// Feasibility and price prediction (spec: Endpoints › Target groups; Limits; Versioning).
//   POST P/target-groups/calculate-feasibility                     every version (no project_id in 2025-12-18)
//   POST P/projects/{project_id}/target-groups/calculate-feasibility  before 2025-12-18 only (404 in 2025-12-18)
//   GET  P/business-units/{business_unit_id}/generate-price-prediction?type&country_code&…  (the spec's dialect)
//   POST P/business-units/{business_unit_id}/generate-price-prediction {config}              (the cint dialect)
//        (model/price-prediction.ts)
// Request body: model/feasibility-request.ts. Response in 2025-12-18 (the reference's
// CalculateTargetGroupFeasibilityResponse): {suggested_price, suggested_price_range, suggested_completes_goal_range
// {min, max}}: max is the completes the window can deliver, min a tenth lower; the price is the business unit's
// predicted cost per interview. Before 2025-12-18 (sandbox shape): {feasible, feasible_completes, filling_goal,
// completes_per_day, estimated_field_time_days, fielding_days, suggested_cpi, locale}.

import { ApiError, badRequest, notFound } from '../core/api-error';
import { ObjectReader } from '../core/input-validation';
import { priceConfigFromQuery, pricePrediction, readPriceConfig } from '../model/price-prediction';
import { ok, type RequestContext, type RouteModule } from '../core/route-module';
import { LEGACY_VERSIONS } from '../core/versioning';
import { goalFieldOf } from '../core/dialect';
import { requireProject, requireTargetGroup } from '../resources/lookups';
import { pricingValueOut } from '../resources/target-group-wire';
import { estimateFeasibility } from '../model/feasibility';
import { readFeasibilityRequest } from '../model/feasibility-request';
import { moneyFromMinorUnits } from '../model/money';
import { predictedCostPerCompleteMinorUnits } from '../model/pricing';
import { expandProfileTemplates } from '../model/profile-templates';
import { validateProfiles } from '../model/profile-validation';
import { profileIds } from './profiles-target-group';
import { P, PROJECT } from './paths';

/** Respondent IDs on a target group's ID exclusion lists (RSIDs, GUIDs and legacy cids). */
export function excludedIdCount(ctx: RequestContext, targetGroupId: string): number {
  const lists = ctx.store.data.id_exclusion_lists[targetGroupId];
  return lists ? lists.rsid.length + lists.access_respondent_guid.length + lists.cid.length : 0;
}

function calculateFeasibility(ctx: RequestContext) {
  if (ctx.params.project_id !== undefined) requireProject(ctx);
  const request = readFeasibilityRequest(ctx.body, ctx.version, ctx.clock.now(), goalFieldOf(ctx.dialect, ctx.version));
  let excluded = 0;
  if (request.targetGroupId) {
    const tg = requireTargetGroup(ctx, request.targetGroupId);
    if (ctx.params.project_id !== undefined && tg.project_id !== ctx.params.project_id) throw notFound(`Target group ${request.targetGroupId} not found.`);
    excluded = excludedIdCount(ctx, tg.id);
  }
  if (request.businessUnitId !== null && !ctx.account!.business_unit_ids.includes(request.businessUnitId)) {
    throw new ApiError(422, 'unknown_reference', `Business unit ${request.businessUnitId} does not belong to account ${ctx.account!.account_id}.`, { invalidParams: [{ name: 'business_unit_id', reason: 'is not a business unit of the account' }] });
  }
  const profiles = validateProfiles([...expandProfileTemplates(request.profileTemplateIds), ...request.rawProfiles], {
    locale: request.market.locale,
    fillingGoal: request.fillingGoal,
    newId: profileIds(ctx),
  });
  const estimate = estimateFeasibility({
    market: request.market,
    incidenceRate: request.incidenceRate,
    lengthOfInterviewMinutes: request.lengthOfInterviewMinutes,
    fillingGoal: request.fillingGoal,
    fieldingDays: request.fieldingDays,
    profiles,
    excludedRespondentCount: excluded,
    supplierIds: request.supplierIds,
  });
  if (request.referenceShape) {
    const priceMinor = predictedCostPerCompleteMinorUnits(request.market, request.incidenceRate, request.lengthOfInterviewMinutes, request.businessUnitId!);
    return ok({
      suggested_price: moneyFromMinorUnits(priceMinor),
      suggested_price_range: { min: moneyFromMinorUnits(Math.round(priceMinor * 0.9)), max: moneyFromMinorUnits(Math.round(priceMinor * 1.15)) },
      suggested_completes_goal_range: { min: Math.floor(estimate.feasible_completes * 0.9), max: estimate.feasible_completes },
    });
  }
  if (request.businessUnitId !== null) {
    estimate.suggested_cpi = moneyFromMinorUnits(predictedCostPerCompleteMinorUnits(request.market, request.incidenceRate, request.lengthOfInterviewMinutes, request.businessUnitId));
  }
  return ok({ ...estimate, fielding_days: Math.round(estimate.fielding_days * 100) / 100, locale: request.locale });
}

/**
 * generate_price_prediction (model/price-prediction.ts): the reference's config, as the body's `config` (POST, the
 * cint dialect) or as query parameters (GET, the spec's dialect); the reference's answer in both.
 */
function generatePricePrediction(ctx: RequestContext) {
  const businessUnitId = Number(ctx.params.business_unit_id);
  if (!/^\d{1,15}$/.test(ctx.params.business_unit_id) || !ctx.account!.business_unit_ids.includes(businessUnitId)) {
    throw notFound(`Business unit ${ctx.params.business_unit_id} not found.`);
  }
  let read: ReturnType<typeof readPriceConfig>;
  const rateCard = pricingValueOut('rate_card', ctx.version);
  if (ctx.method === 'GET') {
    const { raw, problems } = priceConfigFromQuery(ctx.query);
    read = readPriceConfig(raw, '', rateCard);
    read.problems.unshift(...problems);
  } else {
    const body = ObjectReader.body(ctx.body);
    body.rejectUnknown(['config']);
    const problems = [...body.problems];
    if (!body.has('config')) problems.push({ name: 'config', reason: 'is required' });
    read = body.has('config') ? readPriceConfig(body.value.config, 'config', rateCard) : { problems: [] };
    read.problems.unshift(...problems);
  }
  if (read.problems.length > 0 || !read.config) throw badRequest('The price prediction request is invalid.', read.problems);
  return ok(pricePrediction(read.config, ctx.account!.account_id, businessUnitId, rateCard));
}

const PRICE_PREDICTION = `${P}/business-units/{business_unit_id}/generate-price-prediction`;

export const feasibilityRoutes: RouteModule = {
  name: 'feasibility',
  routes: [
    { method: 'POST', path: `${P}/target-groups/calculate-feasibility`, handler: calculateFeasibility },
    { method: 'POST', path: `${PROJECT}/target-groups/calculate-feasibility`, versions: LEGACY_VERSIONS, handler: calculateFeasibility },
    { method: 'GET', path: PRICE_PREDICTION, dialects: ['spec'], handler: generatePricePrediction },
    { method: 'POST', path: PRICE_PREDICTION, dialects: ['cint'], handler: generatePricePrediction },
  ],
};
