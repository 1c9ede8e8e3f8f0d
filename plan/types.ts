// The planning core's vocabulary: what the study file wants (DesiredStudy), what the API holds
// (ObservedStudy), and the ordered actions that take one to the other. Plain JSON, no secrets,
// no respondent IDs (ID lists are {ref, sha256, count}); safe to pass into workflows.

import type { NotifyTarget } from '../shared/notify-events';
import type { ApiVersion } from '../shared/api-version';
import type { IdListEntityType, ListRef } from '../shared/id-list';
import type { DesiredGuard, GuardHold } from './guard-types';
import type { DesiredCloseout } from './closeout-types';
import type { DesiredSoftLaunch, SoftLaunchState } from './soft-launch-types';

export type { ApiVersion } from '../shared/api-version';
export type { IdListEntityType, ListRef } from '../shared/id-list';

/** The one Money type (shared/money.ts): a decimal string and its currency, exact. */
import type { Money } from '../shared/money';
export type { Money };

/** The fielding state a study file declares for a target group. */
export type FieldingState = 'live' | 'paused' | 'completed';

/** A staged launch: launch once another target group of the study has `completes` completes. */
export interface LaunchAfter {
  targetGroup: string;
  completes: number;
}

export interface LaunchRules {
  /** auto: launch once the gates pass; manual: wait for `studyflow approve` (or a UI signal). */
  mode: 'auto' | 'manual';
  requireFeasible: boolean;
  maxCpi?: Money;
  /** ISO timestamp sent as end_fielding_at on launch. */
  endFieldingAt?: string;
  /** A timed launch: the fielding run starts at this instant (ISO-8601 with zone, as the file gives it). */
  at?: string;
  /** A staged launch. */
  after?: LaunchAfter;
  /** launch.require_forecast_before_end (present only when true): the forecast must finish before endFieldingAt (plan/forecast.ts). */
  requireForecastBeforeEnd?: true;
}

export type { DesiredGuard, GuardKind, GuardRule } from './guard-types';
export type { DesiredSoftLaunch, SoftLaunchOutcomeAction } from './soft-launch-types';

export interface Timing {
  jobPollInitialMs: number;
  jobPollMaxMs: number;
  jobTimeoutMs: number;
  launchRetries: number;
  /** How often a live target group is re-read when no webhook arrives. */
  watchIntervalMs: number;
}

/** A reference from an activity exclusion item: another target group of this study, or a remote id. */
export type ExclusionRef =
  | { type: 'target_group'; key: string }
  | { type: 'target_group'; id: string }
  | { type: 'project'; id: string }
  | { type: 'project'; self: true };

export interface DesiredActivityItem {
  ref: ExclusionRef;
  respondent_statuses?: string[];
  duration?: string;
}

export interface DesiredTargetGroup {
  key: string;
  movedFrom?: string;
  /** Draft fields in 2025-12-18 names, exactly as the API takes them (minus activity exclusions). */
  draft: Record<string, unknown>;
  profiles?: unknown[];
  /** Profile templates that exist in the API, applied with the profiles. */
  profileTemplateIds?: string[];
  activityExclusions?: { duration?: string; items: DesiredActivityItem[] };
  idLists: Partial<Record<IdListEntityType, ListRef>>;
  recontact?: ListRef;
  exclusionGroups: string[];
  launch: LaunchRules;
  timing: Timing;
  /**
   * Values the API sets itself (the pricing model comes from the business unit), which the study file states:
   * compared with the target group as read, never sent (the reference's draft request has neither).
   */
  expected?: { pricing_model?: string; type?: string };
  /**
   * The declared fielding state. Absent: `live` by default, and a completed target group stays completed;
   * written `live`: also relaunches a completed one (plan/live-fielding.ts).
   */
  fielding?: FieldingState;
  /** The cost per interview of the launched target group (update_cost_per_interview; the exchange takes it on no draft). */
  costPerInterview?: Money;
  /** The guards in force, by name (absent: none). */
  guards?: DesiredGuard[];
  /** The soft launch before the full launch (plan/soft-launch.ts judges it; absent: none). */
  softLaunch?: DesiredSoftLaunch;
  /**
   * The study's `notify:` targets that take an event about a target group (variable NAMES, never URLs), with
   * only those events. Absent: none. Carried here so a changed block reaches the running workflow as a revision.
   */
  notify?: NotifyTarget[];
}

export interface DesiredExclusionGroup {
  name: string;
  /** Display name sent to the API. */
  title: string;
  targetGroups: string[];
}

