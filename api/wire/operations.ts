// Every operation studyflow sends on the reference's wire, by the reference's operation id: method, path
// (relative to {base_url}/v1), the zod schema of the JSON body it sends, and of each answer it reads.
// The contract tests (test/contract/) drive the client against the sandbox and check every exchange
// against this table and against the reference's own JSON schemas.
import type { z } from 'zod';
import { AccountsList, BusinessUnitsList } from './accounts';
import {
  CreateExclusionGroupRequest,
  CreateExclusionGroupResponse,
  ExclusionGroupMembershipRequest,
  UpdateExclusionGroupRequest,
} from './exclusion-groups';
import {
  ExclusionGroupInfo,
  LIST_EXCLUSION_GROUP_TARGET_GROUPS,
  LIST_EXCLUSION_GROUPS,
  LIST_PROJECTS,
  LIST_QUESTIONS_TRANSLATION,
  LIST_TARGET_GROUP_EXCLUSION_GROUPS,
  LIST_TARGET_GROUPS,
  LIST_WEBHOOKS,
  listExcludedIdsWire,
  pageSchema,
} from './lists';
import { ActivityExclusionsAnswer, ActivityExclusionsRequest } from './activity-exclusions';
import { JobCreated, JobStatusAnswer } from './jobs';
import { ReferenceWebhookRequest, WebhookAnswer, WebhookCreated, WebhookRequest } from './webhooks';
import { CreatedDraftTargetGroupResponse, DraftTargetGroupRequest, ReferenceDraftTargetGroupRequest } from './target-groups';
import type { ApiProfileName } from '../http/dialect';
import { CreateProjectRequest, CreateProjectResponse, ProjectDetails, ProjectOverview, UpdateProjectRequest, UpdateProjectResponse } from './projects';
import { ErrorBody } from './common';
import { ReferenceSuggestedTimeRangeAnswer, SpecSuggestedTimeRangeAnswer, SuggestDaysAnswer, SuggestDaysRequest } from './calendar';
import {
  FeasibilityAnswer,
  FeasibilityRequest,
  ReferenceFeasibilityRequest,
  ReferencePricePredictionAnswer,
  ReferencePricePredictionRequest,
} from './feasibility';
import { FieldingRunAnswer, LaunchFromDraftRequest, LaunchJobAnswer } from './fielding';
import { RecontactJobAnswer } from './recontact';
import { PanelDistributionAnswer, PanelDistributionRequest } from './profile-helpers';
import { DraftTargetGroupAnswer, FieldingRunsAnswer, TargetGroupDetailsAnswer, TargetGroupOverviewAnswer } from './target-group-state';
import { ManageProfilesRequest, ProfileBadRequest, ProfilesResponse, ProfileValidationError, ValidateProfilesRequest } from './profiles';
import { TargetGroupPerformanceAnswer } from './performance';
import {
  LIST_ELIGIBLE_TARGET_GROUPS, LIST_RECONCILIATION_TARGET_GROUPS, LIST_RECONCILIATIONS, ReasonCodesAnswer, ReconciliationAnswer, ReconciliationTargetGroup, SubmitReconciliationsAnswer,
} from './reconciliations';
import { LIST_REPORT_REQUESTS, ReportGenerationAnswer, ReportGenerationRequest, ReportShareAnswer, ReportStatusAnswer } from './reports';
import {
  AllocationSpecificationAnswer, AllocationSpecificationRequest, CostPerInterviewAnswer, CostPerInterviewRequest, FeasibilityByIdAnswer, FeasibilityByIdRequest,
  FieldingAssistantAnswer, FieldingAssistantRequest, FillingGoalUpdateRequest, LaunchNowAnswer, ScheduleFromDraftRequest, ScheduleJobAnswer,
  TargetGroupDetailsUpdateAnswer, TargetGroupDetailsUpdateRequest, UpdateFieldingRunAnswer, UpdateFieldingRunRequest,
} from './live-target-groups';

