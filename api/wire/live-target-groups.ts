// The operations on a launched target group, on the reference's wire (issue 28):
// - update_profile_filling_goal: FillingGoalUpdateRequestV3 `{completes_goal?, profiles?: [{profile_id, targets:
//   [{id, quota: {completes_goal}}]}]}` -> 200 ProfilesResponseV3; list_profiles reads the same shape.
// - update_fielding_run: UpdateFieldingRunRequest `{start_fielding_at, end_fielding_at}` with If-Match -> 202 `{id}` + ETag.
// - relaunch_fielding_run: If-Match -> 204 + ETag; launch_now_fielding_run: If-Match -> 200 `{start_fielding_at, end_fielding_at}`.
// - create_schedule_fielding_run_from_draft_job: `{start_fielding_at, end_fielding_at}` with Idempotency-Key -> 201,
//   the job in Location; its job: GetScheduleFieldingRunFromDraftJobResponse.
// - update_launched_target_group_details: TargetGroupDetailsUpdateRequest (the whole set) -> 200 TargetGroupDetails.
// - update_cost_per_interview: `{target_group_cpi: {value, currency_code}}` -> 200 `{target_group_cpi}`.
// - the allocation specification: GetSupplyAllocationResponse / SupplyAllocationUpdateRequest -> 204.
// - the fielding-assistant assignment: GET (ETag) / PUT the whole object with If-Match -> 204.
// - calculate_target_group_feasibility_by_id: CalculateTargetGroupFeasibilityByIdRequest -> 200 CalculateTargetGroupFeasibilityResponse.
import { z } from 'zod';
import { CUSTOMER_REFERENCE_PATTERN } from './common';
import { JobFailureReason } from './jobs';

const Timestamp = z.iso.datetime({ offset: true });
const CompletesGoal = z.number().int().min(1);
/** MonetaryAmountRequestModel. */
export const MoneyRequest = z.strictObject({ value: z.string().regex(/^\d+(\.\d+)?$/), currency_code: z.string().length(3) });
/** MonetaryAmount. */
export const MoneyAnswer = z.looseObject({ value: z.string(), currency_code: z.string().optional(), currency_scale: z.number().int().nullable().optional() });

export const FillingGoalUpdateRequest = z.union([
  z.strictObject({ completes_goal: CompletesGoal }),
  z.strictObject({
    completes_goal: CompletesGoal.optional(),
    profiles: z.array(z.strictObject({
      profile_id: z.string().min(1),
      targets: z.array(z.strictObject({ id: z.string().min(1), quota: z.strictObject({ completes_goal: CompletesGoal }) })).min(1).max(200),
    })).min(1).max(1500),
  }),
]);

export const UpdateFieldingRunRequest = z.strictObject({ start_fielding_at: Timestamp, end_fielding_at: Timestamp });
export const UpdateFieldingRunAnswer = z.looseObject({ id: z.string().min(1) });
export const LaunchNowAnswer = z.looseObject({ start_fielding_at: z.string(), end_fielding_at: z.string() });
export const ScheduleFromDraftRequest = z.strictObject({ start_fielding_at: Timestamp, end_fielding_at: Timestamp });
export const ScheduleJobAnswer = z.looseObject({
  job_id: z.string().min(1),
  status: z.enum(['Processing', 'Completed', 'Failed']),
  created_at: z.string(),
  created_by: z.string(),
  created_fielding_run_id: z.string().min(1).nullable().optional(),
  failure_reason: JobFailureReason.nullable().optional(),
});

export const TargetGroupDetailsUpdateRequest = z.strictObject({
  name: z.string().min(5).max(128),
  project_manager_id: z.uuid(),
  expected_length_of_interview_minutes: z.number().int().min(1).max(45),
  expected_incidence_rate: z.number().min(0).max(1),
  industry_lockout_code: z.string(),
  live_url: z.string(),
  test_url: z.string(),
  target_group_customer_reference_number: z.string().min(3).max(128).regex(CUSTOMER_REFERENCE_PATTERN).nullable().optional(),
  client_cost_per_interview_note: MoneyRequest.optional(),
});
/** TargetGroupDetails as the update answers it (the fields studyflow reads). */
export const TargetGroupDetailsUpdateAnswer = z.looseObject({
  id: z.string().min(1),
  name: z.string(),
  project_manager_id: z.string(),
  completes_goal: z.number(),
  expected_length_of_interview_minutes: z.number().int(),
  expected_incidence_rate: z.number(),
  live_url: z.string().optional(),
  test_url: z.string().optional(),
});

export const CostPerInterviewRequest = z.strictObject({ target_group_cpi: MoneyRequest });
export const CostPerInterviewAnswer = z.looseObject({ target_group_cpi: MoneyAnswer });