export interface DesiredWebhook {
  url: string;
  events: string[];
  compression: 'gzip' | null;
}

export interface DesiredStudy {
  studyId: string;
  accountId: string;
  businessUnitId: string;
  apiVersion: ApiVersion;
  /** Content hash of the desired state: equal revisions plan nothing. */
  revision: string;
  /** The project as create_project takes it (ProjectInfo). */
  project: { name: string; project_manager_id: string; project_customer_reference_number: string };
  targetGroups: DesiredTargetGroup[];
  exclusionGroups: DesiredExclusionGroup[];
  webhooks: DesiredWebhook[];
  /** What apply does with a managed target group the file no longer declares. Absent: keep, left implicit (the plan warns). */
  removedTargetGroups?: 'keep' | 'complete';
  /** What the whole study may cost (plan/budget.ts). Absent: no budget. */
  budget?: Money;
  /** The `notify:` targets (shared.yaml's and the study's): the NAME of each URL's variable and the events it gets. Absent: none. */
  notify?: NotifyTarget[];
  /** The study's `closeout:`, its files as blob references (plan/closeout.ts decides on it). Absent: none. */
  closeout?: DesiredCloseout;
}

export interface ObservedList {
  count: number;
  sha256: string;
}

/** Fielding run status (reference: FieldingRunStatus). */
export type FieldingRunStatus = 'scheduled' | 'live' | 'paused' | 'completed';

/** The target group's fielding run (reference: FieldingRunItem), with the ETag its writes send as If-Match. */
export interface ObservedFieldingRun {
  id: string;
  status: FieldingRunStatus;
  startFieldingAt?: string;
  endFieldingAt?: string;
  /** The run's ETag (its version), for If-Match on update, pause, resume, complete, relaunch and launch-now. */
  etag?: string;
}

/** One quota goal of a launched target group (reference: ProfilesResponseV3: a profile's target and its quota). */
export interface ObservedQuotaGoal {
  profileId: string;
  profileName: string;
  /** The target's id (update_profile_filling_goal's `targets[].id`). */
  quotaId: string;
  quotaName: string;
  completesGoal: number;
}

/** The launched details (reference: TargetGroupDetails) that update_launched_target_group_details writes. */
export interface ObservedLiveDetails {
  name?: string;
  project_manager_id?: string;
  expected_length_of_interview_minutes?: number;
  expected_incidence_rate?: number;
  live_url?: string | null;
  test_url?: string | null;
  target_group_customer_reference_number?: string | null;
  client_cost_per_interview_note?: Money | null;
  /** Required by the update request; read back so the write carries it unchanged. */
  industry_lockout_code?: string | null;
}

export interface ObservedTargetGroup {
  id: string;
  /**
   * Not read from the exchange: the guards' hold on it that its workflow reports (status.guards.hold), added by
   * plan/pipeline.ts, so that a paused target group a guard holds is not resumed by `fielding: live`.
   */
  guardHold?: GuardHold;
  /** Not read from the exchange either: where its soft launch stands, as its workflow reports it (plan/pipeline.ts). */
  softLaunch?: SoftLaunchState;
  status: string;
  fields: Record<string, unknown>;
  /** The draft-body fields the read carries (a launched group's details lack some): only these are compared. Absent: all. */
  fieldsRead?: string[];
  activityExclusions?: { duration?: string; items: unknown[] };
  idLists: Partial<Record<IdListEntityType, ObservedList>>;
  recontact?: ObservedList;
  fieldingRunId?: string | null;
  // ---- the live state of a launched target group (each part absent when not read) ----
  fieldingRun?: ObservedFieldingRun;
  /** The total completes goal and the quota goals (reference: the profiles' completes goals). */
  fillingGoal?: { completesGoal: number; quotas?: ObservedQuotaGoal[] };
  details?: ObservedLiveDetails;
  /** The target group's current cost per interview (reference: current_cost_per_interview). */
  costPerInterview?: Money;
  /** The allocation specification (reference: get_target_group_allocation_specification), in the file's names. */
  allocations?: Record<string, unknown>;
  /** The fielding-assistant assignment and its ETag (If-Match of create_or_update_fielding_assistant_assignment). */
  fieldingAssistant?: { assignment: Record<string, unknown>; etag?: string };
  /** Completes so far (the performance reading). */
  completes?: number;
}

