// Target groups: create draft, update draft (PUT), get (a draft; 301 to the details once launched), details,
// list, overview (spec: Endpoints › Target groups; reference: get_target_group, get_target_group_details,
// get_target_group_overview).
import { ApiError, notFound } from '../core/api-error';
import { keyedListBody, parsePageRequest, paginate } from '../core/pagination';
import { created, noContent, ok, type RequestContext, type RouteModule } from '../core/route-module';
import type { TargetGroupRecord } from '../core/state-records';
import { assertWriteVersionAllowed, pinWriteVersion } from '../core/versioning';
import { requireProject, requireTargetGroup } from '../resources/lookups';
import { emitTargetGroupEvent } from '../resources/target-group-events';
import { moneyFromMinorUnits, toMinorUnits } from '../model/money';
import { medianLengthOfInterviewSeconds, sessionRates } from '../model/target-group-performance';
import { changedFields, pricingValueOut, readTargetGroupInput, renderTargetGroup, renderTargetGroupDetails, renderTargetGroupListItem, type TargetGroupInput } from '../resources/target-group-wire';
import { LAUNCH_KIND, assertNoRunningJob } from '../resources/target-group-jobs';
import { applyDraftProfiling, readDraftProfiling } from './profiles-target-group';
import { PAGE } from './projects';
import { advanceSimulation, READ_STALENESS_MS, sessionsOf } from './reporting-fielding-simulation';
import { TARGET_GROUPS, TG } from './paths';

function applyInput(tg: TargetGroupRecord, input: TargetGroupInput): void {
  Object.assign(tg, input, { allocations: structuredClone(input.allocations), respondent_activity_exclusions_duration: null });
}

function createTargetGroup(ctx: RequestContext) {
  const project = requireProject(ctx);
  const input = readTargetGroupInput(ctx.body, ctx.version, ctx.account!, ctx.store.data, ctx.dialect);
  const now = ctx.clock.iso();
  const id = ctx.newId('tg');
  const tg: TargetGroupRecord = {
    ...input,
    // The business unit's pricing model (every seeded business unit offers rate_card first).
    pricing_model: input.pricing_model ?? 'rate_card',
    type: input.type ?? 'rate_card',
    id,
    seq: ctx.store.nextSeq(),
    account_id: project.account_id,
    project_id: project.id,
    status: 'draft',
    pinned_version: null,
    respondent_activity_exclusions_duration: null,
    profiles: [],
    fielding_run_id: null,
    end_fielding_at: null,
    metrics: { completes: 0, prescreens: 0 },
    created_at: now,
    updated_at: now,
  };
  // A draft's profiles travel in its own `profiling` (reference: ProfilingRequest).
  const profiling = readDraftProfiling(ctx, tg, ctx.body);
  if (profiling) applyDraftProfiling(tg, profiling);
  pinWriteVersion(tg, ctx.version);
  ctx.store.data.target_groups[id] = tg;
  emitTargetGroupEvent(ctx, 'created', tg);
  // create_target_group answers 201 with the id only (reference: CreatedDraftTargetGroupResponse).
  return created({ id }, { location: `${ctx.path}/${encodeURIComponent(id)}` });
}

function updateTargetGroup(ctx: RequestContext) {
  const tg = requireTargetGroup(ctx);
  assertWriteVersionAllowed(tg, ctx.version, 'target group');
  if (tg.status !== 'draft') {
    throw new ApiError(422, 'invalid_state_error', `Target group ${tg.id} is ${tg.status}; only a draft target group can be updated this way.`);
  }
  assertNoRunningJob(ctx, tg, [LAUNCH_KIND], 'launch');
  const input = readTargetGroupInput(ctx.body, ctx.version, ctx.account!, ctx.store.data, ctx.dialect);
  const before = structuredClone(tg);
  const next = structuredClone(tg);
  applyInput(next, input);
  const profiling = readDraftProfiling(ctx, next, ctx.body);
  applyInput(tg, input);
  if (profiling) applyDraftProfiling(tg, profiling);
  tg.updated_at = ctx.clock.iso();
  pinWriteVersion(tg, ctx.version);
  const changed = changedFields(before, tg);
  if (changed.length > 0) emitTargetGroupEvent(ctx, 'updated', tg, changed);
  // update_target_group answers 204 without a body.
  return noContent();
}

