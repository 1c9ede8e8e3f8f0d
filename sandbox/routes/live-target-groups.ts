// Changes of a launched target group (issue 28; the reference's operations, 2025-12-18 only, as the reference has them):
//   PUT  RUN                                  update_fielding_run: start/end, If-Match required, 202 {id} + ETag
//   POST RUN/relaunch                         relaunch_fielding_run: completed -> live (goal and end not reached)
//   POST RUN/launch-now                       launch_now_fielding_run: scheduled -> live now, the duration kept
//   POST TG/fielding-run-jobs/schedule-from-draft (+ GET …/{job_id})  a draft -> scheduled at start_fielding_at
//   PUT  TG/details                           update_launched_target_group_details (404 for a draft)
//   PUT  TG/cost-per-interview                update_cost_per_interview (404 for a draft; at most 105.00)
//   GET/PUT TG/allocation-specification       the supply allocation
//   GET/PUT TG/fielding-assistant-assignment  the fielding-assistant modules, ETag, If-Match / If-None-Match
//   POST TG/calculate-feasibility             calculate_target_group_feasibility_by_id (422 for a draft)
//   GET  TG/profiles                          list_profiles of a launched group (the quota goals and counters)
//   GET  TG/profiles/{profile_id}             get_profile of a launched group: one profile, each quota's completes and
//                                             prescreens (the spec removes list_profiles in 2025-12-18; this one it keeps)
// Every write that changes something emits target_group.updated with the changed fields, which the webhook
// deliverer turns into the spec's target-group-updated event. A scheduled run goes live at its start on the
// sandbox's one-second tick (`scheduled-launches`); the fielding simulation collects only from live runs.
import { ApiError, badRequest, notFound } from '../core/api-error';
import { ISO_TIMESTAMP, ObjectReader } from '../core/input-validation';
import { created, noContent, ok, type RequestContext, type RouteModule, type SandboxServices } from '../core/route-module';
import type { AllocationGroupRecord, AllocationsRecord, FieldingRunRecord, JobRecord, TargetGroupRecord } from '../core/state-records';
import { CURRENT_VERSION, assertWriteVersionAllowed, pinWriteVersion } from '../core/versioning';
import { requireTargetGroup } from '../resources/lookups';
import { emitTargetGroupEvent } from '../resources/target-group-events';
import { renderTargetGroupDetails } from '../resources/target-group-wire';
import { LAUNCH_KIND, SANDBOX_API_USER_ID, SIMULATED_FAILURE_REASON, assertNoRunningJob, createTargetGroupJob, requireJob } from '../resources/target-group-jobs';
import { estimateFeasibility } from '../model/feasibility';
import { findLocaleMarket } from '../model/locale-markets';
import { moneyFromMinorUnits, toMinorUnits } from '../model/money';
import { predictedCostPerCompleteMinorUnits } from '../model/pricing';
import type { Profile } from '../model/profile-types';
import { assertRunIfMatch, etagOf, requireRun } from './fielding';
import { excludedIdCount } from './feasibility';
import { TG } from './paths';
import { storedProfiles } from './profiles-target-group';
import { renderProfile, renderProfiles } from '../model/profile-version-translation';
import { allocatedSupplierIds } from './webhooks-exchange-allocations';
import { advanceSimulation, READ_STALENESS_MS, restartArrivals } from './reporting-fielding-simulation';

const CURRENT = [CURRENT_VERSION] as const;
const RUN = `${TG}/fielding-runs/{fielding_run_id}`;
const SCHEDULE = `${TG}/fielding-run-jobs/schedule-from-draft`;
export const SCHEDULE_KIND = 'schedule_from_draft';
/** The reference (update_cost_per_interview): the platform limit of a target group's CPI, $105.00. */
const MAX_CPI_MINOR = 10_500;
const DAY_MS = 86_400_000;

const timestamp = (r: ObjectReader, field: string, required = true) =>
  r.string(field, { required, pattern: ISO_TIMESTAMP, patternReason: 'must be an ISO-8601 timestamp with a time zone' });
const isoOf = (value: string) => new Date(Date.parse(value)).toISOString();
const invalidState = (detail: string) => new ApiError(422, 'invalid_state_error', detail);

/** The reference: details, CPI and the launched-only writes treat a draft as not found. */
function requireLaunched(ctx: RequestContext): TargetGroupRecord {
  const tg = requireTargetGroup(ctx);
  if (tg.status === 'draft') throw notFound(`Target group ${tg.id} is a draft; this operation exists once it is launched (use the draft operations).`);
  return tg;
}

