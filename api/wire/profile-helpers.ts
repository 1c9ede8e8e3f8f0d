// The profiling helpers `studyflow plan` asks, on the wire as the reference writes them: get_panel_distribution_draft
// (PanelDistributionRequestV3 -> 200 RequestDraftRegularProfileV3, the profile with each quota target's projected
// goal) and the items of account_questions_translation (QuestionResponseProfileFormat).
import { z } from 'zod';
import { CompletesGoal, quotasMatchAdjustment, ResponseCondition, WireProfileRequest } from './profiles';

/**
 * PanelDistributionRequestV3 (get_panel_distribution_draft): one profile of a draft not yet saved, with the target
 * group's completes goal and fielding window; no supplier allocation (the reference: not yet supported). The
 * adjustment type names the quotas' kind, as in a draft's profiling.
 */
export const PanelDistributionRequest = z
  .strictObject({
    locale: z.string().min(1),
    completes_goal: CompletesGoal,
    profile_adjustment_type: z.enum(['percentage', 'nominal']),
    start_at: z.string().min(1),
    end_at: z.string().min(1),
    collects_pii: z.boolean().optional(),
    profile: WireProfileRequest,
  })
  .superRefine((request, ctx) => quotasMatchAdjustment({ profile_adjustment_type: request.profile_adjustment_type, profiles: [request.profile] }, ctx));

/** A target of the distribution's answer: its conditions, and the quota with the goal projected for it. */
const DistributedTarget = z.looseObject({
  name: z.string().optional(),
  conditions: z.array(ResponseCondition).min(1),
  quota: z.looseObject({ name: z.string().optional(), completes_goal: z.number().int().min(0).optional(), completes_goal_percentage: z.number().min(0).max(100).optional() }).optional(),
});
/** 200 of get_panel_distribution_draft: the profile (RequestDraftRegularProfileV3) with each quota target's goal. */
export const PanelDistributionAnswer = z.looseObject({
  object: z.enum(['regular', 'blended']),
  name: z.string().optional(),
  quotas_enabled: z.boolean(),
  targets: z.array(DistributedTarget).min(1),
});
export type PanelDistributionAnswer = z.infer<typeof PanelDistributionAnswer>;

/** QuestionQuotaDetailsV3: an answer of a question (`text` in the locale, `text_translated` in the translation language) and its conditions. */
const QuestionTarget = z.looseObject({ name: z.string().optional(), text: z.string(), text_translated: z.string().optional(), conditions: z.array(ResponseCondition).min(1) });
/** RequestDraftNoQuotaV3: the "no conditions" form of a question's targets (range and open-ended questions may list none). */
const QuestionNoQuotaTarget = z.looseObject({ object: z.literal('nominal'), conditions: z.array(ResponseCondition).min(1) });

/**
 * QuestionResponseProfileFormat: one question of account_questions_translation, in the profile vocabulary. It has no
 * id of its own: its targets' conditions name the question (`question_id`) and, for a selection, the `option`.
 */
export const QuestionProfile = z.looseObject({
  object: z.literal('regular'),
  name: z.string(),
  description: z.string(),
  description_translated: z.string().optional(),
  quotas_enabled: z.boolean(),
  targets: z.union([z.array(QuestionTarget).min(1), z.array(QuestionNoQuotaTarget), z.null()]),
  option_mask: z.string().optional(),
  standard: z.boolean(),
  profile_condition_type: z.enum(['Single Punch', 'Multi Punch', 'Dummy', 'Text - Open-end', 'Numeric - Open-end']),
  classification_id: z.number().int().optional(),
  classification_code: z.string().optional(),
});
export type QuestionProfile = z.infer<typeof QuestionProfile>;