function listTargetGroups(ctx: RequestContext) {
  const project = requireProject(ctx);
  const page = parsePageRequest(ctx.query, PAGE);
  // Reference (get_list_target_groups): `target_group_customer_reference_numbers` and `status` are arrays
  // (the parameter repeated, or comma-separated).
  const references = listParam(ctx.query, 'target_group_customer_reference_numbers');
  const statuses = listParam(ctx.query, 'status');
  // The statistics are the figures so far (the simulation runs up to now first, as performance and overview do).
  advanceSimulation(ctx, { withinMs: READ_STALENESS_MS });
  const items = Object.values(ctx.store.data.target_groups).filter(
    (tg) =>
      tg.project_id === project.id &&
      (references.length === 0 || (tg.target_group_customer_reference_number !== null && references.includes(tg.target_group_customer_reference_number))) &&
      (statuses.length === 0 || statuses.includes(tg.status)),
  );
  return ok(keyedListBody('target_groups', paginate(items, page, (tg) => renderTargetGroupListItem(tg, ctx.version, ctx.dialect, listStatistics(ctx, tg))), ctx.path));
}

/**
 * TargetGroupStatistics of a list item beyond progress, from the simulated sessions (reference: each a
 * `{value, issues}`): the last complete's date, the average cost per interview, incidence and drop-off rates
 * (the figures performance gives), the median length of interview of the completes (the overview's). A statistic with nothing to show yet (no complete, no session) is left out.
 */
function listStatistics(ctx: RequestContext, tg: TargetGroupRecord): Record<string, { value: unknown; issues: unknown[] }> {
  if (tg.status === 'draft') return {};
  const sessions = sessionsOf(ctx, tg.id);
  const completes = sessions.filter((s) => s.status === 'Complete');
  const out: Record<string, { value: unknown; issues: unknown[] }> = {};
  const stat = (name: string, value: unknown) => void (out[name] = { value, issues: [] });
  const last = completes.reduce<string | undefined>((latest, s) => (latest === undefined || s.respondent_update_date > latest ? s.respondent_update_date : latest), undefined);
  if (last) stat('last_complete_date', last);
  if (completes.length) {
    const cost = completes.reduce((sum, s) => sum + (s.cost_per_interview ? toMinorUnits(Number(s.cost_per_interview.value)) : 0), 0);
    stat('average_cost_per_interview', moneyFromMinorUnits(Math.round(cost / completes.length)));
  }
  const rates = sessionRates(sessions);
  if (rates.incidence_rate !== undefined) stat('incidence_rate', rates.incidence_rate);
  if (rates.drop_off_rate !== undefined) stat('drop_off_rate', rates.drop_off_rate);
  const median = medianLengthOfInterviewSeconds(sessions);
  if (median !== null) stat('median_length_of_interview_seconds', median);
  return out;
}

function listParam(query: URLSearchParams, name: string): string[] {
  return query.getAll(name).flatMap((v) => v.split(',')).map((v) => v.trim()).filter((v) => v !== '');
}

/** GET TG: a draft as the reference answers it; once launched, 301 to TG/details (reference: get_target_group). */
function getTargetGroup(ctx: RequestContext) {
  const tg = requireTargetGroup(ctx);
  if (tg.status !== 'draft') return { status: 301, body: undefined, headers: { location: `${ctx.path}/details` } };
  return ok(renderTargetGroup(tg, ctx.version, ctx.dialect));
}