function touch(ctx: RequestContext | SandboxServices, tg: TargetGroupRecord, run?: FieldingRunRecord): string {
  const now = ctx.clock.iso();
  tg.updated_at = now;
  if (run) {
    run.revision += 1;
    run.updated_at = now;
  }
  return now;
}

// --- fielding run ---------------------------------------------------------------------------------------------

function updateFieldingRun(ctx: RequestContext) {
  const tg = requireTargetGroup(ctx);
  const run = requireRun(ctx);
  assertWriteVersionAllowed(tg, ctx.version, 'target group');
  assertRunIfMatch(ctx, run);
  const r = ObjectReader.body(ctx.body);
  r.rejectUnknown(['start_fielding_at', 'end_fielding_at']);
  const start = timestamp(r, 'start_fielding_at');
  const end = timestamp(r, 'end_fielding_at');
  const now = ctx.clock.now();
  if (start && end && Date.parse(end) <= Date.parse(start)) r.fail('end_fielding_at', 'must be after start_fielding_at');
  else if (end && Date.parse(end) <= now) r.fail('end_fielding_at', 'must be in the future');
  const startChanged = start !== null && start !== undefined && Date.parse(start) !== Date.parse(run.started_at);
  if (run.status === 'scheduled' && startChanged && Date.parse(start!) <= now) r.fail('start_fielding_at', 'must be in the future while the run is scheduled');
  r.finish('The fielding run update is invalid.');
  // The reference: runs can be updated while scheduled, live or paused, not once completed.
  if (run.status === 'completed') throw invalidState(`Fielding run ${run.id} is completed; relaunch it before changing its dates.`);
  if (run.status !== 'scheduled' && startChanged) throw invalidState(`Fielding run ${run.id} is ${run.status}: it has started, so start_fielding_at can no longer change.`);
  const changed: string[] = [];
  if (startChanged) {
    run.started_at = isoOf(start!);
    tg.start_fielding_at = run.started_at;
    changed.push('start_fielding_at');
  }
  if (Date.parse(end!) !== Date.parse(run.end_fielding_at)) {
    run.end_fielding_at = isoOf(end!);
    tg.end_fielding_at = run.end_fielding_at;
    changed.push('end_fielding_at');
  }
  touch(ctx, tg, run);
  pinWriteVersion(tg, ctx.version);
  if (changed.length > 0) emitTargetGroupEvent(ctx, 'updated', tg, changed);
  return { status: 202, body: { id: run.id }, headers: { etag: etagOf(run) } };
}

function relaunchFieldingRun(ctx: RequestContext) {
  const tg = requireTargetGroup(ctx);
  const run = requireRun(ctx);
  assertWriteVersionAllowed(tg, ctx.version, 'target group');
  assertRunIfMatch(ctx, run);
  if (run.status !== 'completed') throw invalidState(`Cannot relaunch a fielding run that is ${run.status}; only a completed run can be relaunched.`);
  // The reference: a run is relaunched only while its completes goal and end date are not reached.
  if (tg.metrics.completes >= tg.filling_goal) throw invalidState(`Target group ${tg.id} reached its completes goal (${tg.metrics.completes} of ${tg.filling_goal}); raise the goal before relaunching.`);
  if (Date.parse(run.end_fielding_at) <= ctx.clock.now()) throw invalidState(`Fielding run ${run.id} ended at ${run.end_fielding_at}; it cannot be relaunched.`);
  run.status = 'live';
  run.completed_at = null;
  tg.status = 'live';
  touch(ctx, tg, run);
  restartArrivals(ctx, tg.id);
  pinWriteVersion(tg, ctx.version);
  emitTargetGroupEvent(ctx, 'updated', tg, ['status']);
  return noContent({ etag: etagOf(run) });
}

function launchNow(ctx: RequestContext) {
  const tg = requireTargetGroup(ctx);
  const run = requireRun(ctx);
  assertWriteVersionAllowed(tg, ctx.version, 'target group');
  assertRunIfMatch(ctx, run);
  if (run.status !== 'scheduled') throw invalidState(`Cannot launch now a fielding run that is ${run.status}; only a scheduled run can be.`);
  const duration = Date.parse(run.end_fielding_at) - Date.parse(run.started_at);
  goLive(ctx, tg, run, ctx.clock.now(), duration);
  pinWriteVersion(tg, ctx.version);
  return ok({ start_fielding_at: run.started_at, end_fielding_at: run.end_fielding_at }, { etag: etagOf(run) });
}

