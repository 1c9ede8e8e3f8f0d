// The operations on a launched target group (issue 28), as plain functions over an ApiCaller: one read of every
// field a live group can change (with the ETags needed to write), and one write per reference operation. Every
// write reads first: a field already at the desired value answers `already_in_state` without writing (a re-apply
// makes no write). Writes guarded by an ETag send If-Match; a 412 re-reads and answers `precondition_failed` with
// the fresh state (or `already_in_state` when the fresh state is the desired one), a 422 `invalid_state`.
import type { z } from 'zod';
import { decodeMoney, MoneyError, toMicros, type Money } from '../../shared/money';
import type { ApiResponse } from '../http/demand-api-client';
import { failureFromAnswer } from '../http/errors';
import { FieldingRunAnswer } from '../wire/fielding';
import {
  AllocationSpecificationAnswer, CostPerInterviewAnswer, FeasibilityByIdAnswer, FieldingAssistantAnswer, LaunchNowAnswer, ScheduleJobAnswer,
  UpdateFieldingRunAnswer, type AllocationSpecificationRequest, type FeasibilityByIdRequest, type FieldingAssistantRequest,
} from '../wire/live-target-groups';
import { describeShape, readAnswer, wireMismatchFailure } from '../wire/read-answer';
import { ProfilesResponse } from '../wire/profiles';
import { FieldingRunsAnswer, TargetGroupDetailsAnswer, TargetGroupOverviewAnswer } from '../wire/target-group-state';
import { seg, targetGroupPath, type ApiCaller, type OperationRequest } from './caller';

export interface LiveTargetGroupRef {
  projectId: string;
  targetGroupId: string;
}

/** The one Money type (shared/money.ts): `{value, currency_code}` as the reference's MonetaryAmount, exact. */
export type { Money } from '../../shared/money';

export interface FieldingRunState {
  id: string;
  status: 'scheduled' | 'live' | 'paused' | 'completed';
  startFieldingAt: string | null;
  endFieldingAt: string | null;
  /** Sent as If-Match by the run's writes. */
  etag: string;
}

export interface QuotaGoal {
  profileId: string;
  targetId: string;
  completesGoal: number;
  /** The profile's name and the quota's (the target's when the quota has none): the file names quotas by them. */
  profileName?: string;
  quotaName?: string;
}

export interface LiveDetails {
  name: string;
  projectManagerId: string;
  lengthOfInterviewMinutes: number;
  incidenceRate: number;
  liveUrl: string;
  testUrl: string;
  industryLockoutCode: string;
  customerReferenceNumber: string | null;
  cpiNote: Money | null;
}

/** Every field of a launched target group that the exchange lets change, as plain data. */
export interface LiveTargetGroup {
  status: string;
  fieldingRun: FieldingRunState | null;
  completesGoal: number;
  currentCompletes: number;
  quotaGoals: QuotaGoal[];
  details: LiveDetails;
  costPerInterview: Money;
  allocations: AllocationSpecificationRequest;
  fieldingAssistant: { modules: FieldingAssistantRequest; etag: string };
}

/** The outcome of a write. `state` is the fresh read of what the write is about. */
export type LiveWriteOutcome<S> =
  | { outcome: 'applied'; state: S }
  | { outcome: 'already_in_state'; state: S }
  | { outcome: 'precondition_failed'; state: S }
  | { outcome: 'invalid_state'; state: S; detail?: string };

const equal = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
const sameInstant = (a: string | null | undefined, b: string | null | undefined) => (a ?? null) === (b ?? null) || (!!a && !!b && Date.parse(a) === Date.parse(b));
/**
 * An answer's money, exactly (shared/money.ts decodeMoney): no rounding, no float, no assumed currency. Money the
 * reference's shape allows but that cannot be judged (no currency_code, a value that is not a decimal of at most 6
 * places) is a wire mismatch of the operation that answered it, naming the field.
 */
