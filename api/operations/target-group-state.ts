// The one reader of a target group's state on the reference's wire: GET TG answers a draft (its fields, no id,
// status or fielding run), or 301 once the group left draft, whose state then lives in TG/overview (status),
// TG/fielding-runs (the run) and TG/details (the fields). Each caller asks for what it needs, so a draft
// costs one call and a launched group only the reads its caller uses.
import { profileOfConfig, withActivityItems } from '../http/dialect';
import { failureFromAnswer } from '../http/errors';
import { describeShape, readAnswer, wireMismatchFailure, type WireCall } from '../wire/read-answer';
import { DraftTargetGroupAnswer, FieldingRunsAnswer, TargetGroupDetailsAnswer, TargetGroupOverviewAnswer } from '../wire/target-group-state';
import { fromWireBody } from '../wire/version-adapter';
import { targetGroupPath, type ApiCaller } from './caller';

/** What a caller reads of a launched target group beyond the fact that it left draft. */
export type TargetGroupStateRead = 'status' | 'fieldingRun' | 'fields';

/** A target group's state, its fields in the names and shapes of the draft body studyflow sends. */
export interface TargetGroupState {
  id: string;
  /**
   * `draft`, or the overview's status of a launched group (`scheduled`, `live`, `paused`, `completed`,
   * `archived`). Without the `status` read, a launched group's status is its fielding run's, or `launched`
   * when it has none.
   */
  status: string;
  /** The fields the read carries (a draft's from GET TG, a launched group's from TG/details; none otherwise). */
  fields: Record<string, unknown>;
  /**
   * The draft-body fields this read carries: compare only these (TG/details lacks allocations, the fielding
   * window, the fielding assistant, activity exclusions and more; comparing them would invent drift).
   */
  fieldsRead: string[];
  /** The fielding run of a launched group (with the `fieldingRun` read); null for a draft. */
  fieldingRunId: string | null;
  /** When the exchange starts (or started) that run: a scheduled group's launch moment (with the `fieldingRun` read). */
  fieldingRunStartsAt?: string;
}

/**
 * The draft-body fields FetchTargetGroupResponse defines (`completes_goal` read as the draft body's
 * `filling_goal`, a spec deviation; its allocations read back into the request's shape).
 */
const DRAFT_READ_FIELDS = [
  'name', 'business_unit_id', 'locale', 'collects_pii', 'study_type_code', 'pricing_model', 'client_cost_per_interview_note',
  'project_manager_id', 'fielding_specification', 'filling_goal', 'expected_length_of_interview_minutes', 'expected_incidence_rate',
  'respondent_activity_exclusions', 'live_url', 'test_url', 'fielding_assistant_assignment', 'allocations', 'target_group_customer_reference_number',
] as const;
/** The draft-body fields TargetGroupDetails defines. */
const DETAILS_READ_FIELDS = [
  'name', 'business_unit_id', 'project_manager_id', 'study_type_code', 'locale', 'filling_goal', 'expected_length_of_interview_minutes',
  'expected_incidence_rate', 'client_cost_per_interview_note', 'collects_pii', 'live_url', 'test_url', 'target_group_customer_reference_number',
] as const;

