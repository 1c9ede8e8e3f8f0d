// Target groups: create draft, update draft (PUT), get, list, overview (spec: Endpoints › Target groups).
import { ApiError } from '../core/api-error';
import { keyedListBody, parsePageRequest, paginate } from '../core/pagination';
import { created, noContent, ok, type RequestContext, type RouteModule } from '../core/route-module';
import type { TargetGroupRecord } from '../core/state-records';
import { assertWriteVersionAllowed, pinWriteVersion } from '../core/versioning';
import { requireProject, requireTargetGroup } from '../resources/lookups';
import { emitTargetGroupEvent } from '../resources/target-group-events';
import { changedFields, noteField, pricingValueOut, readTargetGroupInput, renderTargetGroup, renderTargetGroupListItem, type TargetGroupInput } from '../resources/target-group-wire';
import { LAUNCH_KIND, assertNoRunningJob } from '../resources/target-group-jobs';
import { applyDraftProfiling, readDraftProfiling } from './profiles-target-group';
import { PAGE } from './projects';
import { TARGET_GROUPS, TG } from './paths';

function applyInput(tg: TargetGroupRecord, input: TargetGroupInput): void {
  Object.assign(tg, input, { allocations: structuredClone(input.allocations), respondent_activity_exclusions_duration: null });
}

function createTargetGroup(ctx: RequestContext) {
  const project = requireProject(ctx);
  const input = readTargetGroupInput(ctx.body, ctx.version, ctx.account!, ctx.store.data);
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
  const input = readTargetGroupInput(ctx.body, ctx.version, ctx.account!, ctx.store.data);
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
  const items = Object.values(ctx.store.data.target_groups).filter(
    (tg) =>
      tg.project_id === project.id &&
      (references.length === 0 || (tg.target_group_customer_reference_number !== null && references.includes(tg.target_group_customer_reference_number))) &&
      (statuses.length === 0 || statuses.includes(tg.status)),
  );
  return ok(keyedListBody('target_groups', paginate(items, page, (tg) => renderTargetGroupListItem(tg, ctx.version)), ctx.path));
}

function listParam(query: URLSearchParams, name: string): string[] {
  return query.getAll(name).flatMap((v) => v.split(',')).map((v) => v.trim()).filter((v) => v !== '');
}

function targetGroupOverview(ctx: RequestContext) {
  const tg = requireTargetGroup(ctx);
  return ok({
    id: tg.id,
    project_id: tg.project_id,
    name: tg.name,
    status: tg.status,
    study_type_code: tg.study_type,
    filling_goal: tg.filling_goal,
    completes: tg.metrics.completes,
    prescreens: tg.metrics.prescreens,
    remaining_completes: Math.max(0, tg.filling_goal - tg.metrics.completes),
    pricing_model: pricingValueOut(tg.pricing_model, ctx.version),
    type: pricingValueOut(tg.type, ctx.version),
    [noteField(ctx.version)]: tg.client_cost_per_interview_note,
    fielding_run_id: tg.fielding_run_id,
    end_fielding_at: tg.end_fielding_at,
    updated_at: tg.updated_at,
  });
}

export const targetGroupsRoutes: RouteModule = {
  name: 'target-groups',
  routes: [
    { method: 'GET', path: TARGET_GROUPS, handler: listTargetGroups },
    { method: 'POST', path: TARGET_GROUPS, idempotent: true, handler: createTargetGroup },
    { method: 'GET', path: TG, handler: (ctx) => ok(renderTargetGroup(requireTargetGroup(ctx), ctx.version)) },
    { method: 'PUT', path: TG, handler: updateTargetGroup },
    { method: 'GET', path: `${TG}/overview`, handler: targetGroupOverview },
  ],
};