function moneyOf(m: unknown, call: { operation: string; method: string; path: string; field: string }, status = 200): Money {
  try {
    return decodeMoney(m, call.field);
  } catch (error) {
    if (error instanceof MoneyError) throw wireMismatchFailure(call, status, describeShape(m), [error.message]);
    throw error;
  }
}
/** Two amounts are the same money: one currency and the same millionths ("4.5 USD" is "4.50 USD"). */
const sameMoney = (a: Money, b: Money) => a.currency_code === b.currency_code && toMicros(a.value) !== undefined && toMicros(a.value) === toMicros(b.value);

async function read<S extends z.ZodType>(caller: ApiCaller, operation: string, schema: S, req: OperationRequest): Promise<{ body: z.output<S>; res: ApiResponse }> {
  const res = await caller.send(req);
  return { body: readAnswer({ operation, method: req.method, path: req.path }, schema, res), res };
}

function requireEtag(operation: string, req: OperationRequest, res: ApiResponse): string {
  const etag = res.headers.etag;
  if (!etag) throw wireMismatchFailure({ operation, method: req.method, path: req.path }, res.status, describeShape(res.body), ['the ETag header is missing']);
  return etag;
}

// --- reads -------------------------------------------------------------------------------------------------------

/** get_fielding_run: the run and its ETag. */
export async function readFieldingRun(caller: ApiCaller, ref: LiveTargetGroupRef & { fieldingRunId: string }): Promise<FieldingRunState> {
  const req = { method: 'GET', path: `${targetGroupPath(caller, ref.projectId, ref.targetGroupId)}/fielding-runs/${seg(ref.fieldingRunId)}` } as const;
  const { body, res } = await read(caller, 'get_fielding_run', FieldingRunAnswer, req);
  return { id: body.id, status: body.status, startFieldingAt: body.start_fielding_at ?? null, endFieldingAt: body.end_fielding_at ?? null, etag: requireEtag('get_fielding_run', req, res) };
}

/** list_profiles of a launched target group: its profiles with their quotas (goals, and completes and prescreens). */
async function listProfiles(caller: ApiCaller, ref: LiveTargetGroupRef): Promise<ProfilesResponse> {
  const req = { method: 'GET', path: `${targetGroupPath(caller, ref.projectId, ref.targetGroupId)}/profiles` } as const;
  return (await read(caller, 'list_profiles', ProfilesResponse, req)).body;
}

/** list_profiles: the total goal and every quota's goal. */
export async function readGoals(caller: ApiCaller, ref: LiveTargetGroupRef): Promise<{ completesGoal: number; quotaGoals: QuotaGoal[] }> {
  const body = await listProfiles(caller, ref);
  const quotaGoals: QuotaGoal[] = [];
  for (const profile of body.profiles ?? []) {
    for (const target of profile.targets) {
      if (target.quota?.completes_goal === undefined) continue;
      const quotaName = typeof target.quota.name === 'string' ? target.quota.name : typeof target.name === 'string' ? target.name : undefined;
      quotaGoals.push({ profileId: profile.id, targetId: target.id, completesGoal: target.quota.completes_goal, profileName: profile.name, ...(quotaName ? { quotaName } : {}) });
    }
  }
  return { completesGoal: body.completes_goal, quotaGoals };
}

/** One quota's figures (the shape of plan/quotas.ts QuotaFigures; api/ does not import plan/). */
export interface QuotaCompletes {
  /** The profile's name (its id when it has none) and the quota's (the target's name or text, else its id). */
  profile: string;
  quota: string;
  goal: number;
  completes: number;
  prescreens?: number;
}

/**
 * list_profiles, once: each quota's goal, completes and prescreens as the exchange counts them (QuotaDetailsV3 of a
 * launched group). A quota whose answer gives no `completes` (the reference makes it optional) is counted in
 * `notReported`, not shown as 0. Names and counts only: no respondent.
 */
