// Profile operations: validate, manage (replace all), and the profiling helpers `studyflow plan` asks (supplier
// quota distribution of a draft's profile, the question catalogue's texts); the operations are api/operations/profiles.ts.
import { getQuestionTexts, manageProfiles, requireProfileShapesVersion, supplierQuotaDistribution, validateProfiles } from '../api/operations/profiles';
import { activityCaller } from './api-call';
import type { ActivityDeps } from './activity-deps';
import { checkCtx, requireArray, requireObject, requireText } from './activity-input';
import type { PanelDistributionAnswer, QuestionProfile } from '../api/wire/profile-helpers';
import type { ProfilesResponse } from '../api/wire/profiles';
import { invalidInputFailure, type InvalidParam } from '../api/http/errors';
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
  requireProfileShapesVersion(activity, ctx.apiVersion);
  return ctx;
}

export function profileActivities(deps: ActivityDeps) {
  return {
    /** validate_profiles: 204 is valid; a 400 or 422 answer comes back as `valid: false`, not thrown. */
    async validateProfiles(input: ValidateProfilesInput): Promise<ValidateProfilesOutput> {
      const ctx = currentVersionCtx('validateProfiles', input.ctx);
      const request = requireObject('validateProfiles', 'request', input.request);
      return await validateProfiles(activityCaller(deps, ctx), request);
    },

    /** manage_target_group_profiles: replaces every profile of a launched target group. */
    async manageProfiles(input: ManageProfilesInput): Promise<ManageProfilesOutput> {
      checkCtx('manageProfiles', input.ctx);
      const projectId = requireText('manageProfiles', 'projectId', input.projectId);
      const targetGroupId = requireText('manageProfiles', 'targetGroupId', input.targetGroupId);
      const ctx = currentVersionCtx('manageProfiles', input.ctx);
      const request = requireObject('manageProfiles', 'request', input.request);
      return { result: await manageProfiles(activityCaller(deps, ctx), { projectId, targetGroupId, request }) };
    },

    /** get_panel_distribution_draft: one draft profile's projected quota goals. Asked by `studyflow plan`; writes nothing. */
    async supplierQuotaDistribution(input: SupplierQuotaDistributionInput): Promise<SupplierQuotaDistributionOutput> {
      const ctx = currentVersionCtx('supplierQuotaDistribution', input.ctx);
      const request = requireObject('supplierQuotaDistribution', 'request', input.request);
      return { profile: await supplierQuotaDistribution(activityCaller(deps, ctx), request) };
    },

    /** account_questions_translation (every page): the questions a study's profiles use. */
    async getQuestionTexts(input: QuestionTextsInput): Promise<QuestionTextsOutput> {
      const ctx = checkCtx('getQuestionTexts', input.ctx);
      const locale = requireText('getQuestionTexts', 'locale', input.locale);
      const ids = requireArray('getQuestionTexts', 'questionIds', input.questionIds);
      if (ids.length === 0 || !ids.every((id) => typeof id === 'number' && Number.isInteger(id) && id > 0)) throw invalidInputFailure('getQuestionTexts', 'questionIds must list question ids (positive integers)');
      return { items: await getQuestionTexts(activityCaller(deps, ctx), { locale, questionIds: ids as number[], pageSize: deps.listPageSize }) };
    },
  };
}
