// Launch from draft (an asynchronous job) and control of fielding runs with ETags.
import { ApplicationFailure } from '@temporalio/common';
import { callApi, seg, targetGroupPath } from './api-call';
import type { ActivityDeps } from './activity-deps';
import { checkCtx, requireText } from './activity-input';
import type { ApiResponse } from '../api/http/demand-api-client';
import { failureFromAnswer } from '../api/http/errors';
import { FieldingRunAnswer, LaunchJobAnswer } from '../api/wire/fielding';
import { readAnswer, wireMismatchFailure, describeShape } from '../api/wire/read-answer';
import { parseJobStatus } from './job-status';
import { targetGroupStateReader } from './target-group-state';
import type { ActivityCtx } from './types';
import { fromWireBody } from '../api/wire/version-adapter';

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
export interface LaunchFromDraftOutput {
  /** The launch job to poll; null when the target group was already launched. */
  jobId: string | null;
  /** True when the target group was no longer a draft (launched by an earlier attempt or by hand). */
  alreadyLaunched: boolean;
  /** The run of an already launched target group. */
  fieldingRunId: string | null;
}
export interface LaunchJobInput {
  ctx: ActivityCtx;
  projectId: string;
  targetGroupId: string;
  jobId: string;
}
export interface LaunchJobOutput {
  /** `Processing`, `Completed` or `Failed`. */
  status: string;
  fieldingRunId?: string;
  failureReason?: string;
}
export interface FieldingRunInput {
  ctx: ActivityCtx;
  projectId: string;
  targetGroupId: string;
  fieldingRunId: string;
}
export interface FieldingRunOutput {
  run: Record<string, unknown>;
  etag: string;
}
export interface FieldingRunControlInput extends FieldingRunInput {
  /** The ETag of the run the decision was based on (sent as If-Match). */
  etag: string;
}

/**
 * Result of pause/resume/complete. Every variant carries the current `etag`.
 * - `applied`: the API took the action.
 * - `already_in_state`: refused (stale ETag or wrong state), but the run already is where the action leads
 *   (e.g. a retried pause whose first attempt succeeded).
 * - `precondition_failed`: 412, the run changed since `etag`; `run` is the fresh state to decide on again.
 * - `invalid_state`: 422 invalid_state_transition; `run` is the fresh state.
 */
export type FieldingRunControlOutput =
  | { outcome: 'applied'; etag: string }
  | { outcome: 'already_in_state'; etag: string; run: Record<string, unknown> }
  | { outcome: 'precondition_failed'; etag: string; run: Record<string, unknown> }
  | { outcome: 'invalid_state'; etag: string; run: Record<string, unknown>; detail?: string };

type ControlAction = 'pause' | 'resume' | 'complete';
const STATE_AFTER: Record<ControlAction, string> = { pause: 'paused', resume: 'live', complete: 'completed' };