export async function readQuotaCompletes(caller: ApiCaller, ref: LiveTargetGroupRef): Promise<{ quotas: QuotaCompletes[]; notReported: number }> {
  const body = await listProfiles(caller, ref);
  const text = (...values: unknown[]) => values.find((v): v is string => typeof v === 'string' && v.trim() !== '');
  const quotas: QuotaCompletes[] = [];
  let notReported = 0;
  for (const profile of body.profiles ?? []) {
    if (!profile.quotas_enabled) continue;
    for (const target of profile.targets) {
      const quota = target.quota;
      if (!quota) continue;
      if (quota.completes === undefined) {
        notReported += 1;
        continue;
      }
      quotas.push({
        profile: text(profile.name) ?? profile.id,
        quota: text(quota.name, target.name, target.text) ?? target.id,
        goal: quota.completes_goal,
        completes: quota.completes,
        ...(quota.prescreens === undefined ? {} : { prescreens: quota.prescreens }),
      });
    }
  }
  return { quotas, notReported };
}

async function readDetails(caller: ApiCaller, ref: LiveTargetGroupRef): Promise<LiveDetails | null> {
  const req = { method: 'GET', path: `${targetGroupPath(caller, ref.projectId, ref.targetGroupId)}/details`, acceptStatuses: [404] } as const;
  const res = await caller.send(req);
  if (res.status === 404) return null;
  const body = readAnswer({ operation: 'get_target_group_details', method: req.method, path: req.path }, TargetGroupDetailsAnswer, res) as Record<string, any>;
  const note = body.client_cost_per_interview_note;
  return {
    name: body.name,
    projectManagerId: body.project_manager_id,
    lengthOfInterviewMinutes: body.expected_length_of_interview_minutes,
    incidenceRate: body.expected_incidence_rate,
    liveUrl: body.live_url ?? '',
    testUrl: body.test_url ?? '',
    industryLockoutCode: body.industry_lockout_code ?? 'no_lock_out',
    customerReferenceNumber: body.target_group_customer_reference_number ?? null,
    cpiNote: note && typeof note === 'object' && typeof note.value === 'string' ? moneyOf(note, { operation: 'get_target_group_details', method: req.method, path: req.path, field: 'client_cost_per_interview_note' }) : null,
  };
}

/** get_target_group_allocation_specification, in the shape its update takes. */
export async function readAllocations(caller: ApiCaller, ref: LiveTargetGroupRef): Promise<AllocationSpecificationRequest> {
  const req = { method: 'GET', path: `${targetGroupPath(caller, ref.projectId, ref.targetGroupId)}/allocation-specification` } as const;
  const { body } = await read(caller, 'get_target_group_allocation_specification', AllocationSpecificationAnswer, req);
  const ids = (list: { id: number }[]) => list.map((s) => String(s.id));
  const open = body.open_exchange_allocations;
  const priv = body.private_exchange_allocations;
  return {
    open_exchange_allocations: {
      blocked_supplier_ids: ids(open.blocked_suppliers),
      exchange_min_percentage: open.exchange_min_percentage,
      exchange_max_percentage: open.exchange_max_percentage,
      groups: open.groups.map((g) => ({ group_name: g.group_name, min_percentage: g.min_percentage, max_percentage: g.max_percentage, supplier_ids: ids(g.suppliers) })),
    },
    private_exchange_allocations: {
      blocked_supplier_ids: ids(priv.blocked_suppliers),
      groups: priv.groups.map((g) => ({ group_name: g.group_name, min_percentage: g.min_percentage, max_percentage: g.max_percentage, supplier_id: String(g.supplier.id) })),
    },
  };
}

