// Target groups: ensure a draft (read before create), update a draft, list, find, overview, performance.
import { readMoney, type Money } from '../../shared/money';
import { goalFieldInVersion, profileOfConfig, withActivityItems, withGoalFieldOut } from '../http/dialect';
import { LIST_TARGET_GROUPS } from '../wire/lists';
import { TargetGroupPerformanceAnswer } from '../wire/performance';
import { describeShape, readAnswer, wireMismatchFailure } from '../wire/read-answer';
import { requestBody } from '../wire/request-body';
import { CreatedDraftTargetGroupResponse, draftTargetGroupRequest } from '../wire/target-groups';
import { fromWireBody, toWireBody, withActivityItemTypes } from '../wire/version-adapter';
import { expectObject } from './answers';
import { projectPath, targetGroupPath, type ApiCaller } from './caller';
import { ensureResource } from './ensure-resource';
import type { TargetGroupRef } from './fielding';
import { DEFAULT_LIST_PAGE_SIZE, listAllPages } from './pagination';
import { readTargetGroupState, type TargetGroupState } from './target-group-state';
import type { ApiObject, JsonObject } from './types';

/** Draft target group fields (2025-12-18 names); the five required ones are typed, others pass through. */
export interface TargetGroupDesired extends JsonObject {
  name?: string;
  locale?: string;
  live_url?: string | null;
  test_url?: string | null;
  expected_incidence_rate: number;
  expected_length_of_interview_minutes: number;
  filling_goal: number;
  /** A UUID (the reference's UserID). */
  project_manager_id: string;
  collects_pii: boolean;
  business_unit_id?: string;
  fielding_specification?: { start_at: string; end_at: string };
  study_type_code?: string;
  /** The natural key; when present, ensure finds an existing draft by it. */
  target_group_customer_reference_number?: string;
}

/**
 * The draft body of create and update in the caller's dialect (api/http/dialect.ts): studyflow's
 * `filling_goal` under the profile's name, activity-exclusion items in the wire's types, checked with the
 * profile's request schema (a body the API would refuse is not sent), then in the call's version's names.
 * `name` names the operation in the failure of a refused body.
 */
function draftBody(caller: ApiCaller, name: string, operation: string, desired: Record<string, unknown>): Record<string, unknown> {
  const profile = profileOfConfig(caller);
  const wire = withActivityItems(profile, withGoalFieldOut(profile, withActivityItemTypes(desired, 'toWire')), 'out');
  return goalFieldInVersion(toWireBody(requestBody(name, operation, draftTargetGroupRequest(profile), wire) as Record<string, unknown>, caller.apiVersion), caller.apiVersion);
}

/** The target group by id (its draft fields when a draft), or undefined on 404: one call. */
async function readTargetGroup(caller: ApiCaller, projectId: string, targetGroupId: string): Promise<ApiObject | undefined> {
  const state = await readTargetGroupState(caller, projectId, targetGroupId, [], { missingOk: true });
  return state && { ...state.fields, id: state.id, status: state.status };
}

/** get_list_target_groups: every target group of the project (all pages), or those with the customer reference number. */
export async function listTargetGroups(caller: ApiCaller, projectId: string, options: { reference?: string; pageSize?: number } = {}): Promise<ApiObject[]> {
  // get_list_target_groups filters by the plural target_group_customer_reference_numbers (an array).
  const items = await listAllPages(caller, {
    method: 'GET',
    path: `${projectPath(caller, projectId)}/target-groups`,
    query: { target_group_customer_reference_numbers: options.reference },
  }, LIST_TARGET_GROUPS, options.pageSize ?? DEFAULT_LIST_PAGE_SIZE);
  return items.map((item) => fromWireBody(item, caller.apiVersion) as ApiObject);
}

/**
 * One target group's figures from get_list_target_groups' statistics (TargetGroupsListItem.statistics, each a
 * `{value, issues}`): what the study's watch compares from one read to the next. A statistic the API leaves
 * out stays undefined.
 */