/** A scheduled run goes live at `atMs`; the end keeps `durationMs` after the start (launch-now) or stays (its start time came). */
function goLive(services: SandboxServices, tg: TargetGroupRecord, run: FieldingRunRecord, atMs: number, durationMs?: number): void {
  run.started_at = new Date(atMs).toISOString();
  if (durationMs !== undefined) run.end_fielding_at = new Date(atMs + durationMs).toISOString();
  run.status = 'live';
  tg.status = 'live';
  tg.start_fielding_at = run.started_at;
  tg.end_fielding_at = run.end_fielding_at;
  touch(services, tg, run);
  emitTargetGroupEvent(services, 'launched', tg, ['status', 'start_fielding_at', 'end_fielding_at']);
}

/** The tick: every scheduled run whose start has come goes live. */
export function launchDueScheduledRuns(services: SandboxServices): number {
  const now = services.clock.now();
  let launched = 0;
  for (const run of Object.values(services.store.data.fielding_runs)) {
    if (run.status !== 'scheduled' || Date.parse(run.started_at) > now) continue;
    const tg = services.store.data.target_groups[run.target_group_id];
    if (!tg) continue;
    goLive(services, tg, run, Date.parse(run.started_at));
    launched += 1;
  }
  if (launched > 0) services.commit();
  return launched;
}

// --- schedule from draft ----------------------------------------------------------------------------------------

function scheduleFromDraft(ctx: RequestContext) {
  const tg = requireTargetGroup(ctx);
  assertWriteVersionAllowed(tg, ctx.version, 'target group');
  // The reference: IdempotencyKeyRequired.
  if (!ctx.header('idempotency-key')) throw badRequest('Idempotency-Key is required to schedule a launch.', [{ name: 'Idempotency-Key', reason: 'is required' }]);
  const r = ObjectReader.body(ctx.body);
  r.rejectUnknown(['start_fielding_at', 'end_fielding_at']);
  const start = timestamp(r, 'start_fielding_at');
  const end = timestamp(r, 'end_fielding_at');
  if (start && Date.parse(start) <= ctx.clock.now()) r.fail('start_fielding_at', 'must be in the future');
  if (start && end && Date.parse(end) <= Date.parse(start)) r.fail('end_fielding_at', 'must be after start_fielding_at');
  r.finish('The schedule request is invalid.');
  assertNoRunningJob(ctx, tg, [LAUNCH_KIND, SCHEDULE_KIND], 'launch');
  const job = createTargetGroupJob(ctx, tg, SCHEDULE_KIND, { start_fielding_at: isoOf(start!), end_fielding_at: isoOf(end!) });
  pinWriteVersion(tg, ctx.version);
  // The reference: 201 without a body, the job named by the Location header; a state problem fails the job.
  return created(undefined, { location: `${ctx.path}/${job.id}` });
}

const settleSchedule = (services: SandboxServices) => (job: JobRecord) => {
  const tg = services.store.data.target_groups[job.target_group_id];
  const fail = (code: string, reason: string) => {
    job.status = 'Failed';
    job.failure_reason = reason;
    job.result = { failure_code: code };
  };
  if (!tg) return fail('TargetGroupNotFound', 'The target group no longer exists.');
  if (job.simulated_failure) return fail('job_failed', SIMULATED_FAILURE_REASON);
  if (tg.status !== 'draft') return fail('TargetGroupInvalidState', `The target group is ${tg.status}, not draft, and cannot be scheduled.`);
  if (!tg.live_url) return fail('TargetGroupInvalidState', 'The target group has no live_url.');
  if (Date.parse(job.input.start_fielding_at as string) <= services.clock.now()) return fail('InvalidFieldingDates', 'The provided start time is in the past.');
  const now = services.clock.iso();
  const run: FieldingRunRecord = {
    id: services.newId('fr'),
    seq: services.store.nextSeq(),
    account_id: tg.account_id,
    project_id: tg.project_id,
    target_group_id: tg.id,
    status: 'scheduled',
    revision: 1,
    end_fielding_at: job.input.end_fielding_at as string,
    started_at: job.input.start_fielding_at as string,
    updated_at: now,
    completed_at: null,
  };
  services.store.data.fielding_runs[run.id] = run;
  Object.assign(tg, { status: 'scheduled', fielding_run_id: run.id, start_fielding_at: run.started_at, end_fielding_at: run.end_fielding_at, updated_at: now });
  job.status = 'Completed';
  job.result = { created_fielding_run_id: run.id };
  emitTargetGroupEvent(services, 'updated', tg, ['status', 'fielding_run_id', 'start_fielding_at', 'end_fielding_at']);
};