/** get_fielding_assistant_assignment: the enabled modules (null ones left out) and the ETag. */
export async function readFieldingAssistant(caller: ApiCaller, ref: LiveTargetGroupRef): Promise<{ modules: FieldingAssistantRequest; etag: string }> {
  const req = { method: 'GET', path: `${targetGroupPath(caller, ref.projectId, ref.targetGroupId)}/fielding-assistant-assignment` } as const;
  const { body, res } = await read(caller, 'get_fielding_assistant_assignment', FieldingAssistantAnswer, req);
  const modules = Object.fromEntries(Object.entries(body).filter(([, value]) => value !== null && value !== undefined)) as FieldingAssistantRequest;
  return { modules, etag: requireEtag('get_fielding_assistant_assignment', req, res) };
}

async function readOverview(caller: ApiCaller, ref: LiveTargetGroupRef) {
  const req = { method: 'GET', path: `${targetGroupPath(caller, ref.projectId, ref.targetGroupId)}/overview` } as const;
  return (await read(caller, 'get_target_group_overview', TargetGroupOverviewAnswer, req)).body as Record<string, any>;
}

/** The overview's current_cost_per_interview, exactly. */
function overviewCpi(caller: ApiCaller, ref: LiveTargetGroupRef, overview: Record<string, any>): Money {
  const path = `${targetGroupPath(caller, ref.projectId, ref.targetGroupId)}/overview`;
  return moneyOf(overview.current_cost_per_interview, { operation: 'get_target_group_overview', method: 'GET', path, field: 'current_cost_per_interview' });
}

async function readRunOf(caller: ApiCaller, ref: LiveTargetGroupRef): Promise<FieldingRunState | null> {
  const req = { method: 'GET', path: `${targetGroupPath(caller, ref.projectId, ref.targetGroupId)}/fielding-runs` } as const;
  const { body } = await read(caller, 'get_fielding_runs_by_target_group_id', FieldingRunsAnswer, req);
  const item = body.data[0];
  return item ? readFieldingRun(caller, { ...ref, fieldingRunId: String(item.id) }) : null;
}

/** Every changeable field of a launched target group; null while it is a draft (the details answer 404). */
export async function readLiveTargetGroup(caller: ApiCaller, ref: LiveTargetGroupRef): Promise<LiveTargetGroup | null> {
  const details = await readDetails(caller, ref);
  if (!details) return null;
  const overview = await readOverview(caller, ref);
  const fieldingRun = await readRunOf(caller, ref);
  const goals = await readGoals(caller, ref);
  const allocations = await readAllocations(caller, ref);
  const fieldingAssistant = await readFieldingAssistant(caller, ref);
  return {
    status: String(overview.status),
    fieldingRun,
    completesGoal: goals.completesGoal,
    currentCompletes: Number(overview.progress?.current_completes ?? 0),
    quotaGoals: goals.quotaGoals,
    details,
    costPerInterview: overviewCpi(caller, ref, overview),
    allocations,
    fieldingAssistant,
  };
}

// --- writes ------------------------------------------------------------------------------------------------------

/** update_profile_filling_goal: the total and/or quota goals (no ETag in the reference; the PUT is idempotent). */
export async function updateFillingGoal(
  caller: ApiCaller,
  ref: LiveTargetGroupRef,
  desired: { completesGoal?: number; quotaGoals?: QuotaGoal[] },
): Promise<LiveWriteOutcome<{ completesGoal: number; quotaGoals: QuotaGoal[] }>> {
  const current = await readGoals(caller, ref);
  const totalChanges = desired.completesGoal !== undefined && desired.completesGoal !== current.completesGoal;
  const quotaChanges = (desired.quotaGoals ?? []).filter((q) => !current.quotaGoals.some((c) => c.profileId === q.profileId && c.targetId === q.targetId && c.completesGoal === q.completesGoal));
  if (!totalChanges && quotaChanges.length === 0) return { outcome: 'already_in_state', state: current };
  const byProfile = new Map<string, { id: string; quota: { completes_goal: number } }[]>();
  for (const q of quotaChanges) byProfile.set(q.profileId, [...(byProfile.get(q.profileId) ?? []), { id: q.targetId, quota: { completes_goal: q.completesGoal } }]);
  const json: Record<string, unknown> = {};
  if (totalChanges) json.completes_goal = desired.completesGoal;
  if (byProfile.size > 0) json.profiles = [...byProfile].map(([profile_id, targets]) => ({ profile_id, targets }));
  const req = { method: 'PUT', path: `${targetGroupPath(caller, ref.projectId, ref.targetGroupId)}/profiles/completes-goal`, json } as const;
  await read(caller, 'update_profile_filling_goal', ProfilesResponse, req);
  return { outcome: 'applied', state: await readGoals(caller, ref) };
}