export interface TargetGroupFigures {
  id: string;
  status: string;
  completes: number;
  prescreens: number;
  fillingGoal?: number;
  lastCompleteDate?: string;
  incidenceRate?: number;
  dropOffRate?: number;
  averageCostPerInterview?: Money;
  /**
   * The list item's `updated_at` (TargetGroupsListItem): when the target group itself was last changed (its
   * fields or status, by anyone), not its statistics. A change wakes the target group's drift check.
   */
  updatedAt?: string;
}

function statisticValue(statistics: Record<string, unknown>, name: string): unknown {
  const stat = statistics[name];
  return stat && typeof stat === 'object' ? (stat as { value?: unknown }).value : undefined;
}

/** The figures of one list item (a field of the wrong type is left out, never guessed). */
export function figuresOfListItem(item: ApiObject): TargetGroupFigures {
  const statistics = item.statistics && typeof item.statistics === 'object' ? (item.statistics as Record<string, unknown>) : {};
  const progress = statisticValue(statistics, 'progress');
  const p = progress && typeof progress === 'object' ? (progress as Record<string, unknown>) : {};
  const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
  const figures: TargetGroupFigures = { id: String(item.id), status: String(item.status), completes: num(p.current_completes) ?? 0, prescreens: num(p.current_prescreens) ?? 0 };
  const goal = num(p.filling_goal);
  if (goal !== undefined) figures.fillingGoal = goal;
  const last = statisticValue(statistics, 'last_complete_date');
  if (typeof last === 'string') figures.lastCompleteDate = last;
  if (typeof item.updated_at === 'string') figures.updatedAt = item.updated_at;
  const incidence = num(statisticValue(statistics, 'incidence_rate'));
  if (incidence !== undefined) figures.incidenceRate = incidence;
  const dropOff = num(statisticValue(statistics, 'drop_off_rate'));
  if (dropOff !== undefined) figures.dropOffRate = dropOff;
  const cpi = statisticValue(statistics, 'average_cost_per_interview');
  if (cpi && typeof cpi === 'object' && 'value' in cpi && 'currency_code' in cpi) {
    // Exact, in its own currency (shared/money.ts); a statistic that is not money in the reference's shape is left out.
    const money = readMoney(cpi);
    if (money) figures.averageCostPerInterview = money;
  }
  return figures;
}

/**
 * get_list_target_groups for the watch: the figures of every target group of the project, in pages of up to
 * 100 (one call per page, however many target groups are live).
 */
export async function listTargetGroupFigures(caller: ApiCaller, projectId: string, pageSize = DEFAULT_LIST_PAGE_SIZE): Promise<TargetGroupFigures[]> {
  return (await listTargetGroups(caller, projectId, { pageSize })).map(figuresOfListItem);
}

export interface EnsureDraftTargetGroup {
  projectId: string;
  /** Sent as Idempotency-Key on the create. */
  idempotencyKey: string;
  knownId?: string;
  desired: TargetGroupDesired;
  /** The plan observed no such target group: create it without looking again (see ensureResource). */
  observedAbsent?: boolean;
  /** Page size of the target-group list read for the natural key. */
  pageSize?: number;
  /**
   * The project's target groups, listed once for a whole batch (instead of one filtered list read per
   * draft); without it, the draft's own reference is listed.
   */
  projectListing?: () => Promise<ApiObject[]>;
}

