// The shapes held in the state store. Plain JSON so the whole store can be persisted and reloaded.
// Records keep 2025-12-18 names; the wire modules in sandbox/resources/ rename per request version.
import type { ApiVersion, VersionPinned } from './versioning';

export type TargetGroupStatus = 'draft' | 'scheduled' | 'live' | 'paused' | 'completed';
export type RespondentStatus =
  | 'Complete'
  | 'Terminate'
  | 'SecurityFailure'
  | 'OverQuota'
  | 'FinancialTerm'
  | 'PreClientSurveyProcess';

/** Every stored record carries a creation sequence number; list cursors are built from it. */
export interface Sequenced {
  seq: number;
}

export interface ProjectRecord extends Sequenced, VersionPinned {
  id: string;
  account_id: number;
  name: string;
  /** Assigned by the sandbox (reference: ProjectHumanReadableID, 6 characters); never set by a request. */
  human_readable_id: string;
  project_customer_reference_number: string | null;
  purchase_order_number: string | null;
  /** A UUID of the account's project managers (reference: UserID). */
  project_manager_id: string;
  /** Bumped on every write; the ETag is derived from it. */
  revision: number;
  created_at: string;
  updated_at: string;
}

export interface ActivityExclusionRecord {
  type: 'project' | 'target_group';
  id: string;
  respondent_statuses: RespondentStatus[];
  duration: string;
  duration_days: number;
}

/** A group of an exchange: its name, share bounds and suppliers (reference: allocation specification groups). */
export interface AllocationGroupRecord {
  group_name: string;
  min_percentage: number;
  max_percentage: number;
  suppliers?: string[];
  supplier_id?: string;
}

export interface AllocationsRecord {
  /** The spec's recontact allocations template. */
  template_id: string | null;
  open_exchange_allocations: { blocked_supplier_ids: string[]; exchange_min_percentage: number; exchange_max_percentage: number; groups: AllocationGroupRecord[] } | null;
  private_exchange_allocations: { blocked_supplier_ids: string[]; groups: AllocationGroupRecord[] } | null;
}

export interface TargetGroupRecord extends Sequenced, VersionPinned {
  id: string;
  account_id: number;
  project_id: string;
  name: string | null;
  status: TargetGroupStatus;
  locale: string | null;
  live_url: string | null;
  test_url: string | null;
  expected_incidence_rate: number;
  expected_length_of_interview_minutes: number;
  filling_goal: number;
  project_manager_id: string;
  /** The business unit the draft names (reference: business_unit_id); null when the request gave none. */
  business_unit_id: number | null;
  /** The fielding window (reference: TargetGroupFieldingSpecification); null when the request gave none. */
  fielding_specification: { start_at: string; end_at: string } | null;
  /** The fielding assistant modules as given (reference: FieldingAssistantModulesAssignmentRequestModel); null when none was given. */
  fielding_assistant_assignment: Record<string, unknown> | null;
  collects_pii: boolean;
  study_type: string;
  pricing_model: string;
  type: string;
  /** Money `{value, currency_code}` from 2025-12-18; a text note written with an older version stays text. */
  client_cost_per_interview_note: { value: string; currency_code?: string } | string | null;
  target_group_customer_reference_number: string | null;
  allocations: AllocationsRecord;
  /** Request-level duration given on the last activity-exclusions PUT (null when none). */
  respondent_activity_exclusions_duration: string | null;
  respondent_activity_exclusions: ActivityExclusionRecord[];
  /** Owned by the profiles routes (part 2); stored here so the target group is one record. */
  profiles: unknown[];
  /** The profiling's profile_adjustment_type and template (2025-12-18 `profiling`); absent before any profiling. */
  profiling_adjustment_type?: 'nominal' | 'percentage' | null;
  profiling_template_id?: string | null;
  fielding_run_id: string | null;
  /** The fielding run's start once launched or scheduled (routes/live-target-groups.ts). */
  start_fielding_at?: string | null;
  end_fielding_at: string | null;
  /** The CPI set by update_cost_per_interview (reference: TargetGroupCpi); absent until set. */
  cost_per_interview?: { value: string; currency_code: string } | null;
  /** Bumped on every write of the fielding-assistant assignment; its ETag is derived from it. */
  fielding_assistant_revision?: number;
  /** Counters the fielding simulation may advance; shown by the overviews. */
  metrics: { completes: number; prescreens: number };
  created_at: string;
  updated_at: string;
}

export interface IdExclusionListRecord {
  /** RSIDs in insertion order. */
  rsid: string[];
  /** Access respondent GUIDs (lower case) in insertion order. */
  access_respondent_guid: string[];
  /** Legacy cid list (versions before 2025-12-18). */
  cid: string[];
}

export interface ExclusionGroupRecord extends Sequenced {
  id: string;
  account_id: number;
  /** The group's name (reference: ExclusionGroupTag). */
  tag: string;
  description: string;
  target_group_ids: string[];
  created_at: string;
  updated_at: string;
}

export type JobKind = 'exclusion_upload' | 'exclusion_remove_all' | 'recontact_upload' | 'launch_from_draft' | (string & {});
export type JobStatus = 'Processing' | 'Success' | 'Completed' | 'Failed';

export interface JobRecord extends Sequenced {
  id: string;
  kind: JobKind;
  account_id: number;
  project_id: string;
  target_group_id: string;
  status: JobStatus;
  /** Wall-clock ms (sandbox clock) at which the job settles. */
  due_at: number;
  /** Decided at creation with the seeded PRNG so outcomes are reproducible. */
  simulated_failure: boolean;
  failure_reason: string | null;
  created_at: string;
  completed_at: string | null;
  /** Kind-specific input (e.g. the parsed IDs); cleared when the job settles. */
  input: Record<string, unknown>;
  /** Kind-specific output shown on the status endpoint. */
  result: Record<string, unknown>;
}

export type FieldingRunStatus = 'scheduled' | 'live' | 'paused' | 'completed';

export interface FieldingRunRecord extends Sequenced {
  id: string;
  account_id: number;
  project_id: string;
  target_group_id: string;
  status: FieldingRunStatus;
  revision: number;
  end_fielding_at: string;
  /** The run's start: when it went live, or, while scheduled, when it will. */
  started_at: string;
  updated_at: string;
  completed_at: string | null;
}

export interface IdempotencyRecord {
  fingerprint: string;
  status: number;
  headers: Record<string, string>;
  body: unknown;
  created_at: string;
}

export interface SandboxStateData {
  format: 1;
  /** Creation counter behind `seq`. */
  sequence: number;
  /** HMAC key for issued tokens; survives reset so tokens stay valid. */
  token_signing_key: string;
  projects: Record<string, ProjectRecord>;
  target_groups: Record<string, TargetGroupRecord>;
  id_exclusion_lists: Record<string, IdExclusionListRecord>;
  recontact_respondents: Record<string, { rsid: string[]; access_respondent_guid: string[] }>;
  exclusion_groups: Record<string, ExclusionGroupRecord>;
  jobs: Record<string, JobRecord>;
  fielding_runs: Record<string, FieldingRunRecord>;
  /** Keyed `${account_id}:${idempotency key}`. */
  idempotency: Record<string, IdempotencyRecord>;
  /** Named state of other route modules (part 2), each plain JSON. */
  slices: Record<string, unknown>;
}

export type { ApiVersion };