type Json = Record<string, unknown>;
const isRecord = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** `completes_goal` (the reference's reads) as the draft body's `filling_goal` (the spec's name on create and update). */
function withFillingGoal(body: Json): Json {
  const { completes_goal: goal, ...rest } = body;
  return goal === undefined ? rest : { ...rest, filling_goal: goal };
}

/** SupplierResponse ids back to the request's SupplierIds (text). */
const supplierIds = (suppliers: unknown): string[] | undefined =>
  Array.isArray(suppliers) ? suppliers.map((s) => (isRecord(s) ? String(s.id) : String(s))) : undefined;

/**
 * GetDraftSupplyAllocationGroupResponse (suppliers as objects, `blocked_suppliers`) back into the shape of
 * CreateDraftAllocationSpecificationGroupRequest (supplier ids, `blocked_supplier_ids`), so that a draft read
 * back compares with what was sent. Other keys (the spec's recontact `template_id`) are kept.
 */
function allocationsAsSent(allocations: unknown): unknown {
  if (!isRecord(allocations)) return allocations;
  const out: Json = { ...allocations };
  const open = allocations.open_exchange_allocations;
  if (isRecord(open)) {
    const { blocked_suppliers: blocked, exchange_suppliers: _exchange, groups, ...rest } = open;
    out.open_exchange_allocations = {
      ...rest,
      blocked_supplier_ids: supplierIds(blocked) ?? [],
      groups: Array.isArray(groups) ? groups.map((g) => (isRecord(g) ? { ...withoutKey(g, 'group_id'), suppliers: supplierIds(g.suppliers) ?? [] } : g)) : [],
    };
  }
  const priv = allocations.private_exchange_allocations;
  if (isRecord(priv)) {
    const { blocked_suppliers: blocked, groups, ...rest } = priv;
    out.private_exchange_allocations = {
      ...rest,
      blocked_supplier_ids: supplierIds(blocked) ?? [],
      groups: Array.isArray(groups)
        ? groups.map((g) => {
            if (!isRecord(g)) return g;
            const { supplier, ...group } = withoutKey(g, 'group_id');
            return isRecord(supplier) ? { ...group, supplier_id: String(supplier.id) } : group;
          })
        : [],
    };
  }
  return out;
}

function withoutKey(record: Json, key: string): Json {
  const { [key]: _dropped, ...rest } = record;
  return rest;
}

/** The fields read, plus any other draft-body field the answer carries (e.g. the spec's `type` on get). */
const readFieldsOf = (defined: readonly string[], fields: Json) => [...new Set([...defined, ...Object.keys(fields)])];

/**
 * The state of a target group, or undefined when the API answers 404 and `missingOk` is set (otherwise the
 * 404 is the failure the API gave). A draft costs one call; a launched group one more per read asked.
 */
export async function readTargetGroupState(
  caller: ApiCaller,
  projectId: string,
  targetGroupId: string,
  reads: readonly TargetGroupStateRead[],
  options: { missingOk?: boolean } = {},
): Promise<TargetGroupState | undefined> {
  const path = targetGroupPath(caller, projectId, targetGroupId);
  const req = { method: 'GET', path, acceptStatuses: [301, 404] } as const;
  const res = await caller.send(req);
  const call: WireCall = { operation: 'get_target_group', method: req.method, path };
  if (res.status === 404) {
    if (options.missingOk) return undefined;
    throw failureFromAnswer(res, { method: req.method, path });
  }
  if (res.status === 200) {
    // Activity-exclusion items read in studyflow's terms: under `cint` (no respondent_statuses) an item excludes [Complete].
    const draft = withActivityItems(profileOfConfig(caller), fromWireBody(readAnswer(call, DraftTargetGroupAnswer, res), caller.apiVersion) as Json, 'in');
    const fields = withFillingGoal(draft);
    if ('allocations' in fields) fields.allocations = allocationsAsSent(fields.allocations);
    return { id: targetGroupId, status: 'draft', fields, fieldsRead: readFieldsOf(DRAFT_READ_FIELDS, fields), fieldingRunId: null };
  }
  // The reference: 301 Moved Permanently to TG/details once the group left draft. undici does not follow
  // it (no redirect interceptor on the dispatcher); its Location is required.
  if (res.status !== 301 || !res.headers.location) {
    throw wireMismatchFailure(call, res.status, describeShape(res.body), [
      res.status === 301 ? 'the 301 carries no Location header' : 'the reference answers 200 with a draft or 301 to the details',
    ]);
  }
  const overview = reads.includes('status') ? readOverview(caller, path) : undefined;
  const run = reads.includes('fieldingRun') ? readFieldingRun(caller, path) : undefined;
  const details = reads.includes('fields') ? readDetails(caller, path) : undefined;
  const [status, fieldingRun, fields] = await Promise.all([overview, run, details]);
  return {
    id: targetGroupId,
    status: status ?? fieldingRun?.status ?? 'launched',
    fields: fields ?? {},
    fieldsRead: fields ? readFieldsOf(DETAILS_READ_FIELDS, fields) : [],
    fieldingRunId: fieldingRun?.id ?? null,
    ...(fieldingRun?.startsAt ? { fieldingRunStartsAt: fieldingRun.startsAt } : {}),
  };
}

async function readOverview(caller: ApiCaller, tgPath: string): Promise<string> {
  const req = { method: 'GET', path: `${tgPath}/overview` } as const;
  return readAnswer({ operation: 'get_target_group_overview', ...req }, TargetGroupOverviewAnswer, await caller.send(req)).status;
}

async function readFieldingRun(caller: ApiCaller, tgPath: string): Promise<{ id: string; status: string; startsAt?: string } | undefined> {
  const req = { method: 'GET', path: `${tgPath}/fielding-runs` } as const;
  const runs = readAnswer({ operation: 'get_fielding_runs_by_target_group_id', ...req }, FieldingRunsAnswer, await caller.send(req));
  const run = runs.data[0];
  return run ? { id: run.id, status: run.status, ...(run.start_fielding_at ? { startsAt: run.start_fielding_at } : {}) } : undefined;
}

async function readDetails(caller: ApiCaller, tgPath: string): Promise<Json> {
  const req = { method: 'GET', path: `${tgPath}/details` } as const;
  const details = readAnswer({ operation: 'get_target_group_details', ...req }, TargetGroupDetailsAnswer, await caller.send(req));
  return withFillingGoal(fromWireBody(details, caller.apiVersion) as Json);
}