type RunAction = 'relaunch' | 'launch-now';
const RUN_STATE_AFTER: Record<RunAction, FieldingRunState['status']> = { relaunch: 'live', 'launch-now': 'live' };

/**
 * A write of a fielding run guarded by If-Match: `etag` is the version the decision was based on (default: the
 * version read now). 412 -> re-read: already there, or precondition_failed with the fresh run; 422 -> invalid_state.
 */
async function guardedRunWrite(
  caller: ApiCaller,
  ref: LiveTargetGroupRef & { fieldingRunId: string; etag?: string },
  operation: string,
  request: (before: FieldingRunState) => OperationRequest,
  reached: (run: FieldingRunState) => boolean,
  answer?: z.ZodType,
): Promise<LiveWriteOutcome<FieldingRunState>> {
  const before = await readFieldingRun(caller, ref);
  if (reached(before)) return { outcome: 'already_in_state', state: before };
  if (ref.etag !== undefined && ref.etag !== before.etag) return { outcome: 'precondition_failed', state: before };
  const req = request(before);
  const res = await caller.send({ ...req, ifMatch: before.etag, acceptStatuses: [412, 422] });
  if (res.status < 300) {
    if (answer) readAnswer({ operation, method: req.method, path: req.path }, answer, res);
    return { outcome: 'applied', state: await readFieldingRun(caller, ref) };
  }
  const body = (res.body ?? {}) as Record<string, unknown>;
  if (res.status === 422 && body.object !== 'invalid_state_error') throw failureFromAnswer({ status: res.status, headers: res.headers, body }, { method: req.method, path: req.path });
  const fresh = await readFieldingRun(caller, ref);
  if (reached(fresh)) return { outcome: 'already_in_state', state: fresh };
  if (res.status === 412) return { outcome: 'precondition_failed', state: fresh };
  return typeof body.detail === 'string' ? { outcome: 'invalid_state', state: fresh, detail: body.detail } : { outcome: 'invalid_state', state: fresh };
}

const runPath = (caller: ApiCaller, ref: LiveTargetGroupRef & { fieldingRunId: string }) => `${targetGroupPath(caller, ref.projectId, ref.targetGroupId)}/fielding-runs/${seg(ref.fieldingRunId)}`;

/** update_fielding_run: the window (a date not given stays the run's). */
export async function updateFieldingWindow(
  caller: ApiCaller,
  ref: LiveTargetGroupRef & { fieldingRunId: string; etag?: string },
  desired: { startFieldingAt?: string; endFieldingAt?: string },
): Promise<LiveWriteOutcome<FieldingRunState>> {
  const reached = (run: FieldingRunState) =>
    (desired.endFieldingAt === undefined || sameInstant(run.endFieldingAt, desired.endFieldingAt)) && (desired.startFieldingAt === undefined || sameInstant(run.startFieldingAt, desired.startFieldingAt));
  // The reference takes both dates: each stays the one just read unless it is asked for.
  const request = (before: FieldingRunState): OperationRequest => ({
    method: 'PUT', path: runPath(caller, ref), json: { start_fielding_at: desired.startFieldingAt ?? before.startFieldingAt, end_fielding_at: desired.endFieldingAt ?? before.endFieldingAt },
  });
  return guardedRunWrite(caller, ref, 'update_fielding_run', request, reached, UpdateFieldingRunAnswer);
}