/** Finds the draft by knownId, then by target_group_customer_reference_number; else creates it. */
export async function ensureDraftTargetGroup(caller: ApiCaller, input: EnsureDraftTargetGroup): Promise<{ targetGroup: ApiObject; created: boolean }> {
  const { projectId, desired, knownId, projectListing } = input;
  const reference = desired.target_group_customer_reference_number;
  const { resource, created } = await ensureResource({
    describe: `target group with target_group_customer_reference_number ${reference ?? ''} in project ${projectId}`,
    observedAbsent: input.observedAbsent === true,
    getById: knownId ? () => readTargetGroup(caller, projectId, knownId) : undefined,
    findByNaturalKey: reference
      ? async () => (projectListing ? await projectListing() : await listTargetGroups(caller, projectId, { reference, pageSize: input.pageSize })).filter(
          (tg) => String(tg.target_group_customer_reference_number) === reference,
        )
      : undefined,
    // The list item (id, status) is all the caller uses: no second read.
    create: async () => {
      const req = {
        method: 'POST',
        path: `${projectPath(caller, projectId)}/target-groups`,
        json: draftBody(caller, 'ensureDraftTargetGroup', 'create_target_group', desired),
        idempotencyKey: input.idempotencyKey,
      } as const;
      // 201 {id}: the id is used as is; the draft is not read back.
      const answer = readAnswer({ operation: 'create_target_group', ...req }, CreatedDraftTargetGroupResponse, await caller.send(req));
      return { ...desired, id: answer.id, status: 'draft' };
    },
  });
  return { targetGroup: resource, created };
}

/**
 * update_target_group `PUT TG`: replaces the draft's fields (the API refuses when it is no longer a draft).
 * The reference answers 204 without a body: the result is the desired fields with the id.
 */
export async function updateDraftTargetGroup(caller: ApiCaller, input: TargetGroupRef & { desired: Record<string, unknown> }): Promise<ApiObject> {
  const req = {
    method: 'PUT',
    path: targetGroupPath(caller, input.projectId, input.targetGroupId),
    json: draftBody(caller, 'updateDraftTargetGroup', 'update_target_group', input.desired),
  } as const;
  const res = await caller.send(req);
  if (res.status !== 204) throw wireMismatchFailure({ operation: 'update_target_group', ...req }, res.status, describeShape(res.body), ['the reference answers 204 without a body']);
  return { ...input.desired, id: input.targetGroupId, status: 'draft' };
}

/** `GET TG/overview`, any JSON object, in 2025-12-18 names. */
export async function getTargetGroupOverview(caller: ApiCaller, input: TargetGroupRef): Promise<Record<string, unknown>> {
  const req = { method: 'GET', path: `${targetGroupPath(caller, input.projectId, input.targetGroupId)}/overview` } as const;
  return fromWireBody(expectObject(req, await caller.send(req)), caller.apiVersion);
}

/**
 * get_target_group_performance `GET TG/performance`: a launched group's TargetGroupPerformance, checked
 * with the wire schema (another shape is `wire_mismatch`). A 404 (unknown, or still a draft) is the API's
 * final not_found_error.
 */
export async function getTargetGroupPerformance(caller: ApiCaller, input: TargetGroupRef): Promise<TargetGroupPerformanceAnswer> {
  const req = { method: 'GET', path: `${targetGroupPath(caller, input.projectId, input.targetGroupId)}/performance` } as const;
  const res = await caller.send(req);
  // An older version's completes_cost (integer minor units) is made the 2025-12-18 money first.
  return readAnswer({ operation: 'get_target_group_performance', ...req }, TargetGroupPerformanceAnswer, { status: res.status, body: fromWireBody(res.body, caller.apiVersion) });
}

/**
 * A study's target group as observed before a plan: by the remembered id, else by each customer reference
 * number in turn; the whole state the planner compares (status, fielding run, fields). Undefined when none is found.
 */
export async function findTargetGroupState(
  caller: ApiCaller,
  input: { projectId: string; knownId?: string; references: string[]; pageSize?: number },
): Promise<TargetGroupState | undefined> {
  // The planner compares fields and needs the status and the run: a draft is one read, a launched group four.
  const readState = (id: string) => readTargetGroupState(caller, input.projectId, id, ['status', 'fieldingRun', 'fields'], { missingOk: true });
  if (input.knownId) {
    const byId = await readState(input.knownId);
    if (byId) return byId;
  }
  for (const reference of input.references) {
    const found = await listTargetGroups(caller, input.projectId, { reference, pageSize: input.pageSize });
    const match = found.find((t) => t.target_group_customer_reference_number === reference);
    if (match) return await readState(match.id);
  }
  return undefined;
}