/** GetScheduleFieldingRunFromDraftJobResponse. */
function renderScheduleJob(job: JobRecord): Record<string, unknown> {
  const out: Record<string, unknown> = { job_id: job.id, status: job.status, created_at: job.created_at, created_by: SANDBOX_API_USER_ID };
  if (typeof job.result.created_fielding_run_id === 'string') out.created_fielding_run_id = job.result.created_fielding_run_id;
  if (job.status === 'Failed') out.failure_reason = { code: String(job.result.failure_code ?? 'job_failed'), description: job.failure_reason ?? 'The job failed.' };
  return out;
}

/** list_profiles (2025-12-18; routes/profiles-legacy.ts serves the older versions at the same path): ProfilesResponseV3 of a launched group. */
export function listLaunchedProfiles(ctx: RequestContext) {
  const tg = requireLaunched(ctx);
  // The quota counters so far (the simulation runs up to now first, as performance and overview do).
  advanceSimulation(ctx, { withinMs: READ_STALENESS_MS });
  return ok({ locale: tg.locale, completes_goal: tg.filling_goal, profiles: renderProfiles(storedProfiles(tg), ctx.version).profiles });
}

/** get_profile (2025-12-18): RegularProfileV3 of one profile of a launched group, its quotas' completes and prescreens so far. */
function getLaunchedProfile(ctx: RequestContext) {
  const tg = requireLaunched(ctx);
  const profile = storedProfiles(tg).find((p) => p.id === ctx.params.profile_id);
  if (!profile) throw notFound(`Profile ${ctx.params.profile_id} not found in target group ${tg.id}.`);
  advanceSimulation(ctx, { withinMs: READ_STALENESS_MS });
  return ok(renderProfile(storedProfiles(tg).find((p) => p.id === profile.id)!, ctx.version));
}

// --- details and CPI -----------------------------------------------------------------------------------------------

const DETAIL_FIELDS = [
  'name', 'project_manager_id', 'expected_length_of_interview_minutes', 'expected_incidence_rate', 'industry_lockout_code', 'live_url', 'test_url',
  'target_group_customer_reference_number', 'client_cost_per_interview_note',
] as const;

function readMoney(r: ObjectReader, field: string, required: boolean): { value: string; currency_code: string } | null | undefined {
  const money = r.object(field, { required });
  if (!money) return money;
  money.rejectUnknown(['value', 'currency_code']);
  const value = money.string('value', { required: true, pattern: /^\d+(\.\d{1,2})?$/, patternReason: 'must be a decimal amount with at most two decimals' });
  const currency = money.string('currency_code', { pattern: /^[A-Z]{3}$/, patternReason: 'must be an ISO-4217 code' });
  if (value === null || value === undefined) return undefined;
  return { value, currency_code: currency ?? 'USD' };
}

function updateDetails(ctx: RequestContext) {
  const tg = requireLaunched(ctx);
  assertWriteVersionAllowed(tg, ctx.version, 'target group');
  const r = ObjectReader.body(ctx.body);
  r.rejectUnknown(DETAIL_FIELDS);
  const name = r.string('name', { required: true, minLength: 5, maxLength: 128 });
  const manager = r.string('project_manager_id', { required: true });
  if (manager && !ctx.account!.project_manager_ids.includes(manager)) r.fail('project_manager_id', 'is not a project manager of the account');
  const loi = r.integer('expected_length_of_interview_minutes', { required: true, min: 1, max: 45 });
  const ir = r.number('expected_incidence_rate', { required: true, min: 0, max: 1 });
  if (typeof ir === 'number' && Math.abs(Math.round(ir * 100) - ir * 100) > 1e-9) r.fail('expected_incidence_rate', 'must be a multiple of 0.01');
  r.string('industry_lockout_code', { required: true });
  const liveUrl = r.string('live_url', { required: true });
  const testUrl = r.string('test_url', { required: true });
  const reference = r.string('target_group_customer_reference_number', { nullable: true, minLength: 3, maxLength: 128, pattern: /^[a-zA-Z0-9\-_ ]*$/, patternReason: 'may hold letters, digits, -, _ and spaces' });
  const note = readMoney(r, 'client_cost_per_interview_note', false);
  r.finish('The target group details update is invalid.');
  const next: Partial<TargetGroupRecord> = {
    name: name!, project_manager_id: manager!, expected_length_of_interview_minutes: loi!, expected_incidence_rate: ir!, live_url: liveUrl!, test_url: testUrl!,
    target_group_customer_reference_number: reference ?? null,
  };
  if (note !== undefined) next.client_cost_per_interview_note = note;
  const changed = Object.entries(next).filter(([key, value]) => JSON.stringify((tg as unknown as Record<string, unknown>)[key] ?? null) !== JSON.stringify(value ?? null)).map(([key]) => key);
  Object.assign(tg, next);
  touch(ctx, tg);
  pinWriteVersion(tg, ctx.version);
  if (changed.length > 0) emitTargetGroupEvent(ctx, 'updated', tg, changed);
  const details = renderTargetGroupDetails(tg, ctx.account!.name, ctx.version);
  delete details.links;
  return ok(details);
}