/** relaunch_fielding_run (completed -> live) and launch_now_fielding_run (scheduled -> live). */
export function controlLiveRun(caller: ApiCaller, ref: LiveTargetGroupRef & { fieldingRunId: string; etag?: string }, action: RunAction): Promise<LiveWriteOutcome<FieldingRunState>> {
  const operation = action === 'relaunch' ? 'relaunch_fielding_run' : 'launch_now_fielding_run';
  return guardedRunWrite(caller, ref, operation, () => ({ method: 'POST', path: `${runPath(caller, ref)}/${action}` }), (run) => run.status === RUN_STATE_AFTER[action], action === 'launch-now' ? LaunchNowAnswer : undefined);
}

/** create_schedule_fielding_run_from_draft_job: 201, the job in Location. */
export async function scheduleLaunch(caller: ApiCaller, ref: LiveTargetGroupRef, input: { startFieldingAt: string; endFieldingAt: string; idempotencyKey: string }): Promise<{ jobId: string }> {
  const req = {
    method: 'POST',
    path: `${targetGroupPath(caller, ref.projectId, ref.targetGroupId)}/fielding-run-jobs/schedule-from-draft`,
    json: { start_fielding_at: input.startFieldingAt, end_fielding_at: input.endFieldingAt },
    idempotencyKey: input.idempotencyKey,
    startsJob: true,
  } as const;
  const res = await caller.send(req);
  const jobId = res.headers.location ? decodeURIComponent(res.headers.location.split('?')[0]!.split('/').pop() ?? '') : '';
  if (!jobId) throw wireMismatchFailure({ operation: 'create_schedule_fielding_run_from_draft_job', method: req.method, path: req.path }, res.status, describeShape(res.body), ['the Location header naming the job is missing']);
  return { jobId };
}

/** get_schedule_fielding_run_from_draft_job. */
export async function readScheduleJob(caller: ApiCaller, ref: LiveTargetGroupRef & { jobId: string }): Promise<{ status: string; fieldingRunId?: string; failure?: { code: string; description: string } }> {
  const req = { method: 'GET', path: `${targetGroupPath(caller, ref.projectId, ref.targetGroupId)}/fielding-run-jobs/schedule-from-draft/${seg(ref.jobId)}` } as const;
  const { body } = await read(caller, 'get_schedule_fielding_run_from_draft_job', ScheduleJobAnswer, req);
  const out: { status: string; fieldingRunId?: string; failure?: { code: string; description: string } } = { status: body.status };
  if (body.created_fielding_run_id) out.fieldingRunId = body.created_fielding_run_id;
  if (body.failure_reason) out.failure = { code: body.failure_reason.code, description: body.failure_reason.description ?? '' };
  return out;
}

/** update_launched_target_group_details: the reference takes the whole set, so the desired fields are merged into the current ones. */
export async function updateDetails(caller: ApiCaller, ref: LiveTargetGroupRef, desired: Partial<LiveDetails>): Promise<LiveWriteOutcome<LiveDetails | null>> {
  const current = await readDetails(caller, ref);
  if (!current) return { outcome: 'invalid_state', state: null, detail: 'the target group is a draft: its details change through the draft update' };
  const next: LiveDetails = { ...current, ...Object.fromEntries(Object.entries(desired).filter(([, v]) => v !== undefined)) };
  if (equal(next, current)) return { outcome: 'already_in_state', state: current };
  const json: Record<string, unknown> = {
    name: next.name, project_manager_id: next.projectManagerId, expected_length_of_interview_minutes: next.lengthOfInterviewMinutes, expected_incidence_rate: next.incidenceRate,
    industry_lockout_code: next.industryLockoutCode, live_url: next.liveUrl, test_url: next.testUrl, target_group_customer_reference_number: next.customerReferenceNumber,
  };
  if (next.cpiNote) json.client_cost_per_interview_note = { value: next.cpiNote.value, currency_code: next.cpiNote.currency_code };
  await caller.send({ method: 'PUT', path: `${targetGroupPath(caller, ref.projectId, ref.targetGroupId)}/details`, json });
  return { outcome: 'applied', state: (await readDetails(caller, ref))! };
}

