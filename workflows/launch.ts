// The one launch path: read the gates (unless read already this revision), judge them, launch those
// that pass and await their jobs, for any number of target groups. The study runs it for the target
// groups the plan gives the draft batch or the study; a target-group workflow runs it for itself.
import type { ActivityCtx, AwaitJobOutput, BatchItemResult, CheckLaunchGatesOutput } from '../activities';
import { forecastFromFeasibility, forecastGateFailures } from '../plan/forecast';
import { jobWaitOptions } from '../plan/job-timing';
import { endFieldingAt, feasibilityRequest, gateFailures, judgedCpi, readFeasibility } from '../plan/launch-gates';
import type { DesiredTargetGroup } from '../plan/types';
import type { Api } from './activity-proxies';
import { eachInBatches } from './batch-calls';
import type { GateReading } from './child-protocol';

/** A target group whose gate is to be read. */
export interface GateItem {
  desired: DesiredTargetGroup;
  ctx: ActivityCtx;
  businessUnitId: string;
}

/** A target group to launch. */
export interface LaunchItem extends GateItem {
  projectId: string;
  targetGroupId: string;
  /** The launch's Idempotency-Key (a retry after a failed job needs a new one). */
  idempotencyKey: string;
  /**
   * When the fielding run ends; by default the study file's end, else 30 days from now. A launch sent
   * again with the same Idempotency-Key must send the same value (the API refuses a key reused with
   * another request).
   */
  endFieldingAt?: string;
  /** The gate as read this revision; read here when absent. */
  gate?: GateReading;
  /** A launch its draft batch sent already: its job is awaited here, not sent again. */
  sent?: { jobId: string | null; fieldingRunId: string | null };
}

export type Failure = { type: string; message: string };

/** What a gate read found: the reading, or why there is none. */
export type GateRead = { ok: true; gate: GateReading } | { ok: false; retryable: boolean; failure: Failure };

/**
 * Where a launch ended. `jobId` is set whenever a launch job exists (the launch was a write).
 * - `live`: the launch job succeeded (or the target group was launched already);
 * - `held`: the gate holds it (`gate.held` says why);
 * - `job_running`: the job did not end within the activity's wait; whoever owns the target group polls it on;
 * - `job_failed`: the job ended Failed;
 * - `failed`: the gate read or the launch call failed (`retryable` says whether trying again may help).
 */
export type LaunchOutcome =
  | { kind: 'live'; gate: GateReading; jobId?: string; fieldingRunId?: string }
  | { kind: 'held'; gate: GateReading }
  | { kind: 'job_running'; gate: GateReading; jobId: string; polls: number }
  | { kind: 'job_failed'; gate: GateReading; jobId: string; reason: string }
  | { kind: 'failed'; gate?: GateReading; retryable: boolean; failure: Failure };

/**
 * Judges what the API said of a target group's feasibility and price against its launch rules, with the
 * forecast before launch from the same answer (plan/forecast.ts) and its rule, `require_forecast_before_end`.
 * `nowMs` is the clock feasibility was asked at (workflow time).
 */
export function judgeGate(desired: DesiredTargetGroup, answer: CheckLaunchGatesOutput, nowMs: number = Date.now()): GateReading {
  const verdict = readFeasibility(answer.feasibility, desired);
  const price = judgedCpi(undefined, verdict);
  const forecast = forecastFromFeasibility(desired, verdict, nowMs);
  return { feasibility: verdict, ...(price ? { price } : {}), forecast, held: [...gateFailures(desired, verdict, price), ...forecastGateFailures(desired, forecast)] };
}

/** Reads and judges the gates of `items` in batch activities side by side; a reading (or its failure) per key. */
export async function readGates(api: Api, items: readonly GateItem[]): Promise<Record<string, GateRead>> {
  const reads: Record<string, GateRead> = {};
  const now = Date.now();
  await eachInBatches(
    items,
    (item) => item.desired.key,
    'feasibility and price',
    (batch, summary) =>
      api(summary, 'long').checkLaunchGatesBatch({
        items: batch.map((item) => ({ ctx: item.ctx, feasibility: feasibilityRequest(item.desired, item.businessUnitId, now) })),
      }),
    (item, result) => {
      reads[item.desired.key] = result.ok ? { ok: true, gate: judgeGate(item.desired, result, now) } : result;
    },
  );
  return reads;
}