function updateCostPerInterview(ctx: RequestContext) {
  const tg = requireLaunched(ctx);
  assertWriteVersionAllowed(tg, ctx.version, 'target group');
  const r = ObjectReader.body(ctx.body);
  r.rejectUnknown(['target_group_cpi']);
  const cpi = readMoney(r, 'target_group_cpi', true);
  if (cpi && cpi.currency_code === 'USD' && toMinorUnits(Number(cpi.value)) > MAX_CPI_MINOR) r.fail('target_group_cpi.value', 'must not exceed the platform limit of 105.00 USD');
  if (cpi && toMinorUnits(Number(cpi.value)) <= 0) r.fail('target_group_cpi.value', 'must be greater than 0');
  r.finish('The cost per interview update is invalid.');
  const value = { value: (toMinorUnits(Number(cpi!.value)) / 100).toFixed(2), currency_code: cpi!.currency_code };
  const changed = JSON.stringify(tg.cost_per_interview ?? null) !== JSON.stringify(value);
  tg.cost_per_interview = value;
  touch(ctx, tg);
  pinWriteVersion(tg, ctx.version);
  if (changed) emitTargetGroupEvent(ctx, 'updated', tg, ['cost_per_interview']);
  return ok({ target_group_cpi: { ...value, currency_scale: 2 } });
}

// --- allocations ---------------------------------------------------------------------------------------------------

const supplier = (id: string) => ({ id: Number(id), name: `Supplier ${id}`, completes: 0, pre_screens: 0 });

function renderAllocations(tg: TargetGroupRecord) {
  const open = tg.allocations.open_exchange_allocations ?? { blocked_supplier_ids: [], exchange_min_percentage: 0, exchange_max_percentage: 100, groups: [] };
  const priv = tg.allocations.private_exchange_allocations ?? { blocked_supplier_ids: [], groups: [] };
  const group = (g: AllocationGroupRecord, index: number) => ({ group_id: String(index + 1), group_name: g.group_name, min_percentage: g.min_percentage, max_percentage: g.max_percentage });
  return {
    open_exchange_allocations: {
      blocked_suppliers: open.blocked_supplier_ids.map(supplier),
      exchange_suppliers: [],
      exchange_min_percentage: open.exchange_min_percentage,
      exchange_max_percentage: open.exchange_max_percentage,
      groups: open.groups.map((g, i) => ({ ...group(g, i), suppliers: (g.suppliers ?? []).map(supplier) })),
    },
    private_exchange_allocations: {
      blocked_suppliers: priv.blocked_supplier_ids.map(supplier),
      groups: priv.groups.map((g, i) => ({ ...group(g, i), supplier: supplier(g.supplier_id ?? '0') })),
    },
  };
}

const SUPPLIER_ID = /^\d+$/;

function readSupplierIds(r: ObjectReader, field: string): string[] | undefined {
  const list = r.array(field, { required: true });
  if (!list) return undefined;
  list.forEach((id, i) => {
    if (typeof id !== 'string' || !SUPPLIER_ID.test(id)) r.fail(`${field}[${i}]`, 'must be a supplier id (digits, as a string)');
  });
  return list as string[];
}

function readGroups(r: ObjectReader, kind: 'open' | 'private'): AllocationGroupRecord[] | undefined {
  const list = r.array('groups', { required: true });
  if (!list) return undefined;
  const groups: AllocationGroupRecord[] = [];
  list.forEach((raw, i) => {
    const g = ObjectReader.nested(raw, `${r.name('groups')}[${i}]`, r.problems);
    if (!g) return;
    g.rejectUnknown(kind === 'open' ? ['group_id', 'group_name', 'min_percentage', 'max_percentage', 'supplier_ids'] : ['group_id', 'group_name', 'min_percentage', 'max_percentage', 'supplier_id']);
    g.string('group_id');
    const name = g.string('group_name', { required: true, minLength: 1 });
    const min = g.integer('min_percentage', { required: true, min: 0, max: 100 });
    const max = g.integer('max_percentage', { required: true, min: 0, max: 100 });
    if (typeof min === 'number' && typeof max === 'number' && min > max) g.fail('min_percentage', 'must not exceed max_percentage');
    if (kind === 'open') {
      const ids = readSupplierIds(g, 'supplier_ids');
      groups.push({ group_name: name!, min_percentage: min!, max_percentage: max!, suppliers: ids ?? [] });
    } else {
      const id = g.string('supplier_id', { required: true, pattern: SUPPLIER_ID, patternReason: 'must be a supplier id (digits, as a string)' });
      groups.push({ group_name: name!, min_percentage: min!, max_percentage: max!, supplier_id: id ?? '' });
    }
  });
  return groups;
}