export function fieldingActivities(deps: ActivityDeps) {
  const { readTargetGroupState } = targetGroupStateReader(deps);
  const tgPath = (activity: string, input: { ctx: ActivityCtx; projectId: string; targetGroupId: string }): [ActivityCtx, string] => {
    const ctx = checkCtx(activity, input.ctx);
    return [ctx, targetGroupPath(ctx, requireText(activity, 'projectId', input.projectId), requireText(activity, 'targetGroupId', input.targetGroupId))];
  };

  async function readRun(ctx: ActivityCtx, path: string): Promise<FieldingRunOutput> {
    const req = { method: 'GET', path } as const;
    const res = await callApi(deps.api, ctx, req);
    const call = { operation: 'get_fielding_run', method: req.method, path: req.path };
    const run = readAnswer(call, FieldingRunAnswer, res);
    const etag = res.headers.etag;
    if (!etag) throw wireMismatchFailure(call, res.status, describeShape(res.body), ['the ETag header is missing']);
    return { run: fromWireBody(run, ctx.apiVersion), etag };
  }

  async function control(activity: string, action: ControlAction, input: FieldingRunControlInput): Promise<FieldingRunControlOutput> {
    const [ctx, base] = tgPath(activity, input);
    const runPath = `${base}/fielding-runs/${seg(requireText(activity, 'fieldingRunId', input.fieldingRunId))}`;
    const etag = requireText(activity, 'etag', input.etag);
    const res: ApiResponse = await callApi(deps.api, ctx, {
      method: 'POST',
      path: `${runPath}/${action}`,
      ifMatch: etag,
      acceptStatuses: [412, 422],
    });
    if (res.status < 300) {
      if (res.headers.etag) return { outcome: 'applied', etag: res.headers.etag };
      return { outcome: 'applied', etag: (await readRun(ctx, runPath)).etag };
    }
    const body = (res.body ?? {}) as Record<string, unknown>;
    // The reference answers a run in the wrong state with 422 invalid_state_error.
    if (res.status === 422 && body.object !== 'invalid_state_error' && body.object !== 'invalid_state_transition') {
      // Any other 422 is a plain refusal: classify it like every other error.
      throw failureFromAnswer({ status: res.status, headers: res.headers, body }, { method: 'POST', path: `${runPath}/${action}` });
    }
    const fresh = await readRun(ctx, runPath);
    if (fresh.run.status === STATE_AFTER[action]) return { outcome: 'already_in_state', etag: fresh.etag, run: fresh.run };
    if (res.status === 412) return { outcome: 'precondition_failed', etag: fresh.etag, run: fresh.run };
    const out: FieldingRunControlOutput = { outcome: 'invalid_state', etag: fresh.etag, run: fresh.run };
    if (typeof body.detail === 'string') out.detail = body.detail;
    return out;
  }

  return {
    /**
     * Reads the target group first (GET TG; after its 301 the fielding runs): if it is no longer a draft,
     * reports it as already launched. Otherwise
     * POST TG/fielding-run-jobs/launch-from-draft with the Idempotency-Key -> the job id (201 = the job exists).
     */
    async launchFromDraft(input: LaunchFromDraftInput): Promise<LaunchFromDraftOutput> {
      const [ctx, path] = tgPath('launchFromDraft', input);
      const key = requireText('launchFromDraft', 'idempotencyKey', input.idempotencyKey);
      const endFieldingAt = requireText('launchFromDraft', 'endFieldingAt', input.endFieldingAt);
      /** The target group's launch when it is no longer a draft (launched by an earlier attempt, another launcher or by hand). */
      // GET TG answers a draft (one call) or 301 once launched; then only its fielding run is read.
      const launchedAlready = async (): Promise<LaunchFromDraftOutput | undefined> => {
        const state = await readTargetGroupState(ctx, input.projectId, input.targetGroupId, ['fieldingRun']);
        if (!state || state.status === 'draft') return undefined;
        return { jobId: null, alreadyLaunched: true, fieldingRunId: state.fieldingRunId };
      };
      if (input.knownDraft !== true) {
        const launched = await launchedAlready();
        if (launched?.fieldingRunId) return launched;
      }
      const req = {
        method: 'POST',
        path: `${path}/fielding-run-jobs/launch-from-draft`,
        json: { end_fielding_at: endFieldingAt },
        idempotencyKey: key,
        startsJob: true,
      } as const;
      let res: ApiResponse;
      try {
        res = await callApi(deps.api, ctx, req);
      } catch (error) {
        // A launch job that ended between the read and the launch (another launcher's, with another key):
        // the target group is launched, which is what this call is for. The reference answers a target
        // group that is no longer a draft with 422 invalid_state_error (target_group_not_draft before).
        if (error instanceof ApplicationFailure && (error.type === 'invalid_state_error' || error.type === 'target_group_not_draft')) {
          const launched = await launchedAlready();
          if (launched) return launched;
        }
        throw error;
      }
      // The reference answers 201 without a body: the job is the last segment of the Location header.
      const jobId = res.headers.location ? decodeURIComponent(res.headers.location.split('?')[0].split('/').pop() ?? '') : '';
      if (!jobId) {
        throw wireMismatchFailure({ operation: 'create_launch_fielding_run_from_draft_job', method: req.method, path: req.path }, res.status, describeShape(res.body), ['the Location header naming the job is missing']);
      }
      return { jobId, alreadyLaunched: false, fieldingRunId: null };
    },

    /** GET TG/fielding-run-jobs/launch-from-draft/{job_id} */
    async getLaunchJob(input: LaunchJobInput): Promise<LaunchJobOutput> {
      const [ctx, path] = tgPath('getLaunchJob', input);
      const jobId = requireText('getLaunchJob', 'jobId', input.jobId);
      const req = { method: 'GET', path: `${path}/fielding-run-jobs/launch-from-draft/${seg(jobId)}` } as const;
      const { status, failureReason, body } = parseJobStatus('get_launch_fielding_run_from_draft_job', req, await callApi(deps.api, ctx, req), LaunchJobAnswer);
      const out: LaunchJobOutput = { status };
      const runId = body.created_fielding_run_id;
      if (typeof runId === 'string' || typeof runId === 'number') out.fieldingRunId = String(runId);
      if (failureReason !== undefined) out.failureReason = failureReason;
      return out;
    },

    /** GET TG/fielding-runs/{id} -> the run and its ETag. */
    async getFieldingRun(input: FieldingRunInput): Promise<FieldingRunOutput> {
      const [ctx, path] = tgPath('getFieldingRun', input);
      const id = requireText('getFieldingRun', 'fieldingRunId', input.fieldingRunId);
      return readRun(ctx, `${path}/fielding-runs/${seg(id)}`);
    },

    /** POST …/pause with If-Match. */
    pauseFieldingRun: (input: FieldingRunControlInput) => control('pauseFieldingRun', 'pause', input),
    /** POST …/resume with If-Match. */
    resumeFieldingRun: (input: FieldingRunControlInput) => control('resumeFieldingRun', 'resume', input),
    /** POST …/complete with If-Match. */
    completeFieldingRun: (input: FieldingRunControlInput) => control('completeFieldingRun', 'complete', input),
  };
}