function jobOutcome(gate: GateReading, jobId: string | null, job: AwaitJobOutput | undefined, fieldingRunId: string | null): LaunchOutcome {
  if (!jobId) return { kind: 'live', gate, ...(fieldingRunId ? { fieldingRunId } : {}) };
  if (!job) return { kind: 'job_running', gate, jobId, polls: 0 };
  if (job.status === 'Failed') return { kind: 'job_failed', gate, jobId, reason: job.failureReason ?? 'no reason given' };
  if (!job.done) return { kind: 'job_running', gate, jobId, polls: job.polls };
  const runId = job.fieldingRunId ?? fieldingRunId ?? undefined;
  return { kind: 'live', gate, jobId, ...(runId ? { fieldingRunId: runId } : {}) };
}

/**
 * Gates, launches and awaits the launch jobs of `items`: the gates not read yet are read in batches,
 * those that pass are launched (launch and job wait in one activity per batch; a launch the draft
 * batch sent has only its job awaited), all side by side. An outcome per key.
 */
export async function launchTargetGroups(api: Api, items: readonly LaunchItem[]): Promise<Record<string, LaunchOutcome>> {
  const outcomes: Record<string, LaunchOutcome> = {};
  const unread = items.filter((item) => !item.gate);
  const reads = unread.length > 0 ? await readGates(api, unread) : {};
  const passed: Array<LaunchItem & { gate: GateReading }> = [];
  for (const item of items) {
    const read: GateRead = item.gate ? { ok: true, gate: item.gate } : reads[item.desired.key];
    if (!read.ok) outcomes[item.desired.key] = { kind: 'failed', retryable: read.retryable, failure: read.failure };
    else if (read.gate.held.length > 0) outcomes[item.desired.key] = { kind: 'held', gate: read.gate };
    else passed.push({ ...item, gate: read.gate });
  }
  const toSend = passed.filter((item) => !item.sent);
  const toAwait = passed.filter((item) => item.sent);
  for (const item of toAwait) if (!item.sent?.jobId) outcomes[item.desired.key] = jobOutcome(item.gate, null, undefined, item.sent?.fieldingRunId ?? null);
  const failedItem = (item: LaunchItem & { gate: GateReading }, result: BatchItemResult<unknown> & { ok: false }): LaunchOutcome =>
    item.sent?.jobId ? { kind: 'job_running', gate: item.gate, jobId: item.sent.jobId, polls: 0 } : { kind: 'failed', gate: item.gate, retryable: result.retryable, failure: result.failure };
  await Promise.all([
    eachInBatches(
      toSend,
      (item) => item.desired.key,
      'launch',
      (batch, summary) =>
        api(summary, 'long').launchAndAwaitBatch({
          items: batch.map((item) => ({
            ctx: item.ctx,
            projectId: item.projectId,
            targetGroupId: item.targetGroupId,
            endFieldingAt: item.endFieldingAt ?? endFieldingAt(item.desired),
            idempotencyKey: item.idempotencyKey,
            wait: jobWaitOptions(item.desired.timing),
          })),
        }),
      (item, result) => {
        outcomes[item.desired.key] = result.ok ? jobOutcome(item.gate, result.jobId, result.job, result.fieldingRunId) : failedItem(item, result);
      },
    ),
    eachInBatches(
      toAwait.filter((item) => item.sent?.jobId),
      (item) => item.desired.key,
      'launch jobs',
      (batch, summary) =>
        api(summary, 'long').awaitJobsBatch({
          items: batch.map((item) => ({
            ctx: item.ctx,
            projectId: item.projectId,
            targetGroupId: item.targetGroupId,
            kind: 'launch' as const,
            jobId: item.sent?.jobId as string,
            ...jobWaitOptions(item.desired.timing),
          })),
        }),
      (item, result) => {
        outcomes[item.desired.key] = result.ok ? jobOutcome(item.gate, item.sent?.jobId ?? null, result, item.sent?.fieldingRunId ?? null) : failedItem(item, result);
      },
    ),
  ]);
  return outcomes;
}
