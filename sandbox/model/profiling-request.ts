// The reference's `profiling` object (2025-12-18): on a draft's create and update (ProfilingRequest: profiles
// only, a template only, both, or none), in manage-profiles (ManageProfilesRequestV3) and in validate
// (ValidateProfilesRequestV3, profiles only). Rules:
// - `profile_adjustment_type` is required: nominal (every enabled quota gives completes_goal) or percentage
//   (every enabled quota gives completes_goal_percentage); mixing them is refused (422);
// - a `template_id` (a UUID of a seeded template) takes percentage only; its profiles come first;
// - `profiles`, when given, is a non-empty array in the 2025-12-18 profile shape;
// - a validation failure of profiling answers 422 in the reference's ValidationErrorResponseDemographics
//   `{object: unprocessable_entity_error, title, detail: "Validation error: …", invalid_params: [{error_type, name, reason, detail}]}`.

import { ApiError } from '../core/api-error';
import type { ApiVersion } from './api-version';
import { hasOwn, isRecord } from './json-shape';
import { expandProfileTemplates, findProfileTemplate } from './profile-templates';
import { readProfilesRequest } from './profile-version-translation';
import { RuleViolation } from './rule-violation';
import { ValidationProblems } from './validation-problems';

export type AdjustmentType = 'nominal' | 'percentage';

export interface ProfilingInput {
  adjustment: AdjustmentType;
  templateId: string | null;
  /** Raw 2025-12-18 profile inputs: the template's, then the request's own (ready for validateProfiles). */
  rawProfiles: unknown[];
}

export interface ProfilingReadOptions {
  /** A template may be named (draft, manage-profiles; not validate). */
  template: boolean;
  /** `null` or `{}` stands for no profiling (a draft only). */
  none: boolean;
}

const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

/** The reference's data-validation names for the sandbox's rule codes (InvalidParamData); others are structural. */
const DATA_ERRORS: Record<string, [number, string]> = {
  duplicate_condition: [39, 'duplicate_condition_039'],
  invalid_zip_code: [18, 'invalid_zip_code_018'],
  unknown_question: [15, 'invalid_question_id_015'],
  unknown_option: [20, 'not_supported_question_option_020'],
  template_adjustment: [41, 'template_allows_only_percentage_adjustment_041'],
  nominal_with_percentage: [42, 'nominal_adjustment_cannot_have_percentage_042'],
  percentage_with_nominal: [43, 'percentage_adjustment_cannot_have_nominal_043'],
  quota_sum_below_filling_goal: [10, 'incorrect_sum_of_nominal_010'],
};

/** A 422 of a profile operation in the reference's ValidationErrorResponseDemographics shape (400s pass through). */
export function demographicsError(error: unknown): unknown {
  if (!(error instanceof RuleViolation) || error.status !== 422) return error;
  const codes = error.paramCodes ?? [];
  const params = (error.invalidParams ?? [{ name: 'profiling', reason: error.message }]).map((param, index) => {
    const code = codes[index] ?? error.object;
    const known = DATA_ERRORS[code];
    return known
      ? { error_type: 'data_validation_error', name: `profile_validation_error_${String(known[0]).padStart(3, '0')}`, reason: known[1], detail: `${param.name}: ${param.reason}` }
      : { error_type: 'structural_error', name: param.name, reason: code, detail: param.reason };
  });
  const body = { object: 'unprocessable_entity_error', title: 'profile request validation', detail: `Validation error: ${error.message}`, invalid_params: params };
  return new ApiError(422, 'unprocessable_entity_error', body.detail, { rawBody: body });
}

/** Reads a `profiling` object; undefined for "no profiling" where options.none allows it. Throws 400/422. */
export function readProfiling(raw: unknown, path: string, version: ApiVersion, options: ProfilingReadOptions): ProfilingInput | undefined {
  if (options.none && (raw === null || (isRecord(raw) && Object.keys(raw).length === 0))) return undefined;
  const problems = new ValidationProblems();
  if (!isRecord(raw)) {
    problems.shape(path, 'must be a profiling object {profile_adjustment_type, profiles, template_id?}');
    problems.throwIfAny('profiling');
    return undefined;
  }
  const allowed = options.template ? ['profile_adjustment_type', 'profiles', 'template_id'] : ['profile_adjustment_type', 'profiles'];
  for (const key of Object.keys(raw)) if (!allowed.includes(key)) problems.shape(`${path}.${key}`, `is not a field of profiling here (${allowed.join(', ')})`);
  const adjustment = raw.profile_adjustment_type;
  if (adjustment !== 'nominal' && adjustment !== 'percentage') problems.shape(`${path}.profile_adjustment_type`, 'must be nominal or percentage');
  let templateId: string | null = null;
  if (hasOwn(raw, 'template_id') && options.template) {
    if (typeof raw.template_id !== 'string' || !UUID.test(raw.template_id)) problems.shape(`${path}.template_id`, 'must be a profile template id (a UUID)');
    else if (!findProfileTemplate(raw.template_id)) problems.rule('unknown_profile_template', `${path}.template_id`, `no profile template ${raw.template_id}`);
    else templateId = raw.template_id;
  }
  const hasProfiles = hasOwn(raw, 'profiles');
  if (hasProfiles && (!Array.isArray(raw.profiles) || raw.profiles.length === 0)) problems.shape(`${path}.profiles`, 'must be a non-empty array of profiles');
  if (!hasProfiles && !hasOwn(raw, 'template_id') && !problems.hasShapeProblems) problems.shape(`${path}.profiles`, 'is required (or a template_id)');
  problems.throwIfAny('profiling');
  if (templateId !== null && adjustment !== 'percentage') problems.rule('template_adjustment', `${path}.profile_adjustment_type`, 'a profile template takes percentage adjustment only');
  const own = hasProfiles ? (raw.profiles as unknown[]) : [];
  checkAdjustment(own, adjustment as AdjustmentType, `${path}.profiles`, problems);
  problems.throwIfAny('profiling');
  const translated = own.length ? readProfilesRequest({ profiles: own }, version) : [];
  return { adjustment: adjustment as AdjustmentType, templateId, rawProfiles: [...(templateId ? expandProfileTemplates([templateId]) : []), ...(translated as unknown[])] };
}

/** nominal: every quota gives completes_goal only; percentage: completes_goal_percentage only. */
function checkAdjustment(profiles: unknown[], adjustment: AdjustmentType, path: string, problems: ValidationProblems): void {
  profiles.forEach((profile, p) => {
    if (!isRecord(profile) || !Array.isArray(profile.targets)) return;
    profile.targets.forEach((target, t) => {
      const quota = isRecord(target) && isRecord(target.quota) ? target.quota : undefined;
      if (!quota) return;
      const at = `${path}[${p}].targets[${t}].quota`;
      const goal = quota.completes_goal !== undefined && quota.completes_goal !== null;
      const percentage = quota.completes_goal_percentage !== undefined && quota.completes_goal_percentage !== null;
      if (adjustment === 'nominal' && percentage) problems.rule('nominal_with_percentage', `${at}.completes_goal_percentage`, 'a nominal profiling gives completes_goal, not completes_goal_percentage');
      if (adjustment === 'percentage' && goal) problems.rule('percentage_with_nominal', `${at}.completes_goal`, 'a percentage profiling gives completes_goal_percentage, not completes_goal');
    });
  });
}
