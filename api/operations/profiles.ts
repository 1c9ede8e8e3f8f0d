// Profile operations: validate, manage (replace all), and the profiling helpers `studyflow plan` asks (supplier
// quota distribution of a draft's profile, the question catalogue's texts). Profiles travel in the 2025-12-18
// shapes only: the caller's version is the adapter's to check.
import { invalidInputFailure, type InvalidParam } from '../http/errors';
import { CURRENT_API_VERSION, type ApiVersion } from '../../shared/api-version';
import { LIST_QUESTIONS_TRANSLATION } from '../wire/lists';
import { PanelDistributionAnswer, PanelDistributionRequest, type QuestionProfile } from '../wire/profile-helpers';
import { ManageProfilesRequest, ProfileBadRequest, ProfilesResponse, ProfileValidationError, ValidateProfilesRequest } from '../wire/profiles';
import { describeShape, readAnswer, wireMismatchFailure } from '../wire/read-answer';
import { requestBody } from '../wire/request-body';
import { accountPath, targetGroupPath, type ApiCaller } from './caller';
import type { TargetGroupRef } from './fielding';
import { DEFAULT_LIST_PAGE_SIZE, listAllPages } from './pagination';
import type { JsonObject } from './types';

/**
 * Profiles travel in the 2025-12-18 shapes only (the spec's version-forward policy): a profile operation asked in
 * another version is its caller's bug, the non-retryable `invalid_activity_input` naming `operation`.
 */
export function requireProfileShapesVersion(operation: string, apiVersion: ApiVersion): void {
  if (apiVersion !== CURRENT_API_VERSION) throw invalidInputFailure(operation, `profiles travel in the ${CURRENT_API_VERSION} shapes; the call asked for API version ${apiVersion}`);
}

export interface ProfileValidation {
  valid: boolean;
  /** The API error object when invalid, e.g. `bad_request`. */
  object?: string;
  detail?: string;
  invalidParams?: InvalidParam[];
}

/**
 * validate_profiles `POST P/profiles/validate` `{locale, completes_goal, profiling}`: 204 means valid; a 400
 * or 422 answer (checked against the reference's error shapes) is returned as `valid: false`, not thrown.
 */
export async function validateProfiles(caller: ApiCaller, request: JsonObject): Promise<ProfileValidation> {
  const json = requestBody('validateProfiles', 'validate_profiles', ValidateProfilesRequest, request);
  const req = { method: 'POST', path: `${accountPath(caller)}/profiles/validate`, json, acceptStatuses: [400, 422] } as const;
  const res = await caller.send(req);
  const call = { operation: 'validate_profiles', method: req.method, path: req.path };
  if (res.status < 300) {
    if (res.status !== 204 || res.body !== undefined) throw wireMismatchFailure(call, res.status, describeShape(res.body), ['a valid configuration is answered 204 without a body']);
    return { valid: true };
  }
  const body = readAnswer(call, res.status === 400 ? ProfileBadRequest : ProfileValidationError, res);
  const out: ProfileValidation = { valid: false };
  if (typeof body.object === 'string') out.object = body.object;
  if (typeof body.detail === 'string') out.detail = body.detail;
  if (body.invalid_params) out.invalidParams = body.invalid_params.map((p) => ({ name: p.name, reason: p.reason }));
  return out;
}

/**
 * manage_target_group_profiles `POST TG/profiles/manage-profiles` `{completes_goal, profiling}`: replaces
 * every profile of a launched target group (a draft's profiles travel in its own `profiling`); 201 ProfilesResponseV3.
 */
export async function manageProfiles(caller: ApiCaller, input: TargetGroupRef & { request: JsonObject }): Promise<ProfilesResponse> {
  const json = requestBody('manageProfiles', 'manage_target_group_profiles', ManageProfilesRequest, input.request);
  const req = { method: 'POST', path: `${targetGroupPath(caller, input.projectId, input.targetGroupId)}/profiles/manage-profiles`, json } as const;
  return readAnswer({ operation: 'manage_target_group_profiles', method: req.method, path: req.path }, ProfilesResponse, await caller.send(req));
}

/**
 * get_panel_distribution_draft `POST P/supplier-quota-distribution/draft` PanelDistributionRequestV3 `{locale,
 * completes_goal, profile_adjustment_type, start_at, end_at, collects_pii?, profile}` (one profile of a draft not yet
 * saved; plan/server-checks.ts distributionRequests): 200 with the profile, each quota target carrying the goal
 * projected for it (RequestDraftRegularProfileV3). Writes nothing.
 */
export async function supplierQuotaDistribution(caller: ApiCaller, request: JsonObject): Promise<PanelDistributionAnswer> {
  const json = requestBody('supplierQuotaDistribution', 'get_panel_distribution_draft', PanelDistributionRequest, request);
  const req = { method: 'POST', path: `${accountPath(caller)}/supplier-quota-distribution/draft`, json } as const;
  return readAnswer({ operation: 'get_panel_distribution_draft', method: req.method, path: req.path }, PanelDistributionAnswer, await caller.send(req));
}

/**
 * account_questions_translation `GET P/questions-translation?locale&id=<ids, comma-separated>` (every page): the
 * questions a study's profiles use, each a QuestionResponseProfileFormat (texts in the locale, `_translated` in
 * English), checked at the boundary.
 */
export async function getQuestionTexts(caller: ApiCaller, input: { locale: string; questionIds: number[]; pageSize?: number }): Promise<QuestionProfile[]> {
  const req = { method: 'GET', path: `${accountPath(caller)}/questions-translation`, query: { locale: input.locale, id: input.questionIds.join(',') } } as const;
  return await listAllPages(caller, req, LIST_QUESTIONS_TRANSLATION, input.pageSize ?? DEFAULT_LIST_PAGE_SIZE);
}
