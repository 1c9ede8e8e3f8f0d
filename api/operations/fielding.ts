// Launch from draft (an asynchronous job) and control of fielding runs with ETags.
import type { ApiResponse } from '../http/demand-api-client';
import { failureFromAnswer, isFailureOfType } from '../http/errors';
import { FieldingRunAnswer, LaunchJobAnswer } from '../wire/fielding';
import { describeShape, readAnswer, wireMismatchFailure } from '../wire/read-answer';
import { fromWireBody } from '../wire/version-adapter';
import { seg, targetGroupPath, type ApiCaller } from './caller';
import { parseJobStatus } from './jobs';
import { readTargetGroupState } from './target-group-state';

/** A target group of a project. */
export interface TargetGroupRef {
  projectId: string;
  targetGroupId: string;
}

export interface LaunchFromDraft extends TargetGroupRef {
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
export interface LaunchJobOutput {
  /** `Processing`, `Completed` or `Failed`. */
  status: string;
  fieldingRunId?: string;
  failureReason?: string;
}
export interface FieldingRunOutput {
  run: Record<string, unknown>;
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

export type FieldingRunAction = 'pause' | 'resume' | 'complete';
const STATE_AFTER: Record<FieldingRunAction, string> = { pause: 'paused', resume: 'live', complete: 'completed' };

const runPath = (caller: ApiCaller, tg: TargetGroupRef, fieldingRunId: string) =>
  `${targetGroupPath(caller, tg.projectId, tg.targetGroupId)}/fielding-runs/${seg(fieldingRunId)}`;

async function readRun(caller: ApiCaller, path: string): Promise<FieldingRunOutput> {
  const req = { method: 'GET', path } as const;
  const res = await caller.send(req);
  const call = { operation: 'get_fielding_run', method: req.method, path: req.path };
  const run = readAnswer(call, FieldingRunAnswer, res);
  const etag = res.headers.etag;
  if (!etag) throw wireMismatchFailure(call, res.status, describeShape(res.body), ['the ETag header is missing']);
  return { run: fromWireBody(run, caller.apiVersion), etag };
}

/** get_fielding_run `GET TG/fielding-runs/{id}`: the run and its ETag. */
export async function getFieldingRun(caller: ApiCaller, input: TargetGroupRef & { fieldingRunId: string }): Promise<FieldingRunOutput> {
  return readRun(caller, runPath(caller, input, input.fieldingRunId));
}

/**
 * `POST TG/fielding-runs/{id}/{pause|resume|complete}` with If-Match `etag`. A refusal (412, or 422
 * invalid_state) reads the run again and says where it is; any other 422 is the API's failure.
 */
export async function controlFieldingRun(
  caller: ApiCaller,
  action: FieldingRunAction,
  input: TargetGroupRef & { fieldingRunId: string; etag: string },
): Promise<FieldingRunControlOutput> {
  const path = runPath(caller, input, input.fieldingRunId);
  const res: ApiResponse = await caller.send({ method: 'POST', path: `${path}/${action}`, ifMatch: input.etag, acceptStatuses: [412, 422] });
  if (res.status < 300) {
    if (res.headers.etag) return { outcome: 'applied', etag: res.headers.etag };
    return { outcome: 'applied', etag: (await readRun(caller, path)).etag };
  }
  const body = (res.body ?? {}) as Record<string, unknown>;
  // The reference answers a run in the wrong state with 422 invalid_state_error.
  if (res.status === 422 && body.object !== 'invalid_state_error' && body.object !== 'invalid_state_transition') {
    // Any other 422 is a plain refusal: classify it like every other error.
    throw failureFromAnswer({ status: res.status, headers: res.headers, body }, { method: 'POST', path: `${path}/${action}` });
  }
  const fresh = await readRun(caller, path);
  if (fresh.run.status === STATE_AFTER[action]) return { outcome: 'already_in_state', etag: fresh.etag, run: fresh.run };
  if (res.status === 412) return { outcome: 'precondition_failed', etag: fresh.etag, run: fresh.run };
  const out: FieldingRunControlOutput = { outcome: 'invalid_state', etag: fresh.etag, run: fresh.run };
  if (typeof body.detail === 'string') out.detail = body.detail;
  return out;
}

/**
 * Reads the target group first (GET TG; after its 301 the fielding runs): if it is no longer a draft,
 * reports it as already launched. Otherwise
 * POST TG/fielding-run-jobs/launch-from-draft with the Idempotency-Key -> the job id (201 = the job exists).
 */
export async function launchFromDraft(caller: ApiCaller, input: LaunchFromDraft): Promise<LaunchFromDraftOutput> {
  const path = targetGroupPath(caller, input.projectId, input.targetGroupId);
  /** The target group's launch when it is no longer a draft (launched by an earlier attempt, another launcher or by hand). */
  // GET TG answers a draft (one call) or 301 once launched; then only its fielding run is read.
  const launchedAlready = async (): Promise<LaunchFromDraftOutput | undefined> => {
    const state = await readTargetGroupState(caller, input.projectId, input.targetGroupId, ['fieldingRun']);
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
    json: { end_fielding_at: input.endFieldingAt },
    idempotencyKey: input.idempotencyKey,
    startsJob: true,
  } as const;
  let res: ApiResponse;
  try {
    res = await caller.send(req);
  } catch (error) {
    // A launch job that ended between the read and the launch (another launcher's, with another key):
    // the target group is launched, which is what this call is for. The reference answers a target
    // group that is no longer a draft with 422 invalid_state_error (target_group_not_draft before).
    if (isFailureOfType(error, 'invalid_state_error') || isFailureOfType(error, 'target_group_not_draft')) {
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
}

/** get_launch_fielding_run_from_draft_job `GET TG/fielding-run-jobs/launch-from-draft/{job_id}`. */
export async function getLaunchJob(caller: ApiCaller, input: TargetGroupRef & { jobId: string }): Promise<LaunchJobOutput> {
  const req = { method: 'GET', path: `${targetGroupPath(caller, input.projectId, input.targetGroupId)}/fielding-run-jobs/launch-from-draft/${seg(input.jobId)}` } as const;
  const { status, failureReason, body } = parseJobStatus('get_launch_fielding_run_from_draft_job', req, await caller.send(req), LaunchJobAnswer);
  const out: LaunchJobOutput = { status };
  const runId = body.created_fielding_run_id;
  if (typeof runId === 'string' || typeof runId === 'number') out.fieldingRunId = String(runId);
  if (failureReason !== undefined) out.failureReason = failureReason;
  return out;
}
