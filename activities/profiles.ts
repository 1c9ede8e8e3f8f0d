// Profile operations: validate, manage (replace all), blended profiles, supplier quota distribution, completes goal.
import { accountPath, callApi, expectObject, targetGroupPath } from './api-call';
import type { ActivityDeps } from './activity-deps';
import { checkCtx, requireArray, requireObject, requireText } from './activity-input';
import type { ApiResponse } from './http/demand-api-client';
import { type InvalidParam } from './http/errors';
import { listAllPages } from './pagination';
import type { ActivityCtx, JsonObject } from './types';
import { fromWireBody, toWireBody } from './version-adapter';

export interface ValidateProfilesInput {
  ctx: ActivityCtx;
  /** Profiles in the 2025-12-18 shape. */
  profiles: JsonObject[];
  /** Other fields of the validation request (e.g. locale), passed through. */
  extra?: JsonObject;
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
  /** The complete new set of profiles; replaces all existing ones. */
  profiles: JsonObject[];
  extra?: JsonObject;
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
    /** POST P/profiles/validate: 204 means valid; a 400/422 answer is returned as `valid: false`, not thrown. */
    async validateProfiles(input: ValidateProfilesInput): Promise<ValidateProfilesOutput> {
      const ctx = checkCtx('validateProfiles', input.ctx);
      const profiles = requireArray('validateProfiles', 'profiles', input.profiles);
      const json = toWireBody({ ...input.extra, profiles }, ctx.apiVersion);
      const res = await callApi(deps.api, ctx, { method: 'POST', path: `${accountPath(ctx)}/profiles/validate`, json, acceptStatuses: [400, 422] });
      if (res.status < 300) return { valid: true };
      const body = (res.body ?? {}) as Record<string, unknown>;
      const out: ValidateProfilesOutput = { valid: false };
      if (typeof body.object === 'string') out.object = body.object;
      if (typeof body.detail === 'string') out.detail = body.detail;
      if (Array.isArray(body.invalid_params)) {
        out.invalidParams = body.invalid_params.map((p: Record<string, unknown>) => ({ name: String(p?.name ?? ''), reason: String(p?.reason ?? '') }));
      }
      return out;
    },

    /** POST TG/profiles/manage-profiles (apply-profiles before 2025-12-18): replaces all profiles of the draft. */
    async manageProfiles(input: ManageProfilesInput): Promise<ProfileOperationOutput> {
      const [ctx, path] = tg('manageProfiles', input);
      const profiles = requireArray('manageProfiles', 'profiles', input.profiles);
      return send(ctx, 'POST', `${path}/profiles/manage-profiles`, { ...input.extra, profiles });
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
      return { items: await listAllPages(deps.api, ctx, { method: 'GET', path: `${accountPath(ctx)}/questions-translation`, query: { locale, question_ids: ids.join(',') } }, 100) };
    },

    /** PUT TG/profiles/completes-goal (update quotas; 200 on success). */
    async updateCompletesGoal(input: ProfileOperationInput): Promise<ProfileOperationOutput> {
      const [ctx, path] = tg('updateCompletesGoal', input);
      const request = requireObject('updateCompletesGoal', 'request', input.request);
      return send(ctx, 'PUT', `${path}/profiles/completes-goal`, request);
    },
  };
}