export interface WireOperation {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** Path template relative to `{base_url}/v1`, as the reference writes it. */
  path: string;
  /** The JSON body studyflow sends. */
  request?: z.ZodType;
  /** The answers studyflow reads, by status; `null` for an answer without a body (204). */
  answers: Record<number, z.ZodType | null>;
  /** Headers (and required query parameters) studyflow sends on this operation beyond the bearer token and version header. */
  headers?: readonly string[];
}

const EG = '/demand/accounts/{account_id}/exclusion-groups';
const TG = '/demand/accounts/{account_id}/projects/{project_id}/target-groups/{target_group_id}';
const RUN = `${TG}/fielding-runs/{fielding_run_id}`;
const RECONTACT_UPLOAD = `${TG}/recontacts/jobs/upload-respondents-by-file`;
/** A fielding-run control: If-Match, 204 with the new ETag; 412 precondition_failed_error, 422 invalid_state_error (read, then decided on). */
const control = (action: string): WireOperation => ({
  method: 'POST', path: `${RUN}/${action}`, answers: { 204: null, 412: ErrorBody, 422: ErrorBody }, headers: ['if-match'],
});

/**
 * Feasibility, the calendar's suggest-days, launch from draft and the fielding runs, and the recontact upload
 * (their contract test: test/contract/launch-fielding.contract.test.ts).
 */
export const LAUNCH_FIELDING_OPERATIONS: Readonly<Record<string, WireOperation>> = {
  calculate_target_group_feasibility: {
    method: 'POST', path: '/demand/accounts/{account_id}/target-groups/calculate-feasibility', request: FeasibilityRequest, answers: { 200: FeasibilityAnswer },
  },
  suggest_days: { method: 'POST', path: '/demand/intelligent-calendar/suggest-days', request: SuggestDaysRequest, answers: { 200: SuggestDaysAnswer } },
  suggest_time_range: { method: 'GET', path: '/demand/intelligent-calendar/suggest-time-range', answers: { 200: SpecSuggestedTimeRangeAnswer } },
  generate_price_prediction: {
    method: 'GET', path: '/demand/accounts/{account_id}/business-units/{business_unit_id}/generate-price-prediction', answers: { 200: ReferencePricePredictionAnswer },
  },
  create_launch_fielding_run_from_draft_job: {
    method: 'POST', path: `${TG}/fielding-run-jobs/launch-from-draft`, request: LaunchFromDraftRequest, answers: { 201: null }, headers: ['idempotency-key'],
  },
  get_launch_fielding_run_from_draft_job: { method: 'GET', path: `${TG}/fielding-run-jobs/launch-from-draft/{job_id}`, answers: { 200: LaunchJobAnswer } },
  get_fielding_run: { method: 'GET', path: RUN, answers: { 200: FieldingRunAnswer } },
  pause_fielding_run: control('pause'),
  resume_fielding_run: control('resume'),
  complete_fielding_run: control('complete'),
  recontact_create_upload_respondents_by_file_job: {
    method: 'POST', path: RECONTACT_UPLOAD, answers: { 201: JobCreated }, headers: ['idempotency-key', 'entity_type'],
  },
  get_recontact_upload_respondents_by_file_job: { method: 'GET', path: `${RECONTACT_UPLOAD}/{job_id}`, answers: { 200: RecontactJobAnswer } },
};

/**
 * The reads of a target group's state: GET TG (a draft, or 301 with Location to the details once launched),
 * details, overview and the fielding runs (their contract test: test/contract/target-group-state.contract.test.ts).
 */
export const TARGET_GROUP_STATE_OPERATIONS: Readonly<Record<string, WireOperation>> = {
  get_target_group: { method: 'GET', path: TG, answers: { 200: DraftTargetGroupAnswer, 301: null } },
  get_target_group_details: { method: 'GET', path: `${TG}/details`, answers: { 200: TargetGroupDetailsAnswer } },
  get_target_group_overview: { method: 'GET', path: `${TG}/overview`, answers: { 200: TargetGroupOverviewAnswer } },
  get_fielding_runs_by_target_group_id: { method: 'GET', path: `${TG}/fielding-runs`, answers: { 200: FieldingRunsAnswer } },
};

