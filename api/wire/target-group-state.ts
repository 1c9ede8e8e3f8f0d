// Target-group state reads on the wire (reference: get_target_group, get_target_group_details,
// get_target_group_overview, get_fielding_runs_by_target_group_id).
// - GET TG answers a DRAFT only (FetchTargetGroupResponse + links: no id, status or fielding run); once the
//   group left draft it answers 301 with `Location` to `TG/details`.
// - TG/details (TargetGroupDetails) and TG/overview (TargetGroupOverview, which carries `status`) answer 404
//   for a draft; TG/fielding-runs lists zero or one run, `has_more` always false.
import { z } from 'zod';
import { IntegerIdSentAsDigits, ResourceId } from './common';

const Timestamp = z.iso.datetime({ offset: true });
const Rate = z.number().min(0).max(1);

/**
 * FetchTargetGroupResponse (+ DraftTargetGroupLinks). The reference marks no field required; studyflow
 * requires those every draft holds in every API version (the spec's five required on draft create and update,
 * the goal under the reads' name `completes_goal`), so that an answer of another shape is a wire mismatch
 * rather than a draft without fields. (`name` became required on create only in 2025-12-18.)
 */
export const DraftTargetGroupAnswer = z.looseObject({
  name: z.string().optional(),
  /** BusinessUnitIDAsInteger; the reference's own example sends `"3337"`, read as the number. */
  business_unit_id: IntegerIdSentAsDigits.optional(),
  locale: z.string().optional(),
  collects_pii: z.boolean(),
  project_manager_id: z.string(),
  completes_goal: z.number().int().min(1),
  expected_length_of_interview_minutes: z.number(),
  expected_incidence_rate: Rate,
  fielding_specification: z.looseObject({ start_at: Timestamp, end_at: Timestamp }).optional(),
  respondent_activity_exclusions: z.array(z.looseObject({ type: z.enum(['target-group', 'project']), id: z.string() })).optional(),
  target_group_customer_reference_number: z.string().nullable().optional(),
});

/** TargetGroupStatus. */
export const TargetGroupStatus = z.enum(['draft', 'scheduled', 'live', 'paused', 'completed', 'archived']);

/** TargetGroupDetails (+ TargetGroupLinks): a launched target group's fields; its required ones. */
export const TargetGroupDetailsAnswer = z.looseObject({
  id: ResourceId,
  name: z.string(),
  account_name: z.string(),
  /** BusinessUnitID: text here (the draft read gives an integer). */
  business_unit_id: z.string(),
  project_manager_id: z.string(),
  study_type_code: z.string(),
  industry_code: z.string(),
  locale: z.string(),
  completes_goal: z.number().int().min(1),
  expected_length_of_interview_minutes: z.number(),
  expected_incidence_rate: Rate,
  industry_lockout_code: z.string(),
  collects_pii: z.boolean(),
  created_at: Timestamp,
  target_group_customer_reference_number: z.string().nullable().optional(),
});

/** TargetGroupOverview: studyflow reads `status`; the other required fields are checked for the shape. */
export const TargetGroupOverviewAnswer = z.looseObject({
  project_name: z.string(),
  target_group_name: z.string(),
  project_manager_id: z.string(),
  progress: z.looseObject({ current_completes: z.number().int(), current_prescreens: z.number().int(), filling_goal: z.number().int(), filling_strategy: z.string() }),
  pricing_model: z.string(),
  is_pricing_restricted: z.boolean(),
  current_cost_per_interview: z.looseObject({}),
  current_cost: z.looseObject({}),
  status: TargetGroupStatus,
  country_code: z.string(),
  language_code: z.string(),
  conversion_rate: Rate,
  drop_off_rate: Rate,
  incidence_rate: Rate,
  /** MedianLengthOfInterviewSeconds, null before the first complete (a soft launch judges it). */
  median_length_of_interview_seconds: z.number().int().min(0).nullable().optional(),
  created_at: Timestamp,
});

/** FieldingRunItem. */
export const FieldingRunItem = z.looseObject({
  id: z.string().min(1),
  last_changed_at: Timestamp,
  last_changed_by: z.string(),
  start_fielding_at: Timestamp,
  end_fielding_at: Timestamp,
  status: z.enum(['scheduled', 'live', 'paused', 'completed']),
  version: z.number().int(),
});

/** GetListFieldingRunsResponse: at most one run, `has_more` always false. */
export const FieldingRunsAnswer = z.looseObject({
  data: z.array(FieldingRunItem).max(1),
  has_more: z.literal(false),
});
