// Profile operations: validate, manage (replace all), blended profiles, supplier quota distribution, completes goal.
import { accountPath, callApi, expectObject, targetGroupPath } from './api-call';
import type { ActivityDeps } from './activity-deps';
import { checkCtx, requireArray, requireObject, requireText } from './activity-input';
import { ManageProfilesRequest, ProfileBadRequest, ProfilesResponse, ProfileValidationError, ValidateProfilesRequest } from './http/wire/profiles';
import { describeShape, readAnswer, wireMismatchFailure } from './http/wire/read-answer';
import { requestBody } from './http/wire/request-body';
import type { ApiResponse } from './http/demand-api-client';
import { invalidInputFailure, type InvalidParam } from './http/errors';
import { CURRENT_API_VERSION } from '../shared/api-version';
import { listAllPages } from './pagination';
import { LIST_QUESTIONS_TRANSLATION } from './http/wire/lists';
import type { ActivityCtx, JsonObject } from './types';
import { fromWireBody, toWireBody } from './version-adapter';

export interface ValidateProfilesInput {
  ctx: ActivityCtx;
  /** The reference's ValidateProfilesRequestV3 `{locale, completes_goal, profiling}` (plan/profiling.ts validateProfilesBody). */
  request: JsonObject;
}
export interface ValidateProfilesOutput {
  valid: boolean;
  /** The API error object when invalid, e.g. `bad_request`. */
  object?: string;
  detail?: string;
  invalidParams?: InvalidParam[];
}
export interface TargetGroupProfilesInput {
  ctx: ActivityCtx;
  projectId: string;
  targetGroupId: string;
}
export interface ManageProfilesInput extends TargetGroupProfilesInput {
  /**
   * The reference's ManageProfilesRequestV3 `{completes_goal, profiling}` (plan/profiling.ts manageProfilesBody):
   * the complete new set, which replaces every profile of the launched target group.
   */
  request: JsonObject;
}
export interface ManageProfilesOutput {
  /** The answer, checked against the reference's ProfilesResponseV3. */
  result: ProfilesResponse;
}
export interface ProfileOperationInput extends TargetGroupProfilesInput {
  request: JsonObject;
}
export interface AccountProfileOperationInput {
  ctx: ActivityCtx;
  request: JsonObject;
}
export interface ProfileOperationOutput {
  /** The API's answer in 2025-12-18 names; `{}` when it answered without a body. */
  result: Record<string, unknown>;
}

export interface QuestionTextsInput {
  ctx: ActivityCtx;
  locale: string;
  questionIds: number[];
}
export interface QuestionTextsOutput {
  /** The items of every page of GET P/questions-translation, as the API returns them. */
  items: unknown[];
}

/**
 * The context of an operation that exists on the reference's wire in 2025-12-18 only (its profiling shapes;
 * the spec's version-forward policy): another version is a caller's bug, non-retryable `invalid_activity_input`.
 */
function currentVersionCtx(activity: string, raw: ActivityCtx): ActivityCtx {
  const ctx = checkCtx(activity, raw);
  if (ctx.apiVersion !== CURRENT_API_VERSION) throw invalidInputFailure(activity, `profiles travel in the ${CURRENT_API_VERSION} shapes; the call asked for API version ${ctx.apiVersion}`);
  return ctx;
}