/**
 * The profiling helpers `studyflow plan` asks (read-only): the supplier quota distribution of one profile of a draft
 * not yet saved, and the question catalogue's texts (their contract test: test/contract/profile-helpers.contract.test.ts).
 */
export const PROFILE_HELPER_OPERATIONS: Readonly<Record<string, WireOperation>> = {
  get_panel_distribution_draft: {
    method: 'POST', path: '/demand/accounts/{account_id}/supplier-quota-distribution/draft', request: PanelDistributionRequest, answers: { 200: PanelDistributionAnswer, 400: ErrorBody },
  },
  account_questions_translation: { method: 'GET', path: '/demand/accounts/{account_id}/questions-translation', answers: { 200: pageSchema(LIST_QUESTIONS_TRANSLATION) } },
};

/**
 * Profiles of a launched target group and the stateless validation (a draft's profiles travel in its own
 * `profiling`; their contract test: test/contract/profiles.contract.test.ts).
 */
export const PROFILE_OPERATIONS: Readonly<Record<string, WireOperation>> = {
  manage_target_group_profiles: {
    method: 'POST', path: `${TG}/profiles/manage-profiles`, request: ManageProfilesRequest, answers: { 201: ProfilesResponse, 400: ErrorBody, 422: ProfileValidationError },
  },
  validate_profiles: {
    method: 'POST', path: '/demand/accounts/{account_id}/profiles/validate', request: ValidateProfilesRequest, answers: { 204: null, 400: ProfileBadRequest, 422: ProfileValidationError },
  },
};

/**
 * The report's read of a launched target group's figures; 404 for an unknown or draft target group (its
 * contract test: test/contract/performance.contract.test.ts).
 */
export const PERFORMANCE_OPERATIONS: Readonly<Record<string, WireOperation>> = {
  get_target_group_performance: { method: 'GET', path: `${TG}/performance`, answers: { 200: TargetGroupPerformanceAnswer } },
};

/**
 * The changes of a launched target group and the reads that observe them (issue 28; api/operations/live-target-groups.ts;
 * their contract test: test/contract/live-target-groups.contract.test.ts).
 */
export const LIVE_TARGET_GROUP_OPERATIONS: Readonly<Record<string, WireOperation>> = {
  list_profiles: { method: 'GET', path: `${TG}/profiles`, answers: { 200: ProfilesResponse } },
  update_profile_filling_goal: { method: 'PUT', path: `${TG}/profiles/completes-goal`, request: FillingGoalUpdateRequest, answers: { 200: ProfilesResponse } },
  update_fielding_run: {
    method: 'PUT', path: RUN, request: UpdateFieldingRunRequest, answers: { 202: UpdateFieldingRunAnswer, 412: ErrorBody, 422: ErrorBody }, headers: ['if-match'],
  },
  relaunch_fielding_run: control('relaunch'),
  launch_now_fielding_run: { method: 'POST', path: `${RUN}/launch-now`, answers: { 200: LaunchNowAnswer, 412: ErrorBody, 422: ErrorBody }, headers: ['if-match'] },
  create_schedule_fielding_run_from_draft_job: {
    method: 'POST', path: `${TG}/fielding-run-jobs/schedule-from-draft`, request: ScheduleFromDraftRequest, answers: { 201: null }, headers: ['idempotency-key'],
  },
  get_schedule_fielding_run_from_draft_job: { method: 'GET', path: `${TG}/fielding-run-jobs/schedule-from-draft/{job_id}`, answers: { 200: ScheduleJobAnswer } },
  update_launched_target_group_details: { method: 'PUT', path: `${TG}/details`, request: TargetGroupDetailsUpdateRequest, answers: { 200: TargetGroupDetailsUpdateAnswer } },
  update_cost_per_interview: { method: 'PUT', path: `${TG}/cost-per-interview`, request: CostPerInterviewRequest, answers: { 200: CostPerInterviewAnswer } },
  get_target_group_allocation_specification: { method: 'GET', path: `${TG}/allocation-specification`, answers: { 200: AllocationSpecificationAnswer } },
  update_target_group_allocation_specification: { method: 'PUT', path: `${TG}/allocation-specification`, request: AllocationSpecificationRequest, answers: { 204: null } },
  get_fielding_assistant_assignment: { method: 'GET', path: `${TG}/fielding-assistant-assignment`, answers: { 200: FieldingAssistantAnswer } },
  create_or_update_fielding_assistant_assignment: {
    method: 'PUT', path: `${TG}/fielding-assistant-assignment`, request: FieldingAssistantRequest, answers: { 204: null, 412: ErrorBody }, headers: ['if-match'],
  },
  calculate_target_group_feasibility_by_id: { method: 'POST', path: `${TG}/calculate-feasibility`, request: FeasibilityByIdRequest, answers: { 200: FeasibilityByIdAnswer } },
};

