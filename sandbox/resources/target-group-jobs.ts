// Creating and reading the asynchronous jobs of a target group.
import { ApiError, conflict, notFound } from '../core/api-error';
import type { RequestContext } from '../core/route-module';
import type { JobKind, JobRecord, TargetGroupRecord } from '../core/state-records';

/** Creates a Processing job (the simulated failure is drawn now, from the seeded PRNG) and arms its timer. */
export function createTargetGroupJob(ctx: RequestContext, tg: TargetGroupRecord, kind: JobKind, input: Record<string, unknown>, result: Record<string, unknown> = {}): JobRecord {
  const now = ctx.clock.now();
  const job: JobRecord = {
    id: ctx.newId('job'),
    seq: ctx.store.nextSeq(),
    kind,
    account_id: tg.account_id,
    project_id: tg.project_id,
    target_group_id: tg.id,
    status: 'Processing',
    due_at: now + ctx.faults().job_duration_ms,
    simulated_failure: ctx.random.chance(ctx.faults().job_failure_rate),
    failure_reason: null,
    created_at: new Date(now).toISOString(),
    completed_at: null,
    input,
    result,
  };
  ctx.store.data.jobs[job.id] = job;
  ctx.jobs.arm(job);
  return job;
}

/** 409 job_already_running when a job of `kinds` is Processing for the target group. */
export function assertNoRunningJob(ctx: RequestContext, tg: TargetGroupRecord, kinds: readonly string[], what: string): void {
  if (ctx.jobs.hasRunning(tg.id, kinds)) {
    throw conflict('conflict_error', `A ${what} job is already running for target group ${tg.id}; wait until it finishes.`);
  }
}

export function requireJob(ctx: RequestContext, tg: TargetGroupRecord, kinds: readonly string[]): JobRecord {
  const job = ctx.store.data.jobs[ctx.params.job_id];
  if (!job || job.target_group_id !== tg.id || !kinds.includes(job.kind)) throw notFound(`Job ${ctx.params.job_id} not found.`);
  return job;
}

export function assertNotCompleted(tg: TargetGroupRecord): void {
  if (tg.status === 'completed') {
    throw new ApiError(422, 'invalid_state_error', `Target group ${tg.id} is completed; it can no longer change.`);
  }
}

export const SIMULATED_FAILURE_REASON = 'The job failed while processing (simulated failure, job_failure_rate); retry the request.';

/** The user the sandbox's API client acts as: `created_by` of every job (a UUID, as the reference's UserID). */
export const SANDBOX_API_USER_ID = '5b0f3c2e-8d1a-4e6b-9c7f-2a4d6e8f0b13';

export const LAUNCH_KIND = 'launch_from_draft';

/**
 * Job status body of the job endpoints, with exactly the fields the reference's job answers declare:
 * `{job_id, status, created_at, created_by, failure_reason?: {code, description}}`, plus `created_fielding_run_id`
 * for the launch job (get_launch_fielding_run_from_draft_job, which has no completed_at) and `completed_at` for the
 * file jobs (upload, remove-all, recontact upload). What a file job did (IDs in the file, added, removed) is not
 * on the reference's wire: it stays in the job record (`/_sandbox/state`).
 */
export function renderJob(job: JobRecord): Record<string, unknown> {
  const out: Record<string, unknown> = { job_id: job.id, status: job.status, created_at: job.created_at, created_by: SANDBOX_API_USER_ID };
  if (job.kind === LAUNCH_KIND) {
    if (typeof job.result.created_fielding_run_id === 'string') out.created_fielding_run_id = job.result.created_fielding_run_id;
  } else if (job.completed_at) out.completed_at = job.completed_at;
  if (job.status === 'Failed') out.failure_reason = { code: 'job_failed', description: job.failure_reason ?? 'The job failed.' };
  return out;
}