/** update_cost_per_interview; the current CPI is the overview's. */
export async function updateCostPerInterview(caller: ApiCaller, ref: LiveTargetGroupRef, desired: Money): Promise<LiveWriteOutcome<Money>> {
  const current = overviewCpi(caller, ref, await readOverview(caller, ref));
  const wanted = { value: desired.value, currency_code: desired.currency_code };
  if (sameMoney(current, wanted)) return { outcome: 'already_in_state', state: current };
  const req = { method: 'PUT', path: `${targetGroupPath(caller, ref.projectId, ref.targetGroupId)}/cost-per-interview`, json: { target_group_cpi: { value: wanted.value, currency_code: wanted.currency_code } } } as const;
  const { body } = await read(caller, 'update_cost_per_interview', CostPerInterviewAnswer, req);
  return { outcome: 'applied', state: moneyOf(body.target_group_cpi, { operation: 'update_cost_per_interview', method: req.method, path: req.path, field: 'target_group_cpi' }) };
}

/** update_target_group_allocation_specification (the whole specification). */
export async function updateAllocations(caller: ApiCaller, ref: LiveTargetGroupRef, desired: AllocationSpecificationRequest): Promise<LiveWriteOutcome<AllocationSpecificationRequest>> {
  const strip = (spec: AllocationSpecificationRequest) => ({
    open_exchange_allocations: { ...spec.open_exchange_allocations, groups: spec.open_exchange_allocations.groups.map(({ group_id: _id, ...g }) => g) },
    private_exchange_allocations: { ...spec.private_exchange_allocations, groups: spec.private_exchange_allocations.groups.map(({ group_id: _id, ...g }) => g) },
  });
  const current = await readAllocations(caller, ref);
  if (equal(strip(current), strip(desired))) return { outcome: 'already_in_state', state: current };
  await caller.send({ method: 'PUT', path: `${targetGroupPath(caller, ref.projectId, ref.targetGroupId)}/allocation-specification`, json: desired });
  return { outcome: 'applied', state: await readAllocations(caller, ref) };
}

/** create_or_update_fielding_assistant_assignment: the whole object, with If-Match (`etag`, default the one read now). */
export async function updateFieldingAssistant(
  caller: ApiCaller,
  ref: LiveTargetGroupRef & { etag?: string },
  desired: FieldingAssistantRequest,
): Promise<LiveWriteOutcome<{ modules: FieldingAssistantRequest; etag: string }>> {
  const reached = (s: { modules: FieldingAssistantRequest }) => equal(sorted(s.modules), sorted(desired));
  const before = await readFieldingAssistant(caller, ref);
  if (reached(before)) return { outcome: 'already_in_state', state: before };
  if (ref.etag !== undefined && ref.etag !== before.etag) return { outcome: 'precondition_failed', state: before };
  const res = await caller.send({ method: 'PUT', path: `${targetGroupPath(caller, ref.projectId, ref.targetGroupId)}/fielding-assistant-assignment`, json: desired, ifMatch: before.etag, acceptStatuses: [412] });
  const fresh = await readFieldingAssistant(caller, ref);
  if (res.status < 300) return { outcome: 'applied', state: fresh };
  return { outcome: reached(fresh) ? 'already_in_state' : 'precondition_failed', state: fresh };
}