const RECON = '/demand/accounts/{account_id}/reconciliations';
const REPORTS = '/demand/accounts/{account_id}/reports';
/**
 * The close-out (issue 36; api/operations/reconciliations.ts and reports.ts): reconciliations and reports. Files go out
 * as text/csv (no JSON body: `request` absent) and downloads answer a file (`null`: not JSON); their contract test is
 * test/contract/reconciliations-client.contract.test.ts.
 */
export const CLOSEOUT_OPERATIONS: Readonly<Record<string, WireOperation>> = {
  request_reconciliation_reason_codes: { method: 'GET', path: `${RECON}/reason-codes`, answers: { 200: ReasonCodesAnswer } },
  get_eligible_target_groups: { method: 'GET', path: `${RECON}/eligible-target-groups`, answers: { 200: pageSchema(LIST_ELIGIBLE_TARGET_GROUPS) } },
  get_reconciliations_by_account_id: { method: 'GET', path: RECON, answers: { 200: pageSchema(LIST_RECONCILIATIONS) } },
  post_reconciliations: { method: 'POST', path: RECON, answers: { 202: SubmitReconciliationsAnswer }, headers: ['idempotency-key', 'name'] },
  get_reconciliation_by_request_id: { method: 'GET', path: `${RECON}/{request_id}`, answers: { 200: ReconciliationAnswer } },
  get_target_groups_by_request_id: { method: 'GET', path: `${RECON}/{request_id}/target-groups`, answers: { 200: pageSchema(LIST_RECONCILIATION_TARGET_GROUPS) } },
  get_target_group_by_request_id_and_target_group_id: { method: 'GET', path: `${RECON}/{request_id}/target-groups/{target_group_id}`, answers: { 200: ReconciliationTargetGroup } },
  get_recon_downloads: { method: 'GET', path: `${RECON}/{request_id}/downloads/{download_type}`, answers: { 200: null } },
  post_reconciliations_completes: {
    method: 'POST', path: '/demand/accounts/{account_id}/projects/{project_id}/reconciliations/completes', answers: { 202: SubmitReconciliationsAnswer }, headers: ['idempotency-key', 'name'],
  },
  generate_report: { method: 'POST', path: `${REPORTS}/{report_type}`, request: ReportGenerationRequest, answers: { 202: ReportGenerationAnswer } },
  report_status: { method: 'GET', path: `${REPORTS}/{report_id}/status`, answers: { 200: ReportStatusAnswer } },
  download_report_v2: { method: 'GET', path: `${REPORTS}/{report_id}/download`, answers: { 200: null } },
  report_requests: { method: 'GET', path: REPORTS, answers: { 200: pageSchema(LIST_REPORT_REQUESTS) } },
  share_report: { method: 'GET', path: `${REPORTS}/{report_id}/share`, answers: { 200: ReportShareAnswer }, headers: ['report_type'] },
};

