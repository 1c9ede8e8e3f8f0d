// Feasibility and price prediction (spec: Endpoints › Target groups; Limits; Versioning).
//   POST P/target-groups/calculate-feasibility                     every version (no project_id in 2025-12-18)
//   POST P/projects/{project_id}/target-groups/calculate-feasibility  before 2025-12-18 only (404 in 2025-12-18)
//   GET  P/business-units/{business_unit_id}/generate-price-prediction?locale&expected_incidence_rate
//        &expected_length_of_interview_minutes[&filling_goal]
// Request body: model/feasibility-request.ts. Response in 2025-12-18 (the reference's
// CalculateTargetGroupFeasibilityResponse): {suggested_price, suggested_price_range, suggested_completes_goal_range
// {min, max}}: max is the completes the window can deliver, min a tenth lower; the price is the business unit's
// predicted cost per interview. Before 2025-12-18 (sandbox shape): {feasible, feasible_completes, filling_goal,
// completes_per_day, estimated_field_time_days, fielding_days, suggested_cpi, locale}.

import { ApiError, badRequest, notFound } from '../core/api-error';
import { ok, type RequestContext, type RouteModule } from '../core/route-module';
import { LEGACY_VERSIONS } from '../core/versioning';
import { requireProject, requireTargetGroup } from '../resources/lookups';
import { pricingValueOut } from '../resources/target-group-wire';
import { estimateFeasibility } from '../model/feasibility';
import { feasibilityFillingGoalCap, MAX_LENGTH_OF_INTERVIEW_MINUTES, readFeasibilityRequest } from '../model/feasibility-request';
import { canonicalLocale, findLocaleMarket } from '../model/locale-markets';
import { moneyFromMinorUnits } from '../model/money';
import { businessUnitPriceFactor, predictedCostPerCompleteMinorUnits } from '../model/pricing';
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
  const request = readFeasibilityRequest(ctx.body, ctx.version, ctx.clock.now());
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

function readQueryNumber(query: URLSearchParams, name: string, problems: { name: string; reason: string }[], check: (value: number) => string | null, required: boolean): number | undefined {
  const raw = query.get(name);
  if (raw === null || raw === '') {
    if (required) problems.push({ name, reason: 'is required' });
    return undefined;
  }
  const value = /^-?\d+(\.\d+)?$/.test(raw) ? Number(raw) : NaN;
  const problem = Number.isNaN(value) ? 'must be a number' : check(value);
  if (problem) {
    problems.push({ name, reason: problem });
    return undefined;
  }
  return value;
}

function generatePricePrediction(ctx: RequestContext) {
  const businessUnitId = Number(ctx.params.business_unit_id);
  if (!/^\d{1,15}$/.test(ctx.params.business_unit_id) || !ctx.account!.business_unit_ids.includes(businessUnitId)) {
    throw notFound(`Business unit ${ctx.params.business_unit_id} not found.`);
  }
  const problems: { name: string; reason: string }[] = [];
  const locale = ctx.query.get('locale');
  if (locale === null || locale === '') problems.push({ name: 'locale', reason: 'is required' });
  else if (!canonicalLocale(locale)) problems.push({ name: 'locale', reason: 'must be a locale such as en_US, en_us or eng_us' });
  const incidence = readQueryNumber(ctx.query, 'expected_incidence_rate', problems, (v) => (v > 0 && v <= 1 ? null : 'must be greater than 0 and at most 1'), true);
  const loi = readQueryNumber(ctx.query, 'expected_length_of_interview_minutes', problems, (v) => (Number.isInteger(v) && v >= 1 && v <= MAX_LENGTH_OF_INTERVIEW_MINUTES ? null : `must be an integer from 1 to ${MAX_LENGTH_OF_INTERVIEW_MINUTES}`), true);
  const cap = feasibilityFillingGoalCap(ctx.version);
  const fillingGoal = readQueryNumber(ctx.query, 'filling_goal', problems, (v) => (Number.isInteger(v) && v >= 1 && v <= cap ? null : `must be an integer from 1 to ${cap}`), false) ?? 1;
  if (problems.length > 0) throw badRequest('The price prediction request is invalid.', problems);
  const market = findLocaleMarket(locale!);
  if (!market) throw new ApiError(422, 'unsupported_locale', `The sandbox has no panel for locale ${locale}.`, { invalidParams: [{ name: 'locale', reason: 'unsupported locale' }] });
  const cpi = predictedCostPerCompleteMinorUnits(market, incidence!, loi!, businessUnitId);
  return ok({
    business_unit_id: businessUnitId,
    locale,
    expected_incidence_rate: incidence,
    expected_length_of_interview_minutes: loi,
    filling_goal: fillingGoal,
    pricing_model: pricingValueOut('rate_card', ctx.version),
    type: pricingValueOut('rate_card', ctx.version),
    business_unit_price_factor: businessUnitPriceFactor(businessUnitId),
    cost_per_interview: moneyFromMinorUnits(cpi),
    total_cost: moneyFromMinorUnits(cpi * fillingGoal),
  });
}

export const feasibilityRoutes: RouteModule = {
  name: 'feasibility',
  routes: [
    { method: 'POST', path: `${P}/target-groups/calculate-feasibility`, handler: calculateFeasibility },
    { method: 'POST', path: `${PROJECT}/target-groups/calculate-feasibility`, versions: LEGACY_VERSIONS, handler: calculateFeasibility },
    { method: 'GET', path: `${P}/business-units/{business_unit_id}/generate-price-prediction`, handler: generatePricePrediction },
  ],
};