/** A soft launch module as the exchange holds it equals the one meant: the same end (as an instant) and percentages. */
function sameSoftLaunch(held: unknown, meant: NonNullable<FieldingAssistantRequest['soft_launch']>): boolean {
  if (!held || typeof held !== 'object') return false;
  const h = held as Record<string, unknown>;
  return (
    typeof h.end_at === 'string' &&
    Date.parse(h.end_at) === Date.parse(meant.end_at) &&
    h.filling_goal_percentage === meant.filling_goal_percentage &&
    h.demographics_strictness_percentage === meant.demographics_strictness_percentage
  );
}

/**
 * The fielding assistant's soft_launch module set (or removed, `module` null) and every other module kept: read the
 * assignment and its ETag, merge, write the whole object back with If-Match (create_or_update_fielding_assistant_
 * assignment replaces it whole), reading again on 412, at most three times. Nothing is written when the module is
 * already as meant.
 */
export async function setSoftLaunchModule(
  caller: ApiCaller,
  ref: LiveTargetGroupRef,
  module: NonNullable<FieldingAssistantRequest['soft_launch']> | null,
): Promise<LiveWriteOutcome<{ modules: FieldingAssistantRequest; etag: string }>> {
  let last: LiveWriteOutcome<{ modules: FieldingAssistantRequest; etag: string }> | undefined;
  for (let attempt = 0; attempt < 3; attempt += 1) {
    const before = await readFieldingAssistant(caller, ref);
    const { soft_launch: held, ...others } = before.modules;
    if (module ? sameSoftLaunch(held, module) : held === undefined) return { outcome: 'already_in_state', state: before };
    last = await updateFieldingAssistant(caller, { ...ref, etag: before.etag }, module ? { ...others, soft_launch: module } : others);
    if (last.outcome !== 'precondition_failed') return last;
  }
  return last as LiveWriteOutcome<{ modules: FieldingAssistantRequest; etag: string }>;
}

/** What a soft launch is judged on, from get_target_group_overview: completes, rates (0–1) and the median interview length (seconds). */
export interface OverviewFigures {
  status: string;
  completes: number;
  incidenceRate?: number;
  dropOffRate?: number;
  medianLengthOfInterviewSeconds?: number;
}

/** get_target_group_overview's figures (a figure the exchange gives as null, or not yet, is left out). */
export async function readOverviewFigures(caller: ApiCaller, ref: LiveTargetGroupRef): Promise<OverviewFigures> {
  const overview = await readOverview(caller, ref);
  const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
  const figures: OverviewFigures = { status: String(overview.status), completes: num(overview.progress?.current_completes) ?? 0 };
  const incidence = num(overview.incidence_rate);
  if (incidence !== undefined) figures.incidenceRate = incidence;
  const dropOff = num(overview.drop_off_rate);
  if (dropOff !== undefined) figures.dropOffRate = dropOff;
  const median = num(overview.median_length_of_interview_seconds);
  if (median !== undefined) figures.medianLengthOfInterviewSeconds = median;
  return figures;
}

function sorted(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sorted);
  if (value && typeof value === 'object') return Object.fromEntries(Object.keys(value).sort().map((k) => [k, sorted((value as Record<string, unknown>)[k])]));
  return value;
}

/** calculate_target_group_feasibility_by_id: a what-if on the live group (read-only). */
export async function liveFeasibility(caller: ApiCaller, ref: LiveTargetGroupRef, whatIf: FeasibilityByIdRequest): Promise<{ suggestedPrice: Money; completesGoalRange: { min: number; max: number } | null }> {
  const req = { method: 'POST', path: `${targetGroupPath(caller, ref.projectId, ref.targetGroupId)}/calculate-feasibility`, json: whatIf } as const;
  const { body } = await read(caller, 'calculate_target_group_feasibility_by_id', FeasibilityByIdAnswer, req);
  return { suggestedPrice: moneyOf(body.suggested_price, { operation: 'calculate_target_group_feasibility_by_id', method: req.method, path: req.path, field: 'suggested_price' }), completesGoalRange: body.suggested_completes_goal_range ? { min: body.suggested_completes_goal_range.min, max: body.suggested_completes_goal_range.max } : null };
}