export interface ObservedStudy {
  project?: { id: string; fields: Record<string, unknown> };
  /** Keyed by the study's local target-group key. */
  targetGroups: Record<string, ObservedTargetGroup>;
  /** Keyed by the study's exclusion-group name. */
  exclusionGroups: Record<string, { id: string; targetGroupIds: string[] }>;
  /** The account's webhooks whose URL a study declares, keyed by URL. */
  webhooks?: Record<string, { id: string; events: string[]; compression: 'gzip' | null }>;
  /** When the state was read (ISO-8601): lets the plan tell an ended fielding window or a passed launch time. */
  observedAt?: string;
}

export interface FieldChange {
  field: string;
  from: unknown;
  to: unknown;
}

export type ActionKind =
  | 'create'
  | 'update'
  | 'upload'
  | 'replace_list'
  | 'add_to_group'
  | 'remove_from_group'
  | 'launch'
  | 'check'
  | 'pause'
  | 'resume'
  | 'complete'
  | 'relaunch'
  | 'blocked'
  | 'none';

export type ResourceKind =
  | 'project'
  | 'target_group'
  | 'activity_exclusions'
  | 'profiles'
  | 'id_list'
  | 'recontact_list'
  | 'exclusion_group'
  | 'webhook'
  | 'fielding'
  /** An in-place change of a launched target group, through the operation the action names. */
  | 'live_target_group'
  /** A feasibility check of a launched target group before a write that needs it. */
  | 'feasibility';

/** The reference's operations a plan names on an action (see plan/live-changes.ts). */
export type ExchangeOperation =
  | 'update_profile_filling_goal'
  | 'update_fielding_run'
  | 'update_launched_target_group_details'
  | 'update_cost_per_interview'
  | 'update_target_group_allocation_specification'
  | 'create_or_update_fielding_assistant_assignment'
  | 'manage_target_group_profiles'
  | 'set_target_group_respondent_activity_exclusions'
  | 'exclusion_create_upload_rids_by_file_job'
  | 'recontact_create_upload_respondents_by_file_job'
  | 'add_target_groups_to_exclusion_group'
  | 'pause_fielding_run'
  | 'resume_fielding_run'
  | 'complete_fielding_run'
  | 'relaunch_fielding_run'
  | 'create_schedule_fielding_run_from_draft_job'
  | 'launch_now_fielding_run'
  | 'calculate_target_group_feasibility_by_id';

/**
 * The gate of an in-place change that raises a goal or shortens the window: feasibility of the live target
 * group with the change (reference: CalculateTargetGroupFeasibilityByIdRequest, a what-if), judged by the
 * target group's launch rules.
 */
export interface LiveGate {
  requireFeasible: boolean;
  maxCpi?: Money;
  /** launch.mode manual: the change waits for `studyflow approve`. */
  approval: boolean;
  /** What the check is for, e.g. "raising filling_goal 200 -> 300". */
  because: string[];
  request: Record<string, unknown>;
}

/** Something the plan says besides its actions (e.g. a removed target group kept by default). */
export interface PlanNote {
  severity: 'warning' | 'info';
  key?: string;
  text: string;
}

/** What every action carries, whatever its kind. */
interface ActionBase<K extends ActionKind, R extends ResourceKind> {
  kind: K;
  resource: R;
  /** Target-group key, exclusion-group name, webhook URL, or the study id for the project. */
  key: string;
  reason: string;
  /** The exchange and the file disagree because of a change made in the exchange (e.g. paused in the UI). */
  drift?: boolean;
}

/** The fields some kinds of action carry (each kind below says which it has). */
export interface ActionFields {
  /** The fields a create sends, an update or a refusal changes, each with what the exchange holds and what the file wants. */
  changes?: FieldChange[];
  entityType?: IdListEntityType;
  /** The list an upload sends. */
  list?: ListRef;
  /** The exclusion group a membership change joins or leaves. */
  group?: string;
  /** The reference's operation that carries it (in-place changes, fielding state, feasibility, timed launch). */
  operation?: ExchangeOperation;
  /** A feasibility check's gate. */
  gate?: LiveGate;
  /** A timed launch: when. */
  launchAt?: string;
  /** A staged launch: after which target group's completes. */
  launchAfter?: LaunchAfter;
  /** A launch that starts with a soft launch: its completes, time limit, thresholds and what each outcome does. */
  softLaunch?: DesiredSoftLaunch;
}

/**
 * An action of kind K on resource R with its own fields `Own`; the other kinds' fields are absent (typed
 * `undefined`), so a view may read any of them without narrowing, and a consumer that narrows gets them typed.
 */
type Action<K extends ActionKind, R extends ResourceKind, Own extends ActionFields = object> = ActionBase<K, R> & Own & { [F in Exclude<keyof ActionFields, keyof Own>]?: undefined };

