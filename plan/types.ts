// The planning core's vocabulary: what the study file wants (DesiredStudy), what the API holds
// (ObservedStudy), and the ordered actions that take one to the other. Plain JSON, no secrets,
// no respondent IDs (ID lists are {ref, sha256, count}); safe to pass into workflows.

import type { ApiVersion } from '../shared/api-version';
import type { IdListEntityType, ListRef } from '../shared/id-list';

export type { ApiVersion } from '../shared/api-version';
export type { IdListEntityType, ListRef } from '../shared/id-list';

export interface Money {
  value: string;
  currency_code: string;
}

export interface LaunchRules {
  /** auto: launch once the gates pass; manual: wait for `studyflow approve` (or a UI signal). */
  mode: 'auto' | 'manual';
  requireFeasible: boolean;
  maxCpi?: Money;
  /** ISO timestamp sent as end_fielding_at on launch. */
  endFieldingAt?: string;
}

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
}

export interface ObservedList {
  count: number;
  sha256: string;
}

export interface ObservedTargetGroup {
  id: string;
  status: string;
  fields: Record<string, unknown>;
  /** The draft-body fields the read carries (a launched group's details lack some): only these are compared. Absent: all. */
  fieldsRead?: string[];
  activityExclusions?: { duration?: string; items: unknown[] };
  idLists: Partial<Record<IdListEntityType, ObservedList>>;
  recontact?: ObservedList;
  fieldingRunId?: string | null;
}

export interface ObservedStudy {
  project?: { id: string; fields: Record<string, unknown> };
  /** Keyed by the study's local target-group key. */
  targetGroups: Record<string, ObservedTargetGroup>;
  /** Keyed by the study's exclusion-group name. */
  exclusionGroups: Record<string, { id: string; targetGroupIds: string[] }>;
  /** The account's webhooks whose URL a study declares, keyed by URL. */
  webhooks?: Record<string, { id: string; events: string[]; compression: 'gzip' | null }>;
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
  | 'fielding';

export interface PlannedAction {
  kind: ActionKind;
  resource: ResourceKind;
  /** Target-group key, exclusion-group name, or the study id for the project. */
  key: string;
  reason: string;
  changes?: FieldChange[];
  entityType?: IdListEntityType;
  list?: ListRef;
  group?: string;
}

export interface StudyPlan {
  studyId: string;
  revision: string;
  actions: PlannedAction[];
  /** True when some action writes. */
  hasChanges: boolean;
}