/** The reference: details and overview are for launched target groups; a draft is not found there. */
function requireLaunched(ctx: RequestContext) {
  const tg = requireTargetGroup(ctx);
  if (tg.status === 'draft') throw notFound(`Target group ${tg.id} is a draft; its details and overview exist once it is launched (read the draft at its own path).`);
  return tg;
}

function targetGroupDetails(ctx: RequestContext) {
  const tg = requireLaunched(ctx);
  return ok(renderTargetGroupDetails(tg, ctx.account!.name, ctx.version));
}

/**
 * TargetGroupOverview from the target group and its simulated sessions: progress, money (the 2025-12-18
 * decimal form), status, the locale's country and language, and rates (model/target-group-performance.ts
 * sessionRates, the figures performance gives; 0 while a rate has no denominator: the overview requires them). The spec's
 * renamed pricing_model/type value (Resources › Target group) is carried; `type`, beyond the reference, in the spec's
 * dialect only.
 */
function targetGroupOverview(ctx: RequestContext) {
  const tg = requireLaunched(ctx);
  // The figures so far, as performance gives them (the simulation runs up to now first).
  advanceSimulation(ctx, { withinMs: READ_STALENESS_MS });
  const project = ctx.store.data.projects[tg.project_id];
  const sessions = sessionsOf(ctx, tg.id);
  const completes = sessions.filter((s) => s.status === 'Complete');
  const rates = sessionRates(sessions);
  const cost = completes.reduce((sum, s) => sum + (s.cost_per_interview ? toMinorUnits(Number(s.cost_per_interview.value)) : 0), 0);
  const last = completes.at(-1)?.cost_per_interview;
  const [language, country] = (tg.locale ?? '_').split('_');
  const out: Record<string, unknown> = {
    project_name: project?.name ?? '',
    target_group_name: tg.name ?? tg.id,
    project_manager_id: tg.project_manager_id,
    progress: {
      current_completes: tg.metrics.completes,
      current_prescreens: tg.metrics.prescreens,
      filling_goal: tg.filling_goal,
      filling_strategy: 'completes',
    },
    pricing_model: pricingValueOut(tg.pricing_model, ctx.version),
    ...(ctx.dialect.readsCarryType ? { type: pricingValueOut(tg.type, ctx.version) } : {}),
    is_pricing_restricted: false,
    // The CPI set by update_cost_per_interview is the current one; else the last complete's.
    current_cost_per_interview: tg.cost_per_interview
      ? moneyFromMinorUnits(toMinorUnits(Number(tg.cost_per_interview.value)))
      : last ? moneyFromMinorUnits(toMinorUnits(Number(last.value))) : moneyFromMinorUnits(0),
    average_cost_per_interview: moneyFromMinorUnits(completes.length ? Math.round(cost / completes.length) : 0),
    current_cost: moneyFromMinorUnits(cost),
    status: tg.status,
    country_code: (country ?? '').toUpperCase(),
    language_code: (language ?? '').toUpperCase(),
    conversion_rate: rates.conversion_rate ?? 0,
    drop_off_rate: rates.drop_off_rate ?? 0,
    incidence_rate: rates.incidence_rate ?? 0,
    // The median of the completes' simulated lengths of interview (null before the first complete).
    median_length_of_interview_seconds: medianLengthOfInterviewSeconds(sessions),
    study_type_code: tg.study_type,
    target_group_customer_reference_number: tg.target_group_customer_reference_number,
    created_at: tg.created_at,
  };
  return ok(out);
}

export const targetGroupsRoutes: RouteModule = {
  name: 'target-groups',
  routes: [
    { method: 'GET', path: TARGET_GROUPS, handler: listTargetGroups },
    { method: 'POST', path: TARGET_GROUPS, idempotent: true, handler: createTargetGroup },
    { method: 'GET', path: TG, handler: getTargetGroup },
    { method: 'PUT', path: TG, handler: updateTargetGroup },
    { method: 'GET', path: `${TG}/details`, handler: targetGroupDetails },
    { method: 'GET', path: `${TG}/overview`, handler: targetGroupOverview },
  ],
};