export const WIRE_OPERATIONS: Readonly<Record<string, WireOperation>> = {
  get_user_accounts: { method: 'GET', path: '/accounts', answers: { 200: AccountsList } },
  get_business_units: { method: 'GET', path: '/accounts/{account_id}/business-units', answers: { 200: BusinessUnitsList } },
  list_account_projects: { method: 'GET', path: '/demand/accounts/{account_id}/projects', answers: { 200: pageSchema(LIST_PROJECTS) } },
  // Projects (issue 17, H17a).
  create_project: {
    method: 'POST', path: '/demand/accounts/{account_id}/projects', request: CreateProjectRequest, answers: { 202: CreateProjectResponse }, headers: ['idempotency-key'],
  },
  get_project_by_id: { method: 'GET', path: '/demand/accounts/{account_id}/projects/{project_id}', answers: { 200: ProjectDetails } },
  update_project: {
    method: 'PUT', path: '/demand/accounts/{account_id}/projects/{project_id}', request: UpdateProjectRequest, answers: { 200: UpdateProjectResponse }, headers: ['idempotency-key', 'if-match'],
  },
  project_overview: { method: 'GET', path: '/demand/accounts/{account_id}/projects/{project_id}/overview', answers: { 200: ProjectOverview } },
  // Draft target groups (issue 17, H17a).
  create_target_group: {
    method: 'POST', path: '/demand/accounts/{account_id}/projects/{project_id}/target-groups', request: DraftTargetGroupRequest, answers: { 201: CreatedDraftTargetGroupResponse }, headers: ['idempotency-key'],
  },
  update_target_group: { method: 'PUT', path: TG, request: DraftTargetGroupRequest, answers: { 204: null } },
  get_list_target_groups: { method: 'GET', path: '/demand/accounts/{account_id}/projects/{project_id}/target-groups', answers: { 200: pageSchema(LIST_TARGET_GROUPS) } },
  get_exclusion_groups_by_account_id: { method: 'GET', path: EG, answers: { 200: pageSchema(LIST_EXCLUSION_GROUPS) } },
  create_exclusion_group: { method: 'POST', path: EG, request: CreateExclusionGroupRequest, answers: { 201: CreateExclusionGroupResponse }, headers: ['idempotency-key'] },
  get_exclusion_group_by_id: { method: 'GET', path: `${EG}/{exclusion_group_id}`, answers: { 200: ExclusionGroupInfo } },
  update_exclusion_group_by_id: { method: 'PUT', path: `${EG}/{exclusion_group_id}`, request: UpdateExclusionGroupRequest, answers: { 204: null } },
  delete_exclusion_group_by_id: { method: 'DELETE', path: `${EG}/{exclusion_group_id}`, answers: { 204: null } },
  get_exclusion_group_target_group_exclusions: { method: 'GET', path: `${EG}/{exclusion_group_id}/target-groups`, answers: { 200: pageSchema(LIST_EXCLUSION_GROUP_TARGET_GROUPS) } },
  add_target_groups_to_exclusion_group: { method: 'POST', path: `${EG}/{exclusion_group_id}/target-groups/add`, request: ExclusionGroupMembershipRequest, answers: { 204: null } },
  remove_target_groups_from_exclusion_group: { method: 'POST', path: `${EG}/{exclusion_group_id}/target-groups/remove`, request: ExclusionGroupMembershipRequest, answers: { 204: null } },
  get_exclusion_groups_for_target_group: { method: 'GET', path: '/demand/accounts/{account_id}/target-groups/{target_group_id}/exclusion-groups', answers: { 200: pageSchema(LIST_TARGET_GROUP_EXCLUSION_GROUPS) } },
  get_target_group_rsid_exclusion_list_api_paginated: { method: 'GET', path: `${TG}/exclusions/rsid/paginated`, answers: { 200: pageSchema(listExcludedIdsWire('rsid')) } },
  get_target_group_access_respondent_guid_exclusion_list_api_paginated: {
    method: 'GET', path: `${TG}/exclusions/access-respondent-guid/paginated`, answers: { 200: pageSchema(listExcludedIdsWire('access_respondent_guid')) },
  },
  exclusion_create_upload_rids_by_file_job: {
    method: 'POST', path: `${TG}/exclusions/jobs/upload-respondents-by-file`, answers: { 201: JobCreated }, headers: ['idempotency-key', 'entity_type'],
  },
  get_respondent_exclusions_upload_by_file_job: { method: 'GET', path: `${TG}/exclusions/jobs/upload-respondents-by-file/{job_id}`, answers: { 200: JobStatusAnswer } },
  exclusion_create_remove_all_respondents_job: {
    method: 'POST', path: `${TG}/exclusions/jobs/remove-all-respondents`, answers: { 201: JobCreated }, headers: ['idempotency-key', 'entity_type'],
  },
  get_all_respondent_exclusions_removal_job: { method: 'GET', path: `${TG}/exclusions/jobs/remove-all-respondents/{job_id}`, answers: { 200: JobStatusAnswer } },
  get_target_group_respondent_activity_exclusions: { method: 'GET', path: `${TG}/respondent-activity-exclusions`, answers: { 200: ActivityExclusionsAnswer } },
  set_target_group_respondent_activity_exclusions: {
    method: 'PUT', path: `${TG}/respondent-activity-exclusions`, request: ActivityExclusionsRequest, answers: { 204: null },
  },
  get_webhooks: { method: 'GET', path: '/accounts/{account_id}/webhooks', answers: { 200: pageSchema(LIST_WEBHOOKS) } },
  create_webhook: { method: 'POST', path: '/accounts/{account_id}/webhooks', request: WebhookRequest, answers: { 201: WebhookCreated }, headers: ['idempotency-key'] },
  update_webhook: { method: 'PUT', path: '/accounts/{account_id}/webhooks/{webhook_id}', request: WebhookRequest, answers: { 200: WebhookAnswer } },
  delete_webhook: { method: 'DELETE', path: '/accounts/{account_id}/webhooks/{webhook_id}', answers: { 204: null } },
  ...LAUNCH_FIELDING_OPERATIONS,
  ...PROFILE_HELPER_OPERATIONS,
  ...TARGET_GROUP_STATE_OPERATIONS,
  ...PROFILE_OPERATIONS,
  ...PERFORMANCE_OPERATIONS,
  ...LIVE_TARGET_GROUP_OPERATIONS,
  ...CLOSEOUT_OPERATIONS,
};

