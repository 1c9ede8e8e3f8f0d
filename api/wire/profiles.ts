// Profiles on the wire, written from the reference: the draft's `profiling` (ProfilingRequest on create and
// update, ProfilingResponse on GET), manage_target_group_profiles (ManageProfilesRequestV3 -> 201
// ProfilesResponseV3, 422 ValidationErrorResponseDemographics) and validate_profiles
// (ValidateProfilesRequestV3 -> 204, 400 BadRequestErrorResponseDemographics, 422 as manage). The profiling
// helpers `studyflow plan` asks are in profile-helpers.ts.
import { z } from 'zod';

/** QuestionID. */
const QuestionId = z.number().int();
/** CompletesGoal: a whole number of at least 1. */
export const CompletesGoal = z.number().int().min(1);

/** ProfileTargetsSelectionConditionsV3. */
const SelectionCondition = z.strictObject({ object: z.literal('selection'), question_id: QuestionId, option: z.string() });
/** ProfileTargetsRangeConditionsV3: min and max 1 to 99. */
const RangeCondition = z.strictObject({ object: z.literal('range'), question_id: QuestionId, min: z.number().int().min(1).max(99), max: z.number().int().min(1).max(99) });
/** ProfileTargetsOpenEndedConditionsV3: every answer (values empty or null), or 1 to 10,000 listed answers. */
const OpenEndedCondition = z.union([
  z.strictObject({ object: z.literal('open_ended'), question_id: QuestionId, allow_all_values: z.literal(true), open_ended_values: z.array(z.string()).max(0).nullable() }),
  z.strictObject({ object: z.literal('open_ended'), question_id: QuestionId, allow_all_values: z.literal(false), open_ended_values: z.array(z.string()).min(1).max(10_000) }),
]);
/** InterlockProfileConditionsV3: selection, range or open-ended (there is no zip-code kind). */
export const WireCondition = z.union([SelectionCondition, RangeCondition, OpenEndedCondition]);

const Conditions = z.array(WireCondition).min(1);
/** RequestDraftQuotaNominalV3 / RequestDraftQuotaPercentageV3 / RequestDraftNoQuotaV3. */
const NominalTarget = z.strictObject({ conditions: Conditions, quota: z.strictObject({ name: z.string().optional(), completes_goal: z.number().int().min(0) }) });
const PercentageTarget = z.strictObject({
  conditions: Conditions,
  quota: z.strictObject({ name: z.string().optional(), completes_goal_percentage: z.number().min(0).max(100) }),
});
const NoQuotaTarget = z.strictObject({ object: z.literal('nominal'), conditions: Conditions });
/** RequestDraftQuotaV3: the targets of one profile are all nominal, all percentages, or all without a quota. */
const Targets = z.union([z.array(NominalTarget).min(1), z.array(PercentageTarget).min(1), z.array(NoQuotaTarget).min(1)]);

/** RequestDraftRegularProfileV3: a regular profile, or a blended one (named; `blended_type` interlock or control). */
export const WireProfileRequest = z.union([
  z.strictObject({ object: z.literal('regular'), name: z.string().optional(), quotas_enabled: z.boolean(), targets: Targets }),
  z.strictObject({ object: z.literal('blended'), blended_type: z.enum(['interlock', 'control']).optional(), name: z.string(), quotas_enabled: z.boolean(), targets: Targets }),
]);
const Profiles = z.array(WireProfileRequest).min(1);
/** ProfileTemplateId: a UUID (written as the study format checks it: hex digits in 8-4-4-4-12 groups). */
const TemplateId = z.string().regex(/^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/);

/** Own profiles with either adjustment type (ProfilingDraftRequest). */
const OnlyProfiles = z.strictObject({ profile_adjustment_type: z.enum(['percentage', 'nominal']), profiles: Profiles });
/** A template, alone or with own profiles: percentages only (ProfileTemplateIdWithProfileAdjustmentType, ProfilingDraftRequestWithTemplate). */
const WithTemplate = z.strictObject({ template_id: TemplateId, profile_adjustment_type: z.literal('percentage'), profiles: Profiles.optional() });

/**
 * ProfilingRequest (nullable: no profiling): profiles only, template only, both, or null. The adjustment type must match the quotas
 * (nominal: completes_goal; percentage: completes_goal_percentage), which the reference checks (042/043).
 */
