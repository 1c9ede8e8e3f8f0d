// The request of each in-place operation on a launched target group: what the file decides, typed, one shape
// per operation (the `update_live` step of plan/program.ts carries it; the workflow dispatches it to the
// operation's activity and builds nothing). Built here from the changes plan/live-plan.ts finds, by field
// name. What only exists at run time (the fielding run's id and ETag) is read by the workflow before the write.
// Pure.
import type { Money } from '../shared/money';
import type { ExchangeOperation } from './types';

/** The in-place operations a target group's workflow carries out (update_live). */
export const LIVE_UPDATE_OPERATIONS = [
  'update_profile_filling_goal',
  'update_fielding_run',
  'update_launched_target_group_details',
  'update_cost_per_interview',
  'update_target_group_allocation_specification',
  'create_or_update_fielding_assistant_assignment',
  'set_target_group_respondent_activity_exclusions',
] as const satisfies readonly ExchangeOperation[];
export type LiveUpdateOperation = (typeof LIVE_UPDATE_OPERATIONS)[number];

/** A quota's goal, by the ids update_profile_filling_goal writes it by. */
export interface LiveQuotaGoal {
  profileId: string;
  targetId: string;
  completesGoal: number;
}

/** update_launched_target_group_details, in the operation's names: only the details the file changes (merged into the current ones). */
export interface LiveDetailsRequest {
  name?: string;
  projectManagerId?: string;
  lengthOfInterviewMinutes?: number;
  incidenceRate?: number;
  liveUrl?: string;
  testUrl?: string;
  customerReferenceNumber?: string | null;
  cpiNote?: Money | null;
}

/** The reference's allocation specification (update_target_group_allocation_specification takes the whole of it). */
export interface LiveAllocationSpecification {
  open_exchange_allocations: {
    blocked_supplier_ids: string[];
    exchange_min_percentage: number;
    exchange_max_percentage: number;
    groups: { group_name: string; min_percentage: number; max_percentage: number; supplier_ids: string[] }[];
  };
  private_exchange_allocations: {
    blocked_supplier_ids: string[];
    groups: { group_name: string; min_percentage: number; max_percentage: number; supplier_id: string }[];
  };
}

/** The fielding assistant's modules as the file gives them (the assignment replaces the old one as a whole). */
export interface LiveFieldingAssistantModules {
  pricing?: ({ type: string } & Record<string, unknown>) | null;
  quota_overlay?: { prevent_overfill: boolean; balance_fill: boolean };
  pacing?: ({ type: string } & Record<string, unknown>) | null;
  soft_launch?: { end_at: string; filling_goal_percentage: number; demographics_strictness_percentage: number };
}

/** One respondent activity exclusion, with the id of the project or target group it names. */
export type LiveActivityExclusionItem = {
  type: 'project' | 'target_group';
  id: string;
  respondent_statuses?: string[];
  duration?: string;
};

/** The request of one in-place operation, exactly as its activity sends it. */
export type LiveRequest =
  | { operation: 'update_profile_filling_goal'; completesGoal?: number; quotaGoals?: LiveQuotaGoal[] }
  /** The window; a date left out stays the run's (the run's id and ETag are read just before the write). */
  | { operation: 'update_fielding_run'; startFieldingAt?: string; endFieldingAt?: string }
  | { operation: 'update_launched_target_group_details'; details: LiveDetailsRequest }
  | { operation: 'update_cost_per_interview'; costPerInterview: Money }
  | { operation: 'update_target_group_allocation_specification'; allocations: LiveAllocationSpecification }
  | { operation: 'create_or_update_fielding_assistant_assignment'; modules: LiveFieldingAssistantModules }
  | { operation: 'set_target_group_respondent_activity_exclusions'; items: LiveActivityExclusionItem[]; duration?: string };

// Every live operation has exactly one request shape, and every request shape is a live operation.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : never) : never;
const _everyOperationHasARequest: Same<LiveRequest['operation'], LiveUpdateOperation> = true;
void _everyOperationHasARequest;