/**
 * The operations as the `cint` profile speaks them (the reference exactly): the entries of WIRE_OPERATIONS that
 * carry a spec deviation (api/http/dialect.ts) replaced by the reference's form.
 */
const REFERENCE_DIALECT_OPERATIONS: Readonly<Record<string, WireOperation>> = {
  ...WIRE_OPERATIONS,
  create_target_group: { ...WIRE_OPERATIONS.create_target_group!, request: ReferenceDraftTargetGroupRequest },
  update_target_group: { ...WIRE_OPERATIONS.update_target_group!, request: ReferenceDraftTargetGroupRequest },
  calculate_target_group_feasibility: { ...WIRE_OPERATIONS.calculate_target_group_feasibility!, request: ReferenceFeasibilityRequest },
  generate_price_prediction: { ...WIRE_OPERATIONS.generate_price_prediction!, method: 'POST', request: ReferencePricePredictionRequest },
  suggest_time_range: { ...WIRE_OPERATIONS.suggest_time_range!, answers: { 200: ReferenceSuggestedTimeRangeAnswer } },
  create_webhook: { ...WIRE_OPERATIONS.create_webhook!, request: ReferenceWebhookRequest },
  update_webhook: { ...WIRE_OPERATIONS.update_webhook!, request: ReferenceWebhookRequest },
};

/** Every operation as a profile speaks it: WIRE_OPERATIONS (the spec's dialect) for `sandbox`, the reference's for `cint`. */
export function wireOperationsFor(profile: ApiProfileName): Readonly<Record<string, WireOperation>> {
  return profile === 'cint' ? REFERENCE_DIALECT_OPERATIONS : WIRE_OPERATIONS;
}

/** The operation of a call, by method and path (without query, starting `/v1/`), as the profile speaks them. */
export function wireOperationOf(method: string, path: string, profile: ApiProfileName = 'sandbox'): string | undefined {
  let best: { id: string; literal: number } | undefined;
  for (const [id, op] of Object.entries(wireOperationsFor(profile))) {
    if (op.method !== method) continue;
    const pattern = new RegExp(`^/v1${op.path.replace(/\{[^}]+\}/g, '[^/]+')}$`);
    if (!pattern.test(path)) continue;
    const literal = op.path.replace(/\{[^}]+\}/g, '').length;
    if (!best || literal > best.literal) best = { id, literal };
  }
  return best?.id;
}
