// Waiting for an asynchronous job inside one activity: polls on the API's job endpoint with backoff
// and heartbeats, for a bounded time. Short jobs (a launch, a small upload) finish inside it, which
// costs the workflow one activity instead of a poll activity and a durable timer per poll; a job still
// running when the time is up goes back to the workflow, which polls it on durable timers.
import { setTimeout as sleep } from 'node:timers/promises';
import { nextPollDelay, TERMINAL_JOB_STATUSES, type JobWaitOptions } from '../plan/job-timing';
import type { ActivityDeps } from './activity-deps';
import { eachItem, type BatchItemResult } from './batch';
import { activityCancellationSignal, withHeartbeats } from './activity-context';
import { requireText } from './activity-input';
import { getLaunchJobChecked, launchFromDraftChecked, type LaunchFromDraftInput, type LaunchFromDraftOutput } from './fielding';
import { invalidInputFailure } from '../api/http/errors';
import { getIdListJobChecked, getRemoveAllJobChecked } from './id-list-exclusions';
import { getRecontactJobChecked } from './recontact';
import type { ActivityCtx } from './types';

/** The asynchronous jobs of the API a target group waits for. */
export type JobKind = 'launch' | 'id_list_upload' | 'remove_all' | 'recontact_upload';

export interface AwaitJobInput {
  ctx: ActivityCtx;
  projectId: string;
  targetGroupId: string;
  kind: JobKind;
  jobId: string;
  /** Delay before the second poll; later delays grow by half up to `pollMaxMs`. The first poll is immediate. */
  pollInitialMs: number;
  pollMaxMs: number;
  /** How long to poll before handing a still-running job back to the workflow. */
  budgetMs: number;
}

export type { JobWaitOptions } from '../plan/job-timing';

export interface LaunchAndAwaitInput extends LaunchFromDraftInput {
  wait: JobWaitOptions;
}

export interface LaunchAndAwaitOutput extends LaunchFromDraftOutput {
  /** The launch job as `awaitJob` left it; absent when there was no job (already launched). */
  job?: AwaitJobOutput;
}

export interface LaunchAndAwaitBatchInput {
  /** Each with its own Idempotency-Key; at most BATCH_MAX (activities/batch.ts). */
  items: LaunchAndAwaitInput[];
}
export interface LaunchAndAwaitBatchOutput {
  /** In the order of the items; a launch whose job Failed is a result (`job.status`), not a failure. */
  results: Array<BatchItemResult<LaunchAndAwaitOutput>>;
}

export interface AwaitJobsBatchInput {
  /** At most BATCH_MAX (activities/batch.ts). */
  items: AwaitJobInput[];
}
export interface AwaitJobsBatchOutput {
  /** In the order of the items; a job that Failed is a result (`status`), not a failure. */
  results: Array<BatchItemResult<AwaitJobOutput>>;
}

export interface AwaitJobOutput {
  /** The last status read. */
  status: string;
  failureReason?: string;
  /** Launch jobs: the fielding run they created. */
  fieldingRunId?: string;
  /** Polls made by this attempt. */
  polls: number;
  /** True when the job ended (Success, Completed or Failed); false when the budget ran out first. */
  done: boolean;
}

/** The clock and the wait `pollJob` uses (real ones in the activity, fakes in tests). */
export interface PollClock {
  now(): number;
  sleep(ms: number): Promise<unknown>;
}

/**
 * Reads a job until it ends or `budgetMs` has passed. The first read is at once; each later one
 * starts the schedule's delay after the previous read *started* (so a slow answer does not stretch
 * the interval), or at once when that read took longer. `progress` follows the last status read.
 */
export async function pollJob(
  read: () => Promise<{ status: string; failureReason?: string; fieldingRunId?: string }>,
  schedule: Pick<AwaitJobInput, 'pollInitialMs' | 'pollMaxMs' | 'budgetMs'>,
  clock: PollClock,
  progress: { status: string; polls: number } = { status: 'unknown', polls: 0 },
): Promise<AwaitJobOutput> {
  const deadline = clock.now() + Math.max(0, schedule.budgetMs);
  let delay = 0;
  for (;;) {
    const startedAt = clock.now();
    const job = await read();
    progress.polls += 1;
    progress.status = job.status;
    const done = TERMINAL_JOB_STATUSES.has(job.status);
    const now = clock.now();
    if (done || now >= deadline) return { ...job, polls: progress.polls, done };
    delay = nextPollDelay(delay, schedule.pollInitialMs, schedule.pollMaxMs);
    await clock.sleep(Math.max(0, Math.min(startedAt + delay, deadline) - now));
  }
}
const KINDS: readonly JobKind[] = ['launch', 'id_list_upload', 'remove_all', 'recontact_upload'];

export function jobWaitActivities(deps: ActivityDeps) {
  function reader(input: AwaitJobInput): () => Promise<{ status: string; failureReason?: string; fieldingRunId?: string }> {
    const base = { ctx: input.ctx, projectId: input.projectId, targetGroupId: input.targetGroupId, jobId: input.jobId };
    switch (input.kind) {
      case 'launch':
        return () => getLaunchJobChecked(deps, base);
      case 'id_list_upload':
        return () => getIdListJobChecked(deps, base);
      case 'remove_all':
        return () => getRemoveAllJobChecked(deps, base);
      case 'recontact_upload':
        return () => getRecontactJobChecked(deps, base);
    }
  }

  const activities = {
    /** Polls a job until it ends or `budgetMs` has passed; heartbeats its polls. */
    async awaitJob(input: AwaitJobInput): Promise<AwaitJobOutput> {
      if (!KINDS.includes(input.kind)) throw invalidInputFailure('awaitJob', `kind must be one of ${KINDS.join(', ')}`);
      requireText('awaitJob', 'jobId', input.jobId);
      const signal = activityCancellationSignal();
      const progress = { status: 'unknown', polls: 0 };
      return await withHeartbeats(
        () => ({ kind: input.kind, jobId: input.jobId, ...progress }),
        () => pollJob(reader(input), input, { now: Date.now, sleep: (ms) => sleep(ms, undefined, signal ? { signal } : undefined) }, progress),
      );
    },

    /** `awaitJob` for several jobs at once, each polled on its own schedule. */
    async awaitJobsBatch(input: AwaitJobsBatchInput): Promise<AwaitJobsBatchOutput> {
      return { results: await eachItem('awaitJobsBatch', input?.items, (item: AwaitJobInput) => activities.awaitJob(item)) };
    },

    /**
     * The launch of the one launch path (workflows/launch.ts), for one target group or many: each item is
     * launched from draft, then its launch job awaited like `awaitJob`, the items side by side. A retry
     * sends the same Idempotency-Keys (the API answers with the same jobs) or finds the target groups
     * launched.
     */
    async launchAndAwaitBatch(input: LaunchAndAwaitBatchInput): Promise<LaunchAndAwaitBatchOutput> {
      return { results: await eachItem('launchAndAwaitBatch', input?.items, launchAndAwait) };
    },
  };

  async function launchAndAwait(input: LaunchAndAwaitInput): Promise<LaunchAndAwaitOutput> {
    const { wait, ...launch } = input;
    const launched = await withHeartbeats(() => ({ kind: 'launch', targetGroupId: input.targetGroupId }), () => launchFromDraftChecked(deps, launch));
    if (!launched.jobId) return launched;
    const job = await activities.awaitJob({ ctx: input.ctx, projectId: input.projectId, targetGroupId: input.targetGroupId, kind: 'launch', jobId: launched.jobId, ...wait });
    return { ...launched, job };
  }
  return activities;
}
