// Launch from draft (job) and fielding-run control with ETag/If-Match (docs/api-conventions.md).
import { ApiError, notFound } from '../core/api-error';
import { ISO_TIMESTAMP, ObjectReader } from '../core/input-validation';
import type { TargetGroupChange } from '../core/event-bus';
import { created, noContent, ok, type RequestContext, type RouteModule, type SandboxServices } from '../core/route-module';
import type { FieldingRunRecord, FieldingRunStatus, JobRecord } from '../core/state-records';
import { assertWriteVersionAllowed, pinWriteVersion } from '../core/versioning';
import { requireTargetGroup } from '../resources/lookups';
import { emitTargetGroupEvent } from '../resources/target-group-events';
import { LAUNCH_KIND, SANDBOX_API_USER_ID, SIMULATED_FAILURE_REASON, assertNoRunningJob, createTargetGroupJob, renderJob, requireJob } from '../resources/target-group-jobs';
import { recontactRespondentCount } from './recontacts';
import { TG } from './paths';

const LAUNCH = `${TG}/fielding-run-jobs/launch-from-draft`;
const RUN = `${TG}/fielding-runs/{fielding_run_id}`;

function launchFromDraft(ctx: RequestContext) {
  const tg = requireTargetGroup(ctx);
  assertWriteVersionAllowed(tg, ctx.version, 'target group');
  const r = ObjectReader.body(ctx.body);
  r.rejectUnknown(['end_fielding_at']);
  const end = r.string('end_fielding_at', { required: true, pattern: ISO_TIMESTAMP, patternReason: 'must be an ISO-8601 timestamp with a time zone' });
  if (end && Number.isNaN(Date.parse(end))) r.fail('end_fielding_at', 'is not a valid date');
  else if (end && Date.parse(end) <= ctx.clock.now()) r.fail('end_fielding_at', 'must be in the future');
  r.finish('The launch request is invalid.');
  assertNoRunningJob(ctx, tg, [LAUNCH_KIND], 'launch');
  if (tg.status !== 'draft') throw new ApiError(422, 'invalid_state_error', `Target group ${tg.id} is ${tg.status}; only a draft can be launched.`);
  if (!tg.live_url) throw new ApiError(422, 'invalid_state_error', `Target group ${tg.id} has no live_url; set it before launching.`);
  if (tg.study_type === 'recontact' && recontactRespondentCount(ctx.store, tg.id) === 0) {
    throw new ApiError(422, 'recontact_respondents_required', `Recontact target group ${tg.id} has no uploaded respondents; upload them before launching.`);
  }
  const job = createTargetGroupJob(ctx, tg, LAUNCH_KIND, { end_fielding_at: new Date(Date.parse(end!)).toISOString() });
  pinWriteVersion(tg, ctx.version);
  // The reference: 201 without a body; the job is named by the Location header only.
  return created(undefined, { location: `${ctx.path}/${job.id}` });
}

const settleLaunch = (services: SandboxServices) => (job: JobRecord) => {
  const tg = services.store.data.target_groups[job.target_group_id];
  const fail = (reason: string) => {
    job.status = 'Failed';
    job.failure_reason = reason;
  };
  if (!tg) return fail('The target group no longer exists.');
  if (job.simulated_failure) return fail(SIMULATED_FAILURE_REASON);
  if (tg.status !== 'draft') return fail(`The target group is ${tg.status}, not draft.`);
  if (!tg.live_url) return fail('The target group has no live_url.');
  const now = services.clock.iso();
  const run: FieldingRunRecord = {
    id: services.newId('fr'),
    seq: services.store.nextSeq(),
    account_id: tg.account_id,
    project_id: tg.project_id,
    target_group_id: tg.id,
    status: 'live',
    revision: 1,
    end_fielding_at: job.input.end_fielding_at as string,
    started_at: now,
    updated_at: now,
    completed_at: null,
  };
  services.store.data.fielding_runs[run.id] = run;
  tg.status = 'live';
  tg.fielding_run_id = run.id;
  tg.start_fielding_at = run.started_at;
  tg.end_fielding_at = run.end_fielding_at;
  tg.updated_at = now;
  job.status = 'Completed';
  job.result = { created_fielding_run_id: run.id };
  emitTargetGroupEvent(services, 'launched', tg, ['status', 'fielding_run_id', 'end_fielding_at']);
};

export const etagOf = (run: FieldingRunRecord) => `"${run.id}.${run.revision}"`;

