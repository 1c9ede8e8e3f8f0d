import { ApplicationFailure, log, sleep, workflowInfo } from '@temporalio/workflow';
import type { Api } from '../activity-proxies';
import { failureOf } from '../failures';
import { endFieldingAt } from '../../plan/launch-gates';
import { ATTEMPT } from '../../plan/program';
import { launchTargetGroups, type LaunchOutcome } from '../launch';
import type { GateReading } from '../child-protocol';
import { itemBackoffMs, itemFailure, ITEM_ATTEMPTS } from './gate';
import { awaitJob } from './jobs';
import { beginSoftLaunch } from './soft-launch';
import type { TargetGroupState } from './state';

/**
 * Launches the target group through the one launch path (its gate passed), or awaits the launch job
 * the study handed over, and settles it live. A launch job that fails is launched again with a new
 * Idempotency-Key (the step's key with the attempt filled in), up to the study file's launch_retries.
 */
export async function launch(state: TargetGroupState, api: Api, gate: GateReading, keyTemplate = `${workflowInfo().workflowId}/launch/${ATTEMPT}`): Promise<void> {
  const desired = state.revision.desired;
  // One end for every attempt: a launch sent again with its Idempotency-Key sends the same request.
  const fieldingEndsAt = endFieldingAt(desired);
  let handedJob = state.revision.launch?.jobId;
  for (;;) {
    let fieldingRunId: string | undefined;
    try {
      if (handedJob) {
        state.enter('launching');
        fieldingRunId = (await awaitJob(state, api, 'launch', 'launch', handedJob)).fieldingRunId;
      } else {
        state.launchAttempts += 1;
        state.enter('launching', { message: state.launchAttempts > 1 ? `attempt ${state.launchAttempts}` : undefined });
        fieldingRunId = await launchOnce(state, api, gate, await sendLaunch(state, api, gate, fieldingEndsAt, keyTemplate.replace(ATTEMPT, String(state.launchAttempts))));
      }
    } catch (error) {
      const failure = failureOf(error);
      if (failure.type === 'job_failed' && state.launchAttempts < desired.timing.launchRetries) {
        log.warn('launch job failed; retrying', { key: desired.key, attempt: state.launchAttempts });
        handedJob = undefined;
        await sleep(desired.timing.jobPollInitialMs);
        continue;
      }
      throw error;
    }
    wentLive(state, fieldingRunId, new Date().toISOString());
    return;
  }
}

/** Sends the launch (launch and job wait in one activity), trying a retryable failure again with the same Idempotency-Key. */
async function sendLaunch(state: TargetGroupState, api: Api, gate: GateReading, fieldingEndsAt: string, idempotencyKey: string): Promise<LaunchOutcome> {
  const desired = state.revision.desired;
  const item = { desired, businessUnitId: state.input.businessUnitId, ...state.base, idempotencyKey, endFieldingAt: fieldingEndsAt, gate };
  for (let attempt = 1; ; attempt += 1) {
    const outcome = (await launchTargetGroups(api, [item]))[desired.key];
    if (outcome.kind !== 'failed' || !outcome.retryable || attempt >= ITEM_ATTEMPTS) return outcome;
    await sleep(itemBackoffMs(attempt));
  }
}

/** Where a launch this workflow sent went: live (its fielding run), or a job awaited on, or a failure thrown. */
async function launchOnce(state: TargetGroupState, api: Api, gate: GateReading, outcome: LaunchOutcome): Promise<string | undefined> {
  if (outcome.kind !== 'held' && outcome.kind !== 'failed' && outcome.jobId) state.writes += 1;
  switch (outcome.kind) {
    case 'live':
      return outcome.fieldingRunId;
    case 'job_running':
      return (await awaitJob(state, api, 'launch', 'launch', outcome.jobId, { status: 'Processing', polls: outcome.polls, done: false })).fieldingRunId;
    case 'job_failed':
      throw ApplicationFailure.create({ type: 'job_failed', message: `launch job ${outcome.jobId} failed: ${outcome.reason}`, nonRetryable: true });
    case 'held':
      throw ApplicationFailure.create({ type: 'gate_changed', message: `the gate held at launch: ${gate.held.join('; ')}`, nonRetryable: true });
    case 'failed':
      throw itemFailure(outcome.failure);
  }
}

/** Records the target group live: now (this workflow launched it) or when the study saw it live. */
export function wentLive(state: TargetGroupState, fieldingRunId: string | undefined, liveAt: string): void {
  state.status.job = undefined;
  state.report.launchedAt ??= liveAt;
  beginSoftLaunch(state, liveAt);
  state.enter('went_live', { fieldingRunId, liveAt, message: undefined });
}