type ProfilingShape = { profile_adjustment_type: 'percentage' | 'nominal'; profiles?: z.infer<typeof Profiles> };
export function quotasMatchAdjustment(profiling: ProfilingShape, ctx: z.RefinementCtx): void {
  if (!profiling.profiles) return;
  const wanted = profiling.profile_adjustment_type === 'nominal' ? 'completes_goal' : 'completes_goal_percentage';
  profiling.profiles.forEach((profile, p) =>
    profile.targets.forEach((target, t) => {
      if ('quota' in target && !(wanted in target.quota)) {
        ctx.addIssue({ code: 'custom', path: ['profiles', p, 'targets', t, 'quota'], message: `a ${profiling.profile_adjustment_type} profiling needs ${wanted} in every quota` });
      }
    }),
  );
}
export const ProfilingBody = z.union([OnlyProfiles, WithTemplate]).superRefine(quotasMatchAdjustment);
export const ProfilingRequest = ProfilingBody.nullable();

/** ManageProfilesRequestV3: the complete set for a launched target group, with its completes goal. */
export const ManageProfilesRequest = z.strictObject({ completes_goal: CompletesGoal, profiling: ProfilingBody });

/** ValidateProfilesRequestV3: own profiles, no template. */
export const ValidateProfilesRequest = z.strictObject({ locale: z.string().min(1), completes_goal: CompletesGoal, profiling: OnlyProfiles.superRefine(quotasMatchAdjustment) });

/** ResponseProfileConditionsV3 (conditions may carry their names). */
export const ResponseCondition = z.looseObject({ object: z.enum(['selection', 'range', 'open_ended']), question_id: QuestionId });
/** TargetGroupsDraftQuotaDetailsV3 / QuotaDetailsV3: a target with an id, conditions and maybe a quota. */
const ResponseTarget = z.looseObject({
  id: z.string().min(1),
  conditions: z.array(ResponseCondition).min(1),
  quota: z
    .looseObject({
      completes_goal_percentage: z.number(),
      quota_nominal: z.number().int(),
      completes_goal: z.number().int(),
      /** QuotaDetailsV3 of a launched group: its completes and prescreens so far (optional in the reference). */
      completes: z.number().int().min(0).optional(),
      prescreens: z.number().int().min(0).optional(),
    })
    .optional(),
});
/** DraftRegularProfileV3 / RegularProfileV3. */
const ResponseProfile = z.looseObject({
  object: z.enum(['regular', 'blended']),
  id: z.string().min(1),
  quotas_enabled: z.boolean(),
  name: z.string(),
  description: z.string(),
  targets: z.array(ResponseTarget).min(1),
});

/** ProfilingResponse: the draft's profiling on GET (profiles, with a template or not), or none (null or `{}`). */
export const ProfilingResponse = z.union([
  z.looseObject({ template_id: z.string().optional(), profile_adjustment_type: z.enum(['percentage', 'nominal']), profiles: z.array(ResponseProfile).min(1) }),
  z.strictObject({}),
  z.null(),
]);

/** ProfilesResponseV3: 201 of manage-profiles. */
export const ProfilesResponse = z.looseObject({ locale: z.string(), completes_goal: CompletesGoal, profiles: z.array(ResponseProfile).nullable().optional() });
export type ProfilesResponse = z.infer<typeof ProfilesResponse>;

/** ValidationErrorResponseDemographics (422 of manage and validate). */
export const ProfileValidationError = z.looseObject({
  object: z.string().optional(),
  title: z.string().optional(),
  detail: z.string().optional(),
  invalid_params: z
    .array(
      z.union([
        z.looseObject({ error_type: z.literal('data_validation_error'), name: z.string(), reason: z.string(), detail: z.string().optional() }),
        z.looseObject({ error_type: z.literal('structural_error'), name: z.string(), reason: z.string(), detail: z.string().optional() }),
      ]),
    )
    .optional(),
});

/** BadRequestErrorResponseDemographics (400 of validate). */
export const ProfileBadRequest = z.looseObject({ object: z.string(), detail: z.string(), invalid_params: z.array(z.looseObject({ name: z.string(), reason: z.string() })).optional() });
