// Draft target group operations on the wire (reference: create_target_group, update_target_group).
// The body is the reference's CreateDraftTargetGroupRequest / UpdateDraftTargetGroupRequest; under the `sandbox`
// profile with the spec's `filling_goal` (a listed spec deviation, api/http/dialect.ts) and the spec's
// `respondent_statuses` on activity-exclusion items, under `cint` with the reference's `completes_goal` and items
// `{type, id, duration?}` only.
import { z } from 'zod';
import type { ApiProfileName } from '../http/dialect';
import { completesGoalField, speaksSpec } from '../http/dialect';
import { CUSTOMER_REFERENCE_PATTERN, ResourceId } from './common';
import { UserId } from './projects';
import { ProfilingRequest } from './profiles';

const Timestamp = z.iso.datetime({ offset: true });

/** TargetGroupFieldingSpecification. */
export const FieldingSpecification = z.strictObject({ start_at: Timestamp, end_at: Timestamp });

/** The draft fields studyflow sets, by their reference names, apart from the goal and the activity exclusions (which differ by dialect). */
const DRAFT_FIELDS = {
  /** TargetGroupName: 5 to 128 characters. */
  name: z.string().min(5).max(128),
  /** BusinessUnitIDWithReference: text. */
  business_unit_id: z.string().regex(/^\d+$/),
  locale: z.string(),
  live_url: z.string().max(3000).nullable().optional(),
  test_url: z.string().max(3000).nullable().optional(),
  /** TargetGroupExpectedIncidenceRate: 0 to 1. */
  expected_incidence_rate: z.number().min(0).max(1),
  /** TargetGroupExpectedLengthOfInterview: 1 to 45 minutes. */
  expected_length_of_interview_minutes: z.number().int().min(1).max(45),
  project_manager_id: UserId,
  collects_pii: z.boolean(),
  /** StudyTypeCodeWithReference. */
  study_type_code: z.string().optional(),
  /** TargetGroupClientCpiMonetaryAmountRequestModel: money, the value a decimal in a string. */
  client_cost_per_interview_note: z.strictObject({ value: z.string().regex(/^\d+(\.\d+)?$/), currency_code: z.string().regex(/^[A-Z]{3}$/) }).optional(),
  fielding_specification: FieldingSpecification,
  /** CreateDraftAllocationSpecificationGroupRequest, plus the spec's recontact allocations template (`template_id`). */
  allocations: z
    .strictObject({
      open_exchange_allocations: z.strictObject({
        blocked_supplier_ids: z.array(z.string()),
        exchange_min_percentage: z.number().int().min(0).max(100),
        exchange_max_percentage: z.number().int().min(0).max(100),
        groups: z.array(z.strictObject({ group_name: z.string(), min_percentage: z.number().int().min(0).max(100), max_percentage: z.number().int().min(0).max(100), suppliers: z.array(z.string()) })),
      }),
      private_exchange_allocations: z
        .strictObject({
          blocked_supplier_ids: z.array(z.string()),
          groups: z.array(z.strictObject({ group_name: z.string(), min_percentage: z.number().int().min(0).max(100), max_percentage: z.number().int().min(0).max(100), supplier_id: z.string() })),
        })
        .optional(),
      template_id: z.string().optional(),
    }),
  /** FieldingAssistantModulesAssignmentRequestModel (every module optional). */
  fielding_assistant_assignment: z
    .strictObject({
      pricing: z.looseObject({ type: z.enum(['dynamic', 'rate_card']) }).nullable().optional(),
      quota_overlay: z.strictObject({ prevent_overfill: z.boolean(), balance_fill: z.boolean() }).optional(),
      pacing: z.looseObject({ type: z.enum(['linear', 'adaptive', 'gemini']) }).nullable().optional(),
      soft_launch: z.strictObject({ end_at: Timestamp, filling_goal_percentage: z.number().int().min(1).max(100), demographics_strictness_percentage: z.number().int().min(0).max(100) }).optional(),
    }),
  /** ProfilingRequest: the draft's profiles travel in its own body (api/wire/profiles.ts); null is its "No profiling". */
  profiling: ProfilingRequest.nullable().optional(),
  target_group_customer_reference_number: z.string().min(3).max(128).regex(CUSTOMER_REFERENCE_PATTERN).nullable().optional(),
};

const Goal = z.number().int().min(1);

/** RespondentActivityExclusionsIdObjectRequest: `{type, id, duration?}`. */
export const ActivityExclusionRequestItem = z.strictObject({ type: z.enum(['target-group', 'project']), id: z.string().min(1), duration: z.string().optional() });
/** The spec's item: the reference's plus `respondent_statuses`. */
export const SpecActivityExclusionRequestItem = ActivityExclusionRequestItem.extend({ respondent_statuses: z.array(z.string()).optional() });

/** The activity-exclusion item a profile sends (api/http/dialect.ts `respondent_statuses`). */
export function activityExclusionRequestItem(profile: ApiProfileName) {
  return speaksSpec(profile, 'respondent_statuses') ? SpecActivityExclusionRequestItem : ActivityExclusionRequestItem;
}

/** The draft body of the `sandbox` profile: the spec's `filling_goal` (Resources › Target group) and items with `respondent_statuses`. */
export const DraftTargetGroupRequest = z.strictObject({ ...DRAFT_FIELDS, filling_goal: Goal, respondent_activity_exclusions: z.array(SpecActivityExclusionRequestItem).optional() });
/** The draft body of the `cint` profile: the reference's `completes_goal`, items without statuses. */
export const ReferenceDraftTargetGroupRequest = z.strictObject({ ...DRAFT_FIELDS, completes_goal: Goal, respondent_activity_exclusions: z.array(ActivityExclusionRequestItem).optional() });

/** The draft body (create and update) a profile sends. */
export function draftTargetGroupRequest(profile: ApiProfileName) {
  return completesGoalField(profile) === 'filling_goal' && speaksSpec(profile, 'respondent_statuses') ? DraftTargetGroupRequest : ReferenceDraftTargetGroupRequest;
}

/** 201 of create_target_group (CreatedDraftTargetGroupResponse). */
export const CreatedDraftTargetGroupResponse = z.looseObject({ id: ResourceId });
