// Launch from draft (an asynchronous job) and control of fielding runs with ETags; the operations are
// api/operations/fielding.ts.
import {
  controlFieldingRun,
  getFieldingRun,
  getLaunchJob,
  launchFromDraft,
  type FieldingRunAction,
  type FieldingRunControlOutput,
  type FieldingRunOutput,
  type LaunchFromDraftOutput,
  type LaunchJobOutput,
} from '../api/operations/fielding';
import type { GuardKind } from '../plan/types';
import { activityCaller } from './api-call';
import type { ActivityDeps } from './activity-deps';
import { checkCtx, requireText } from './activity-input';
import type { ActivityCtx } from './types';

export type { FieldingRunControlOutput, FieldingRunOutput, LaunchFromDraftOutput, LaunchJobOutput } from '../api/operations/fielding';

export interface LaunchFromDraftInput {
  ctx: ActivityCtx;
  projectId: string;
  targetGroupId: string;
  /** Sent as Idempotency-Key. */
  idempotencyKey: string;
  /** ISO-8601 UTC timestamp. */
  endFieldingAt: string;
  /**
   * The caller created this draft moments ago, in the same activity attempt: skip the read that finds a
   * target group launched already (a retry sets it false and reads; the Idempotency-Key covers the rest).
   */
  knownDraft?: boolean;
}
export interface LaunchJobInput {
  ctx: ActivityCtx;
  projectId: string;
  targetGroupId: string;
  jobId: string;
}
export interface FieldingRunInput {
  ctx: ActivityCtx;
  projectId: string;
  targetGroupId: string;
  fieldingRunId: string;
}
export interface FieldingRunControlInput extends FieldingRunInput {
  /** The ETag of the run the decision was based on (sent as If-Match). */
  etag: string;
  /** Why a pause is made, when a guard asks for it: the worker counts the trip (studyflow_guard_trips_total). */
  cause?: { guard: GuardKind };
}

/** The checked ctx and target group of an input. */
function target(activity: string, input: { ctx: ActivityCtx; projectId: string; targetGroupId: string }) {
  const ctx = checkCtx(activity, input.ctx);
  return { ctx, projectId: requireText(activity, 'projectId', input.projectId), targetGroupId: requireText(activity, 'targetGroupId', input.targetGroupId) };
}

/** The launch of one target group, its input checked (also the launch of the draft batch and of launchAndAwaitBatch). */
export async function launchFromDraftChecked(deps: Pick<ActivityDeps, 'api'>, input: LaunchFromDraftInput): Promise<LaunchFromDraftOutput> {
  const { ctx, projectId, targetGroupId } = target('launchFromDraft', input);
  const idempotencyKey = requireText('launchFromDraft', 'idempotencyKey', input.idempotencyKey);
  const endFieldingAt = requireText('launchFromDraft', 'endFieldingAt', input.endFieldingAt);
  return await launchFromDraft(activityCaller(deps, ctx), { projectId, targetGroupId, idempotencyKey, endFieldingAt, knownDraft: input.knownDraft });
}

/** A launch job's status, its input checked (also the reader of awaitJob). */
export async function getLaunchJobChecked(deps: Pick<ActivityDeps, 'api'>, input: LaunchJobInput): Promise<LaunchJobOutput> {
  const { ctx, projectId, targetGroupId } = target('getLaunchJob', input);
  const jobId = requireText('getLaunchJob', 'jobId', input.jobId);
  return await getLaunchJob(activityCaller(deps, ctx), { projectId, targetGroupId, jobId });
}

export function fieldingActivities(deps: ActivityDeps) {
  async function control(activity: string, action: FieldingRunAction, input: FieldingRunControlInput): Promise<FieldingRunControlOutput> {
    const { ctx, projectId, targetGroupId } = target(activity, input);
    const fieldingRunId = requireText(activity, 'fieldingRunId', input.fieldingRunId);
    const etag = requireText(activity, 'etag', input.etag);
    const guard = input.cause === undefined ? undefined : requireText(activity, 'cause.guard', input.cause?.guard);
    const result = await controlFieldingRun(activityCaller(deps, ctx), action, { projectId, targetGroupId, fieldingRunId, etag });
    // Counted when this attempt paused the run: a retry after a lost answer finds it paused (already_in_state) and counts nothing.
    if (guard !== undefined && result.outcome === 'applied') deps.fieldingMetrics?.guardTrips.inc({ guard });
    return result;
  }

  return {
    /** A draft's launch job (api/operations/fielding.ts launchFromDraft), or the launch it already has. */
    launchFromDraft: (input: LaunchFromDraftInput): Promise<LaunchFromDraftOutput> => launchFromDraftChecked(deps, input),

    /** GET TG/fielding-run-jobs/launch-from-draft/{job_id} */
    getLaunchJob: (input: LaunchJobInput): Promise<LaunchJobOutput> => getLaunchJobChecked(deps, input),

    /** GET TG/fielding-runs/{id} -> the run and its ETag. */
    async getFieldingRun(input: FieldingRunInput): Promise<FieldingRunOutput> {
      const { ctx, projectId, targetGroupId } = target('getFieldingRun', input);
      const fieldingRunId = requireText('getFieldingRun', 'fieldingRunId', input.fieldingRunId);
      return await getFieldingRun(activityCaller(deps, ctx), { projectId, targetGroupId, fieldingRunId });
    },

    /** POST …/pause with If-Match. */
    pauseFieldingRun: (input: FieldingRunControlInput) => control('pauseFieldingRun', 'pause', input),
    /** POST …/resume with If-Match. */
    resumeFieldingRun: (input: FieldingRunControlInput) => control('resumeFieldingRun', 'resume', input),
    /** POST …/complete with If-Match. */
    completeFieldingRun: (input: FieldingRunControlInput) => control('completeFieldingRun', 'complete', input),
  };
}