/** The request of `operation`. */
export type LiveRequestOf<O extends LiveUpdateOperation> = Extract<LiveRequest, { operation: O }>;

/** A field a step changes that its request cannot carry, and why: recorded as not applied, never dropped. */
export interface LiveUnwritable {
  field: string;
  detail: string;
}

/** One change as the plan found it: the field, what the exchange holds, what the file wants. */
export interface LiveChange {
  field: string;
  from?: unknown;
  to: unknown;
}

/** A quota goal change's ids (`profiles.<profile>.<quota>.completes_goal` -> the profile and target ids). */
export interface QuotaGoalIds {
  field: string;
  profileId: string;
  targetId: string;
}

type Json = Record<string, unknown>;
const record = (value: unknown): Json => (value && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : {});
const strings = (value: unknown): string[] => (Array.isArray(value) ? value.map(String) : []);
const objects = (value: unknown): Json[] => (Array.isArray(value) ? value.map(record) : []);
const money = (value: unknown): Money => ({ value: String(record(value).value), currency_code: String(record(value).currency_code) });

/** The draft fields update_launched_target_group_details carries, by the name the operation takes each under. */
export const DETAIL_REQUEST_NAMES = {
  name: 'name',
  project_manager_id: 'projectManagerId',
  expected_length_of_interview_minutes: 'lengthOfInterviewMinutes',
  expected_incidence_rate: 'incidenceRate',
  live_url: 'liveUrl',
  test_url: 'testUrl',
  target_group_customer_reference_number: 'customerReferenceNumber',
  client_cost_per_interview_note: 'cpiNote',
} as const satisfies Record<string, keyof LiveDetailsRequest>;

function detailValue(name: keyof LiveDetailsRequest, value: unknown): LiveDetailsRequest[keyof LiveDetailsRequest] {
  switch (name) {
    case 'lengthOfInterviewMinutes':
    case 'incidenceRate':
      return Number(value);
    case 'customerReferenceNumber':
      return value === null || value === undefined ? null : String(value);
    case 'cpiNote':
      return value ? money(value) : null;
    default:
      return String(value);
  }
}

/** The reference's allocation specification from the file's allocations (suppliers under `supplier_ids`; the recontact template is the draft's only). */
export function allocationSpecification(allocations: unknown): LiveAllocationSpecification {
  const open = record(record(allocations).open_exchange_allocations);
  const priv = record(record(allocations).private_exchange_allocations);
  return {
    open_exchange_allocations: {
      blocked_supplier_ids: strings(open.blocked_supplier_ids),
      exchange_min_percentage: typeof open.exchange_min_percentage === 'number' ? open.exchange_min_percentage : 0,
      exchange_max_percentage: typeof open.exchange_max_percentage === 'number' ? open.exchange_max_percentage : 100,
      groups: objects(open.groups).map((g) => ({ group_name: String(g.group_name), min_percentage: Number(g.min_percentage), max_percentage: Number(g.max_percentage), supplier_ids: strings(g.suppliers) })),
    },
    private_exchange_allocations: {
      blocked_supplier_ids: strings(priv.blocked_supplier_ids),
      groups: objects(priv.groups).map((g) => ({ group_name: String(g.group_name), min_percentage: Number(g.min_percentage), max_percentage: Number(g.max_percentage), supplier_id: String(g.supplier_id) })),
    },
  };
}

const ASSISTANT_MODULES = ['pricing', 'quota_overlay', 'pacing', 'soft_launch'] as const;

/** The assistant's modules the file gives (the schema of the study format checked their shapes). */
function assistantModules(value: unknown): LiveFieldingAssistantModules {
  const given = record(value);
  const modules: Json = {};
  for (const name of ASSISTANT_MODULES) if (Object.hasOwn(given, name) && given[name] !== undefined) modules[name] = given[name];
  return modules as LiveFieldingAssistantModules;
}