/** A new resource, with the fields it is created with (a new draft's activity exclusions go with its draft). */
export type CreateAction = Action<'create', 'project' | 'target_group' | 'activity_exclusions' | 'exclusion_group' | 'webhook', { changes?: FieldChange[] }>;
/** A resource changed: a draft's or the project's fields, the profiles, activity exclusions, a webhook, or a launched target group in place by `operation`. */
export type UpdateAction = Action<
  'update',
  'project' | 'target_group' | 'activity_exclusions' | 'profiles' | 'webhook' | 'live_target_group',
  { changes?: FieldChange[]; operation?: ExchangeOperation }
>;
/** An ID or recontact list uploaded (`replace_list`: after removing the IDs the exchange holds). */
export type ListAction = Action<'upload' | 'replace_list', 'id_list' | 'recontact_list', { entityType?: IdListEntityType; list: ListRef }>;
/** A target group joins or leaves an exclusion group. */
export type MembershipAction = Action<'add_to_group' | 'remove_from_group', 'exclusion_group', { group: string }>;
/** The launch of a draft: now, at `launchAt` (by `operation` when the exchange schedules it), or after `launchAfter`. */
export type LaunchAction = Action<'launch', 'fielding', { operation?: ExchangeOperation; launchAt?: string; launchAfter?: LaunchAfter; softLaunch?: DesiredSoftLaunch }>;
/** A feasibility check of a launched target group before a change that needs it. */
export type CheckAction = Action<'check', 'feasibility', { operation: ExchangeOperation; gate: LiveGate }>;
/** The declared fielding state: the fielding run paused, resumed, completed or relaunched by `operation`. */
export type FieldingAction = Action<'pause' | 'resume' | 'complete' | 'relaunch', 'fielding', { operation: ExchangeOperation }>;
/**
 * A change the exchange cannot make (or the budget refuses), and why; `changes` the fields it concerns, and
 * `operation` the one that would carry an in-place change refused on a completed target group.
 */
export type BlockedAction = Action<'blocked', ResourceKind, { changes?: FieldChange[]; operation?: ExchangeOperation }>;
/** Nothing to do, and why; an action held by its target group's workflow (plan/pipeline.ts) keeps the fields it had. */
export type NoneAction = Action<'none', ResourceKind, ActionFields>;

/** One action of a plan, by its kind (and resource): each carries the fields of its kind. */
export type PlannedAction = CreateAction | UpdateAction | ListAction | MembershipAction | LaunchAction | CheckAction | FieldingAction | BlockedAction | NoneAction;

/** The guards in force of one target group, as the plan lists them. */
export interface GuardsInForce {
  key: string;
  /** One line per guard, e.g. `low_incidence: incidence below 0.175 (0.5 of the expected 0.35) after 200 entrants; pause`. */
  guards: string[];
}

/**
 * The study's budget against its predicted cost (plan/budget.ts): `within` when every target group is priced and
 * the sum is at most the budget; `over` when the priced ones alone pass it (apply refuses to launch);
 * `incomplete` when some target group has no price and the others stay within.
 */
export interface BudgetVerdict {
  budget: Money;
  verdict: 'within' | 'over' | 'incomplete';
  /** Sum of suggested price × filling goal over the priced target groups, in the budget's currency. */
  predicted: Money;
  priced: { key: string; price: Money; goal: number; cost: Money }[];
  /** Target groups without a price in the budget's currency, and why. */
  unpriced: { key: string; why: string }[];
  /** One line, e.g. `predicted cost 1840.00 USD of the budget 2500.00 USD (74%)`. */
  text: string;
}

export interface StudyPlan {
  studyId: string;
  revision: string;
  actions: PlannedAction[];
  /** True when some action writes. */
  hasChanges: boolean;
  /** Warnings and remarks besides the actions (absent: none). */
  notes?: PlanNote[];
  /** The guards in force per target group (absent: no target group has one). */
  guards?: GuardsInForce[];
  /** The budget against the predicted cost (absent: the study has no budget). */
  budget?: BudgetVerdict;
}

/**
 * A change the study file asks for that apply did not make: the target group, the field (`fielding` for the
 * declared state) and why: the exchange cannot change it (`blocked`), its feasibility gate refused it or it
 * waits for approval (`gate_refused`), the exchange refused the write (`operation_failed`), or a partial apply
 * left it out (`left_out`, plan/scope.ts: it stays pending, the next apply of it makes it).
 */
export interface UnappliedChange {
  targetGroup: string;
  field: string;
  reason: 'blocked' | 'gate_refused' | 'operation_failed' | 'left_out';
  detail: string;
}
