import { ApplicationFailure, sleep } from '@temporalio/workflow';
import type { AwaitJobOutput, JobKind } from '../../activities';
import { jobWaitOptions, nextPollDelay, TERMINAL_JOB_STATUSES } from '../../plan/job-timing';
import type { Api } from '../activity-proxies';
import type { TargetGroupState } from './state';

/** What a poll of a job reads. */
export interface JobReading {
  status: string;
  failureReason?: string;
  fieldingRunId?: string;
}

/**
 * Awaits a job until it ends: first inside one `awaitJob` activity (unless `awaited` is what one
 * returned already), then, if it still runs, by polls on durable timers up to the study file's
 * job_timeout. Throws `job_failed` or `job_timeout` (non-retryable).
 */
export async function awaitJob(state: TargetGroupState, api: Api, kind: JobKind, label: string, jobId: string, awaited?: AwaitJobOutput): Promise<JobReading> {
  const timing = state.revision.desired.timing;
  const deadline = Date.now() + timing.jobTimeoutMs;
  const failed = (job: JobReading) => ApplicationFailure.create({ type: 'job_failed', message: `${label} job ${jobId} failed: ${job.failureReason ?? 'no reason given'}`, nonRetryable: true });
  const first = awaited ?? (await api(`wait for ${label} job ${jobId}`, 'long').awaitJob({ ...state.base, kind, jobId, ...jobWaitOptions(timing) }));
  let polls = first.polls;
  state.status.job = { kind: label, jobId, status: first.status, polls };
  if (first.status === 'Failed') throw failed(first);
  if (first.done) return first;
  let delay = timing.jobPollMaxMs;
  for (;;) {
    await sleep(Math.min(delay, Math.max(1, deadline - Date.now())));
    const job = await readJob(state, api, kind, jobId);
    polls += 1;
    state.status.job = { kind: label, jobId, status: job.status, polls };
    if (job.status === 'Failed') throw failed(job);
    if (TERMINAL_JOB_STATUSES.has(job.status)) return job;
    if (Date.now() >= deadline) {
      throw ApplicationFailure.create({ type: 'job_timeout', message: `${label} job ${jobId} still ${job.status} after ${Math.round(timing.jobTimeoutMs / 1000)} s (timing.job_timeout)`, nonRetryable: true });
    }
    delay = nextPollDelay(delay, timing.jobPollInitialMs, timing.jobPollMaxMs);
  }
}

function readJob(state: TargetGroupState, api: Api, kind: JobKind, jobId: string): Promise<JobReading> {
  const input = { ...state.base, jobId };
  switch (kind) {
    case 'launch':
      return api().getLaunchJob(input);
    case 'id_list_upload':
      return api().getIdListJob(input);
    case 'remove_all':
      return api().getRemoveAllJob(input);
    case 'recontact_upload':
      return api().getRecontactJob(input);
  }
}