export function requireRun(ctx: RequestContext): FieldingRunRecord {
  const tg = requireTargetGroup(ctx);
  const run = ctx.store.data.fielding_runs[ctx.params.fielding_run_id];
  if (!run || run.target_group_id !== tg.id) throw notFound(`Fielding run ${ctx.params.fielding_run_id} not found.`);
  return run;
}

/** The reference's GetFieldingRunResponse: {id, last_changed_at, last_changed_by, start_fielding_at, end_fielding_at, status, version}. */
export const renderRun = (run: FieldingRunRecord) => ({
  id: run.id,
  last_changed_at: run.updated_at,
  last_changed_by: SANDBOX_API_USER_ID,
  start_fielding_at: run.started_at,
  end_fielding_at: run.end_fielding_at,
  status: run.status,
  version: run.revision,
});

const TRANSITIONS: Record<'pause' | 'resume' | 'complete', { from: FieldingRunStatus[]; to: FieldingRunStatus; change: TargetGroupChange }> = {
  pause: { from: ['live'], to: 'paused', change: 'paused' },
  resume: { from: ['paused'], to: 'live', change: 'resumed' },
  // The reference: complete_fielding_run completes a live or scheduled run (a paused one too: it is launched).
  complete: { from: ['scheduled', 'live', 'paused'], to: 'completed', change: 'completed' },
};

/** The reference's IfMatchRequired of the fielding-run writes: 400 without it, 412 when it names another version. */
export function assertRunIfMatch(ctx: RequestContext, run: FieldingRunRecord): void {
  const ifMatch = ctx.header('if-match');
  // The reference: If-Match is a required parameter (IfMatchRequired); without it the request is malformed.
  if (ifMatch === undefined) throw new ApiError(400, 'bad_request_error', 'If-Match with the ETag of the fielding run is required.', { invalidParams: [{ name: 'If-Match', reason: 'is required' }] });
  const tags = ifMatch.split(',').map((t) => t.trim());
  if (!tags.includes('*') && !tags.includes(etagOf(run))) {
    throw new ApiError(412, 'precondition_failed_error', 'The fielding run changed since it was read (stale ETag); read it again.');
  }
}

function controlRun(ctx: RequestContext, action: keyof typeof TRANSITIONS) {
  const tg = requireTargetGroup(ctx);
  const run = requireRun(ctx);
  assertWriteVersionAllowed(tg, ctx.version, 'target group');
  assertRunIfMatch(ctx, run);
  const t = TRANSITIONS[action];
  if (!t.from.includes(run.status)) {
    throw new ApiError(422, 'invalid_state_error', `Cannot ${action} a fielding run that is ${run.status}.`);
  }
  const now = ctx.clock.iso();
  run.status = t.to;
  run.revision += 1;
  run.updated_at = now;
  if (t.to === 'completed') run.completed_at = now;
  tg.status = t.to;
  tg.updated_at = now;
  pinWriteVersion(tg, ctx.version);
  emitTargetGroupEvent(ctx, t.change, tg, ['status']);
  return noContent({ etag: etagOf(run) });
}

export const fieldingRoutes: RouteModule = {
  name: 'fielding',
  routes: [
    { method: 'POST', path: LAUNCH, idempotent: true, handler: launchFromDraft },
    { method: 'GET', path: `${LAUNCH}/{job_id}`, handler: (ctx) => ok(renderJob(requireJob(ctx, requireTargetGroup(ctx), [LAUNCH_KIND]))) },
    {
      // get_fielding_runs_by_target_group_id: zero or one run (a draft has none); has_more is always false.
      method: 'GET',
      path: `${TG}/fielding-runs`,
      handler: (ctx) => {
        const tg = requireTargetGroup(ctx);
        const run = tg.fielding_run_id ? ctx.store.data.fielding_runs[tg.fielding_run_id] : undefined;
        return ok({ data: run ? [renderRun(run)] : [], has_more: false });
      },
    },
    {
      method: 'GET',
      path: RUN,
      handler: (ctx) => {
        const run = requireRun(ctx);
        return ok(renderRun(run), { etag: etagOf(run) });
      },
    },
    ...(['pause', 'resume', 'complete'] as const).map((action) => ({
      method: 'POST' as const,
      path: `${RUN}/${action}`,
      body: 'none' as const,
      handler: (ctx: RequestContext) => controlRun(ctx, action),
    })),
  ],
  init(services) {
    services.jobs.defineKind(LAUNCH_KIND, settleLaunch(services));
  },
};

