// Profile operations: validate, manage (replace all), and the profiling helpers `studyflow plan` asks (supplier
// quota distribution of a draft's profile, the question catalogue's texts).
import { accountPath, callApi, targetGroupPath } from './api-call';
import type { ActivityDeps } from './activity-deps';
import { checkCtx, requireArray, requireObject, requireText } from './activity-input';
import { PanelDistributionAnswer, PanelDistributionRequest, type QuestionProfile } from '../api/wire/profile-helpers';
import { ManageProfilesRequest, ProfileBadRequest, ProfilesResponse, ProfileValidationError, ValidateProfilesRequest } from '../api/wire/profiles';
import { describeShape, readAnswer, wireMismatchFailure } from '../api/wire/read-answer';
import { requestBody } from '../api/wire/request-body';
import { invalidInputFailure, type InvalidParam } from '../api/http/errors';
import { CURRENT_API_VERSION } from '../shared/api-version';
import { listAllPages } from './pagination';
import { LIST_QUESTIONS_TRANSLATION } from '../api/wire/lists';
import type { ActivityCtx, JsonObject } from './types';

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
export interface SupplierQuotaDistributionInput {
  ctx: ActivityCtx;
  /** The reference's PanelDistributionRequestV3 (plan/server-checks.ts distributionRequests). */
  request: JsonObject;
}
export interface SupplierQuotaDistributionOutput {
  /** The profile with each quota target's projected goal, checked against the reference's RequestDraftRegularProfileV3. */
  profile: PanelDistributionAnswer;
}

export interface QuestionTextsInput {
  ctx: ActivityCtx;
  locale: string;
  questionIds: number[];
}
export interface QuestionTextsOutput {
  /** The items of every page of GET P/questions-translation (QuestionResponseProfileFormat). */
  items: QuestionProfile[];
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

    /**
     * get_panel_distribution_draft `POST P/supplier-quota-distribution/draft` PanelDistributionRequestV3 `{locale,
     * completes_goal, profile_adjustment_type, start_at, end_at, collects_pii?, profile}` (one profile of a draft not yet
     * saved; plan/server-checks.ts distributionRequests): 200 with the profile, each quota target carrying the goal
     * projected for it (RequestDraftRegularProfileV3). Asked by `studyflow plan`; writes nothing.
     */
    async supplierQuotaDistribution(input: SupplierQuotaDistributionInput): Promise<SupplierQuotaDistributionOutput> {
      const ctx = currentVersionCtx('supplierQuotaDistribution', input.ctx);
      const json = requestBody('supplierQuotaDistribution', 'get_panel_distribution_draft', PanelDistributionRequest, requireObject('supplierQuotaDistribution', 'request', input.request));
      const req = { method: 'POST', path: `${accountPath(ctx)}/supplier-quota-distribution/draft`, json } as const;
      return { profile: readAnswer({ operation: 'get_panel_distribution_draft', method: req.method, path: req.path }, PanelDistributionAnswer, await callApi(deps.api, ctx, req)) };
    },

    /**
     * account_questions_translation `GET P/questions-translation?locale&id=<ids, comma-separated>` (every page): the
     * questions a study's profiles use, each a QuestionResponseProfileFormat (texts in the locale, `_translated` in
     * English), checked at the boundary.
     */
    async getQuestionTexts(input: QuestionTextsInput): Promise<QuestionTextsOutput> {
      const ctx = checkCtx('getQuestionTexts', input.ctx);
      const locale = requireText('getQuestionTexts', 'locale', input.locale);
      const ids = requireArray('getQuestionTexts', 'questionIds', input.questionIds);
      if (ids.length === 0 || !ids.every((id) => typeof id === 'number' && Number.isInteger(id) && id > 0)) throw invalidInputFailure('getQuestionTexts', 'questionIds must list question ids (positive integers)');
      return { items: await listAllPages(deps.api, ctx, { method: 'GET', path: `${accountPath(ctx)}/questions-translation`, query: { locale, id: ids.join(',') } }, LIST_QUESTIONS_TRANSLATION, deps.listPageSize ?? 100) };
    },
  };
}