function updateAllocations(ctx: RequestContext) {
  const tg = requireTargetGroup(ctx);
  assertWriteVersionAllowed(tg, ctx.version, 'target group');
  const r = ObjectReader.body(ctx.body);
  r.rejectUnknown(['open_exchange_allocations', 'private_exchange_allocations']);
  const open = r.object('open_exchange_allocations', { required: true });
  const priv = r.object('private_exchange_allocations', { required: true });
  let next: AllocationsRecord | undefined;
  if (open && priv) {
    open.rejectUnknown(['blocked_supplier_ids', 'exchange_min_percentage', 'exchange_max_percentage', 'groups']);
    priv.rejectUnknown(['blocked_supplier_ids', 'groups']);
    const blocked = readSupplierIds(open, 'blocked_supplier_ids');
    const min = open.integer('exchange_min_percentage', { required: true, min: 0, max: 100 });
    const max = open.integer('exchange_max_percentage', { required: true, min: 0, max: 100 });
    if (typeof min === 'number' && typeof max === 'number' && min > max) open.fail('exchange_min_percentage', 'must not exceed exchange_max_percentage');
    const openGroups = readGroups(open, 'open');
    const privBlocked = readSupplierIds(priv, 'blocked_supplier_ids');
    const privGroups = readGroups(priv, 'private');
    next = {
      template_id: tg.allocations.template_id,
      open_exchange_allocations: { blocked_supplier_ids: blocked ?? [], exchange_min_percentage: min ?? 0, exchange_max_percentage: max ?? 100, groups: openGroups ?? [] },
      private_exchange_allocations: { blocked_supplier_ids: privBlocked ?? [], groups: privGroups ?? [] },
    };
  }
  r.finish('The allocation specification is invalid.');
  const changed = JSON.stringify(tg.allocations) !== JSON.stringify(next);
  tg.allocations = next!;
  touch(ctx, tg);
  pinWriteVersion(tg, ctx.version);
  if (changed) emitTargetGroupEvent(ctx, 'updated', tg, ['allocations']);
  return noContent();
}

// --- fielding assistant ----------------------------------------------------------------------------------------------

const assistantEtag = (tg: TargetGroupRecord) => `"fa.${tg.id}.${tg.fielding_assistant_revision ?? 0}"`;
const ASSISTANT_MODULES = ['pricing', 'quota_overlay', 'pacing', 'soft_launch'] as const;

function renderAssistant(tg: TargetGroupRecord) {
  const current = tg.fielding_assistant_assignment ?? {};
  return Object.fromEntries(ASSISTANT_MODULES.map((module) => [module, current[module] ?? null]));
}

const DURATION = /^P(?!$)(\d+Y)?(\d+M)?(\d+W)?(\d+D)?(T(?=\d)(\d+H)?(\d+M)?(\d+S)?)?$/;

function readMoneyModule(m: ObjectReader, field: string): void {
  const money = m.object(field);
  if (!money) return;
  money.rejectUnknown(['value', 'currency_code', 'currency_scale']);
  money.string('value', { required: true, pattern: /^\d+(\.\d{1,2})?$/, patternReason: 'must be a decimal amount' });
  money.string('currency_code', { pattern: /^[A-Z]{3}$/, patternReason: 'must be an ISO-4217 code' });
}