function exclusionItems(value: unknown): LiveActivityExclusionItem[] {
  return objects(value).map((item) => ({
    type: item.type === 'project' ? 'project' : 'target_group',
    id: String(item.id),
    ...(Array.isArray(item.respondent_statuses) ? { respondent_statuses: item.respondent_statuses.map(String) } : {}),
    ...(typeof item.duration === 'string' ? { duration: item.duration } : {}),
  }));
}

/**
 * The request of `operation` for the changes the plan found (each with the value the file wants), and the
 * changes it cannot carry. `quotas` gives the ids of the quota goals among them (by field name).
 */
export function liveRequest(
  operation: LiveUpdateOperation,
  changes: readonly LiveChange[],
  quotas: readonly QuotaGoalIds[] = [],
): { request: LiveRequest; unwritable: LiveUnwritable[] } {
  const unwritable: LiveUnwritable[] = [];
  const to = (field: string) => changes.find((c) => c.field === field)?.to;
  const has = (field: string) => changes.some((c) => c.field === field);
  switch (operation) {
    case 'update_profile_filling_goal': {
      const quotaGoals: LiveQuotaGoal[] = [];
      for (const change of changes) {
        if (change.field === 'filling_goal') continue;
        const ids = quotas.find((q) => q.field === change.field);
        if (ids && typeof change.to === 'number') quotaGoals.push({ profileId: ids.profileId, targetId: ids.targetId, completesGoal: change.to });
        else unwritable.push({ field: change.field, detail: `the exchange shows no quota named as ${change.field} (a new quota is a change of the profiles)` });
      }
      const total = to('filling_goal');
      return {
        request: { operation, ...(has('filling_goal') ? { completesGoal: Number(total) } : {}), ...(quotaGoals.length ? { quotaGoals } : {}) },
        unwritable,
      };
    }
    case 'update_fielding_run': {
      const start = to('start_fielding_at');
      const end = to('end_fielding_at');
      for (const c of changes) {
        if (c.field !== 'start_fielding_at' && c.field !== 'end_fielding_at') unwritable.push({ field: c.field, detail: `update_fielding_run does not carry ${c.field}` });
      }
      return {
        request: { operation, ...(typeof start === 'string' ? { startFieldingAt: start } : {}), ...(typeof end === 'string' ? { endFieldingAt: end } : {}) },
        unwritable,
      };
    }
    case 'update_launched_target_group_details': {
      const details: Record<string, unknown> = {};
      for (const { field, to: value } of changes) {
        const name = Object.hasOwn(DETAIL_REQUEST_NAMES, field) ? DETAIL_REQUEST_NAMES[field as keyof typeof DETAIL_REQUEST_NAMES] : undefined;
        if (name) details[name] = detailValue(name, value);
        else unwritable.push({ field, detail: `update_launched_target_group_details does not carry ${field}` });
      }
      return { request: { operation, details: details as LiveDetailsRequest }, unwritable };
    }
    case 'update_cost_per_interview':
      return { request: { operation, costPerInterview: money(to('cost_per_interview')) }, unwritable: others(changes, 'cost_per_interview', operation) };
    case 'update_target_group_allocation_specification':
      return { request: { operation, allocations: allocationSpecification(to('allocations')) }, unwritable: others(changes, 'allocations', operation) };
    case 'create_or_update_fielding_assistant_assignment':
      return { request: { operation, modules: assistantModules(to('fielding_assistant_assignment')) }, unwritable: others(changes, 'fielding_assistant_assignment', operation) };
    case 'set_target_group_respondent_activity_exclusions': {
      const value = record(to('activity_exclusions'));
      return {
        request: { operation, items: exclusionItems(value.items), ...(typeof value.duration === 'string' ? { duration: value.duration } : {}) },
        unwritable: others(changes, 'activity_exclusions', operation),
      };
    }
  }
}

/** The changes besides the one field an operation carries. */
function others(changes: readonly LiveChange[], field: string, operation: LiveUpdateOperation): LiveUnwritable[] {
  return changes.filter((c) => c.field !== field).map((c) => ({ field: c.field, detail: `${operation} does not carry ${c.field}` }));
}