export function profileActivities(deps: ActivityDeps) {
  async function send(ctx: ActivityCtx, method: 'POST' | 'PUT', path: string, json: JsonObject): Promise<ProfileOperationOutput> {
    const req = { method, path, json: toWireBody(json, ctx.apiVersion) };
    const res: ApiResponse = await callApi(deps.api, ctx, req);
    if (res.body === undefined) return { result: {} };
    return { result: fromWireBody(expectObject(req, res), ctx.apiVersion) };
  }
  function tg(activity: string, input: TargetGroupProfilesInput): [ActivityCtx, string] {
    const ctx = checkCtx(activity, input.ctx);
    const p = requireText(activity, 'projectId', input.projectId);
    const t = requireText(activity, 'targetGroupId', input.targetGroupId);
    return [ctx, targetGroupPath(ctx, p, t)];
  }

  return {
    /**
     * validate_profiles `POST P/profiles/validate` `{locale, completes_goal, profiling}`: 204 means valid; a 400
     * or 422 answer (checked against the reference's error shapes) is returned as `valid: false`, not thrown.
     */
    async validateProfiles(input: ValidateProfilesInput): Promise<ValidateProfilesOutput> {
      const ctx = currentVersionCtx('validateProfiles', input.ctx);
      const json = requestBody('validateProfiles', 'validate_profiles', ValidateProfilesRequest, requireObject('validateProfiles', 'request', input.request));
      const req = { method: 'POST', path: `${accountPath(ctx)}/profiles/validate`, json, acceptStatuses: [400, 422] } as const;
      const res = await callApi(deps.api, ctx, req);
      const call = { operation: 'validate_profiles', method: req.method, path: req.path };
      if (res.status < 300) {
        if (res.status !== 204 || res.body !== undefined) throw wireMismatchFailure(call, res.status, describeShape(res.body), ['a valid configuration is answered 204 without a body']);
        return { valid: true };
      }
      const body = readAnswer(call, res.status === 400 ? ProfileBadRequest : ProfileValidationError, res);
      const out: ValidateProfilesOutput = { valid: false };
      if (typeof body.object === 'string') out.object = body.object;
      if (typeof body.detail === 'string') out.detail = body.detail;
      if (body.invalid_params) out.invalidParams = body.invalid_params.map((p) => ({ name: p.name, reason: p.reason }));
      return out;
    },

    /**
     * manage_target_group_profiles `POST TG/profiles/manage-profiles` `{completes_goal, profiling}`: replaces
     * every profile of a launched target group (a draft's profiles travel in its own `profiling`); 201 ProfilesResponseV3.
     */
    async manageProfiles(input: ManageProfilesInput): Promise<ManageProfilesOutput> {
      const [, path] = tg('manageProfiles', input);
      const ctx = currentVersionCtx('manageProfiles', input.ctx);
      const json = requestBody('manageProfiles', 'manage_target_group_profiles', ManageProfilesRequest, requireObject('manageProfiles', 'request', input.request));
      const req = { method: 'POST', path: `${path}/profiles/manage-profiles`, json } as const;
      return { result: readAnswer({ operation: 'manage_target_group_profiles', method: req.method, path: req.path }, ProfilesResponse, await callApi(deps.api, ctx, req)) };
    },

    /** POST P/drafts/generate-blended-profile */
    async generateBlendedProfile(input: AccountProfileOperationInput): Promise<ProfileOperationOutput> {
      const ctx = checkCtx('generateBlendedProfile', input.ctx);
      const request = requireObject('generateBlendedProfile', 'request', input.request);
      return send(ctx, 'POST', `${accountPath(ctx)}/drafts/generate-blended-profile`, request);
    },

    /** POST TG/profiles/create-blended-profile */
    async createBlendedProfile(input: ProfileOperationInput): Promise<ProfileOperationOutput> {
      const [ctx, path] = tg('createBlendedProfile', input);
      const request = requireObject('createBlendedProfile', 'request', input.request);
      return send(ctx, 'POST', `${path}/profiles/create-blended-profile`, request);
    },

    /** POST P/supplier-quota-distribution/draft (panel-distribution before 2025-12-18) */
    async supplierQuotaDistribution(input: AccountProfileOperationInput): Promise<ProfileOperationOutput> {
      const ctx = checkCtx('supplierQuotaDistribution', input.ctx);
      const request = requireObject('supplierQuotaDistribution', 'request', input.request);
      return send(ctx, 'POST', `${accountPath(ctx)}/supplier-quota-distribution/draft`, request);
    },

    /** GET P/questions-translation (every page): the texts of the questions a study's profiles use, in a locale. */
    async getQuestionTexts(input: QuestionTextsInput): Promise<QuestionTextsOutput> {
      const ctx = checkCtx('getQuestionTexts', input.ctx);
      const locale = requireText('getQuestionTexts', 'locale', input.locale);
      const ids = requireArray('getQuestionTexts', 'questionIds', input.questionIds);
      return { items: await listAllPages(deps.api, ctx, { method: 'GET', path: `${accountPath(ctx)}/questions-translation`, query: { locale, question_ids: ids.join(',') } }, LIST_QUESTIONS_TRANSLATION, 100) };
    },

    /** PUT TG/profiles/completes-goal (update quotas; 200 on success). */
    async updateCompletesGoal(input: ProfileOperationInput): Promise<ProfileOperationOutput> {
      const [ctx, path] = tg('updateCompletesGoal', input);
      const request = requireObject('updateCompletesGoal', 'request', input.request);
      return send(ctx, 'PUT', `${path}/profiles/completes-goal`, request);
    },
  };
}