function readAssistant(body: unknown): Record<string, unknown> {
  const r = ObjectReader.body(body);
  r.rejectUnknown(ASSISTANT_MODULES);
  const pricing = r.object('pricing', { nullable: true });
  if (pricing) {
    const type = pricing.oneOf('type', ['dynamic', 'rate_card'], { required: true });
    pricing.rejectUnknown(type === 'rate_card' ? ['type', 'maximum_cpi', 'boost_cpi'] : ['type', 'total_budget', 'maximum_cpi', 'minimum_cpi']);
    for (const field of ['total_budget', 'maximum_cpi', 'minimum_cpi', 'boost_cpi']) if (pricing.has(field)) readMoneyModule(pricing, field);
  }
  const overlay = r.object('quota_overlay', { nullable: true });
  if (overlay) {
    overlay.rejectUnknown(['prevent_overfill', 'balance_fill']);
    overlay.boolean('prevent_overfill', { required: true });
    overlay.boolean('balance_fill', { required: true });
  }
  const pacing = r.object('pacing', { nullable: true });
  if (pacing) {
    const type = pacing.oneOf('type', ['linear', 'adaptive', 'gemini'], { required: true });
    if (type === 'gemini') {
      pacing.rejectUnknown(['type', 'exposed_target_group_id']);
      pacing.string('exposed_target_group_id', { required: true, pattern: /^[0-9A-Z]{26}$/, patternReason: 'must be a target group id' });
    } else {
      pacing.rejectUnknown(['type', 'increment_interval']);
      pacing.string('increment_interval', { required: true, pattern: DURATION, patternReason: 'must be an ISO-8601 duration' });
    }
  }
  const soft = r.object('soft_launch', { nullable: true });
  if (soft) {
    soft.rejectUnknown(['end_at', 'filling_goal_percentage', 'demographics_strictness_percentage']);
    soft.string('end_at', { required: true, pattern: ISO_TIMESTAMP, patternReason: 'must be an ISO-8601 timestamp with a time zone' });
    soft.integer('filling_goal_percentage', { required: true, min: 1, max: 100 });
    soft.integer('demographics_strictness_percentage', { required: true, min: 0, max: 100 });
  }
  r.finish('The fielding assistant assignment is invalid.');
  // "All or nothing": a module not sent is disabled.
  return Object.fromEntries(ASSISTANT_MODULES.filter((m) => r.value[m] !== undefined && r.value[m] !== null).map((m) => [m, structuredClone(r.value[m])]));
}

function putAssistant(ctx: RequestContext) {
  const tg = requireTargetGroup(ctx);
  assertWriteVersionAllowed(tg, ctx.version, 'target group');
  const current = assistantEtag(tg);
  const ifMatch = ctx.header('if-match');
  const ifNoneMatch = ctx.header('if-none-match');
  const exists = tg.fielding_assistant_assignment !== null && Object.keys(tg.fielding_assistant_assignment).length > 0;
  if (ifMatch !== undefined) {
    const tags = ifMatch.split(',').map((t) => t.trim());
    if (!tags.includes('*') && !tags.includes(current)) throw new ApiError(412, 'precondition_failed_error', 'The fielding assistant assignment changed since it was read (stale ETag); read it again.');
  }
  if (ifNoneMatch !== undefined && ifNoneMatch.trim() === '*' && exists) {
    throw new ApiError(412, 'precondition_failed_error', 'The target group already has a fielding assistant assignment (If-None-Match: *).');
  }
  const next = readAssistant(ctx.body);
  // A soft launch written or removed applies from now on: the simulation first catches up under the old assignment.
  if (tg.status !== 'draft') advanceSimulation(ctx);
  const changed = JSON.stringify(tg.fielding_assistant_assignment ?? {}) !== JSON.stringify(next);
  tg.fielding_assistant_assignment = next;
  if (changed) tg.fielding_assistant_revision = (tg.fielding_assistant_revision ?? 0) + 1;
  touch(ctx, tg);
  pinWriteVersion(tg, ctx.version);
  if (changed) emitTargetGroupEvent(ctx, 'updated', tg, ['fielding_assistant_assignment']);
  return noContent({ etag: assistantEtag(tg) });
}

// --- feasibility of a launched target group ------------------------------------------------------------------------