const SupplierIds = z.array(z.string().regex(/^\d+$/));
export const AllocationSpecificationRequest = z.strictObject({
  open_exchange_allocations: z.strictObject({
    blocked_supplier_ids: SupplierIds,
    exchange_min_percentage: z.number().int().min(0).max(100),
    exchange_max_percentage: z.number().int().min(0).max(100),
    groups: z.array(z.strictObject({ group_id: z.string().optional(), group_name: z.string(), min_percentage: z.number().int().min(0).max(100), max_percentage: z.number().int().min(0).max(100), supplier_ids: SupplierIds })),
  }),
  private_exchange_allocations: z.strictObject({
    blocked_supplier_ids: SupplierIds,
    groups: z.array(z.strictObject({ group_id: z.string().optional(), group_name: z.string(), min_percentage: z.number().int().min(0).max(100), max_percentage: z.number().int().min(0).max(100), supplier_id: z.string() })),
  }),
});
export type AllocationSpecificationRequest = z.infer<typeof AllocationSpecificationRequest>;
const SupplierAnswer = z.looseObject({ id: z.number().int() });
export const AllocationSpecificationAnswer = z.looseObject({
  open_exchange_allocations: z.looseObject({
    blocked_suppliers: z.array(SupplierAnswer),
    exchange_min_percentage: z.number().int(),
    exchange_max_percentage: z.number().int(),
    groups: z.array(z.looseObject({ group_id: z.string().optional(), group_name: z.string(), min_percentage: z.number().int(), max_percentage: z.number().int(), suppliers: z.array(SupplierAnswer) })),
  }),
  private_exchange_allocations: z.looseObject({
    blocked_suppliers: z.array(SupplierAnswer),
    groups: z.array(z.looseObject({ group_id: z.string().optional(), group_name: z.string(), min_percentage: z.number().int(), max_percentage: z.number().int(), supplier: SupplierAnswer })),
  }),
});

/** FieldingAssistantModulesAssignmentRequestModel: modules as the reference defines them; a module left out is disabled. */
const AssistantMoney = z.strictObject({ value: z.string(), currency_code: z.string().length(3).optional() });
export const FieldingAssistantRequest = z.strictObject({
  pricing: z.union([
    z.strictObject({ type: z.literal('dynamic'), total_budget: AssistantMoney.optional(), maximum_cpi: AssistantMoney.optional(), minimum_cpi: AssistantMoney.optional() }),
    z.strictObject({ type: z.literal('rate_card'), maximum_cpi: AssistantMoney.optional(), boost_cpi: AssistantMoney.optional() }),
  ]).nullable().optional(),
  quota_overlay: z.strictObject({ prevent_overfill: z.boolean(), balance_fill: z.boolean() }).optional(),
  pacing: z.union([
    z.strictObject({ type: z.enum(['linear', 'adaptive']), increment_interval: z.string().min(2) }),
    z.strictObject({ type: z.literal('gemini'), exposed_target_group_id: z.string() }),
  ]).nullable().optional(),
  soft_launch: z.strictObject({ end_at: Timestamp, filling_goal_percentage: z.number().int().min(1).max(100), demographics_strictness_percentage: z.number().int().min(0).max(100) }).optional(),
});
export type FieldingAssistantRequest = z.infer<typeof FieldingAssistantRequest>;
export const FieldingAssistantAnswer = z.looseObject({
  pricing: z.looseObject({ type: z.string() }).nullable().optional(),
  quota_overlay: z.looseObject({ prevent_overfill: z.boolean(), balance_fill: z.boolean() }).nullable().optional(),
  pacing: z.looseObject({ type: z.string() }).nullable().optional(),
  soft_launch: z.looseObject({ end_at: z.string() }).nullable().optional(),
});

export const FeasibilityByIdRequest = z.strictObject({
  completes_goal: z.number().int().min(1).max(10_000).optional(),
  incidence_rate: z.number().gt(0).max(1).optional(),
  length_of_interview: z.number().int().min(1).max(45).optional(),
  start_at: Timestamp.optional(),
  end_at: Timestamp.optional(),
  cost_per_interview: MoneyRequest.optional(),
});
export type FeasibilityByIdRequest = z.infer<typeof FeasibilityByIdRequest>;
export const FeasibilityByIdAnswer = z.looseObject({
  suggested_price: MoneyAnswer,
  suggested_price_range: z.looseObject({ min: MoneyAnswer, max: MoneyAnswer }).optional(),
  suggested_completes_goal_range: z.looseObject({ min: z.number().int(), max: z.number().int() }).optional(),
});