function feasibilityById(ctx: RequestContext) {
  const tg = requireTargetGroup(ctx);
  if (tg.status === 'draft') throw invalidState(`Target group ${tg.id} is a draft; use calculate_target_group_feasibility for drafts.`);
  const r = ObjectReader.body(ctx.body ?? {});
  r.rejectUnknown(['completes_goal', 'incidence_rate', 'length_of_interview', 'start_at', 'end_at', 'step_days', 'collects_pii', 'cost_per_interview', 'price', 'rate_card_price_boost'], {
    locale: 'a live target group keeps its locale', profiling: 'the sandbox estimates a live group with its stored profiles only', allocations: 'the sandbox estimates a live group with its stored allocations only',
  });
  const goal = r.integer('completes_goal', { min: 1, max: 10_000 });
  const ir = r.number('incidence_rate', { exclusiveMin: 0, max: 1 });
  const loi = r.integer('length_of_interview', { min: 1, max: 45 });
  const startAt = timestamp(r, 'start_at', false);
  const endAt = timestamp(r, 'end_at', false);
  r.number('step_days', { min: 0 });
  r.boolean('collects_pii');
  for (const field of ['cost_per_interview', 'price', 'rate_card_price_boost']) if (r.has(field)) readMoney(r, field, false);
  r.finish('The feasibility request is invalid.');
  const market = findLocaleMarket(tg.locale ?? '');
  if (!market) throw invalidState(`Target group ${tg.id} has no known locale.`);
  const now = ctx.clock.now();
  const from = Math.max(now, startAt ? Date.parse(startAt) : now);
  const end = endAt ?? tg.end_fielding_at;
  const fieldingDays = end ? Math.max(0, (Date.parse(end) - from) / DAY_MS) : 14;
  const fillingGoal = goal ?? tg.filling_goal;
  const remaining = Math.max(0, fillingGoal - tg.metrics.completes);
  const incidenceRate = ir ?? tg.expected_incidence_rate;
  const lengthOfInterviewMinutes = loi ?? tg.expected_length_of_interview_minutes;
  const estimate = estimateFeasibility({
    market, incidenceRate, lengthOfInterviewMinutes, fillingGoal: Math.max(1, remaining), fieldingDays,
    profiles: tg.profiles as Profile[], excludedRespondentCount: excludedIdCount(ctx, tg.id), supplierIds: allocatedSupplierIds(ctx.store, tg.id),
  });
  const businessUnit = tg.business_unit_id ?? ctx.account!.business_unit_ids[0]!;
  const priceMinor = predictedCostPerCompleteMinorUnits(market, incidenceRate, lengthOfInterviewMinutes, businessUnit);
  // The completes the group can reach: those it has, and what the rest of its window can add.
  const reachable = tg.metrics.completes + estimate.feasible_completes;
  return ok({
    suggested_price: moneyFromMinorUnits(priceMinor),
    suggested_price_range: { min: moneyFromMinorUnits(Math.round(priceMinor * 0.9)), max: moneyFromMinorUnits(Math.round(priceMinor * 1.15)) },
    suggested_completes_goal_range: { min: Math.floor(reachable * 0.9), max: reachable },
  });
}

export const liveTargetGroupsRoutes: RouteModule = {
  name: 'live-target-groups',
  routes: [
    { method: 'PUT', path: RUN, versions: CURRENT, handler: updateFieldingRun },
    { method: 'POST', path: `${RUN}/relaunch`, versions: CURRENT, body: 'none', handler: relaunchFieldingRun },
    { method: 'POST', path: `${RUN}/launch-now`, versions: CURRENT, body: 'none', handler: launchNow },
    { method: 'POST', path: SCHEDULE, versions: CURRENT, idempotent: true, handler: scheduleFromDraft },
    { method: 'GET', path: `${SCHEDULE}/{job_id}`, versions: CURRENT, handler: (ctx) => ok(renderScheduleJob(requireJob(ctx, requireTargetGroup(ctx), [SCHEDULE_KIND]))) },
    { method: 'PUT', path: `${TG}/details`, versions: CURRENT, handler: updateDetails },
    { method: 'PUT', path: `${TG}/cost-per-interview`, versions: CURRENT, handler: updateCostPerInterview },
    { method: 'GET', path: `${TG}/allocation-specification`, versions: CURRENT, handler: (ctx) => ok(renderAllocations(requireTargetGroup(ctx))) },
    { method: 'PUT', path: `${TG}/allocation-specification`, versions: CURRENT, handler: updateAllocations },
    {
      method: 'GET', path: `${TG}/fielding-assistant-assignment`, versions: CURRENT,
      handler: (ctx) => { const tg = requireTargetGroup(ctx); return ok(renderAssistant(tg), { etag: assistantEtag(tg) }); },
    },
    { method: 'PUT', path: `${TG}/fielding-assistant-assignment`, versions: CURRENT, handler: putAssistant },
    { method: 'GET', path: `${TG}/profiles/{profile_id}`, versions: CURRENT, handler: getLaunchedProfile },
    { method: 'POST', path: `${TG}/calculate-feasibility`, versions: CURRENT, body: 'optional-json', handler: feasibilityById },
  ],
  init(services) {
    services.jobs.defineKind(SCHEDULE_KIND, settleSchedule(services));
    return services.ticks.register('scheduled-launches', 1000, () => void launchDueScheduledRuns(services));
  },
};
