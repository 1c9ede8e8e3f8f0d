// Timed and staged launches (plan/program.ts: `wait_for_completes`, `wait_until`, `schedule_launch`): a launch held
// until another target group has N completes, or until a moment, either kept by the exchange (its schedule-from-draft
// job) or by a durable timer. Each waits for a new revision too: the new one converges from the top.
import { ApplicationFailure, condition, sleep } from '@temporalio/workflow';
import { nextPollDelay } from '../../plan/job-timing';
import { endFieldingAt } from '../../plan/launch-gates';
import { ATTEMPT, type TargetGroupStep } from '../../plan/program';
import type { Api } from '../activity-proxies';
import type { GateReading } from '../child-protocol';
import { eventOfRemote } from '../phases';
import type { StepOutcome } from '../steps';
import { launch, wentLive } from './launch';
import type { TargetGroupState } from './state';

/** The completes the target group it waits for has: the study's last passed reading, or what it knew at the hand-over. */
function upstreamHas(state: TargetGroupState, targetGroup: string): number | undefined {
  const known = [state.upstream[targetGroup], state.revision.upstreamCompletes].filter((n): n is number => n !== undefined);
  return known.length ? Math.max(...known) : undefined;
}

/**
 * A staged launch: holds until `step.targetGroup` has `step.completes` completes. The readings come from that target
 * group's watch through the study (`upstreamCompletes` signal); nothing here reads the API. The status shows
 * "launches after X has N completes (it has M)" while it waits.
 */
export async function waitForCompletes(state: TargetGroupState, step: Extract<TargetGroupStep, { kind: 'wait_for_completes' }>): Promise<StepOutcome> {
  const { targetGroup, completes } = step;
  for (;;) {
    const has = upstreamHas(state, targetGroup);
    if (has !== undefined && has >= completes) {
      delete state.status.launchAfter;
      return;
    }
    const launchAfter = { targetGroup, completes, ...(has !== undefined ? { has } : {}) };
    const message = `launches after ${targetGroup} has ${completes} completes${has !== undefined ? ` (it has ${has})` : ''}`;
    // Entered on every turn, from awaiting_completes too: the wait settles the revision it was handed (a re-apply that
    // finds it waiting converges), and each reading passed on is shown.
    state.enter('awaiting_completes', { launchAfter, message });
    await condition(() => state.pendingRevision !== undefined || upstreamHas(state, targetGroup) !== has);
    if (state.pendingRevision) return 'stop';
  }
}

/**
 * A timed launch the exchange cannot schedule (an api_version without schedule-from-draft): a durable timer until
 * `step.at` (it survives worker restarts), then the launch steps after it. A moment passed already goes on at once.
 */
export async function waitUntil(state: TargetGroupState, step: Extract<TargetGroupStep, { kind: 'wait_until' }>): Promise<StepOutcome> {
  const ms = Date.parse(step.at) - Date.now();
  if (ms <= 0) return;
  state.enter('scheduled', { launchAt: step.at, message: `launches at ${step.at} (a durable timer)` });
  if (await condition(() => state.pendingRevision !== undefined, ms)) return 'stop';
  delete state.status.launchAt;
}

/**
 * A timed launch the exchange keeps: create_schedule_fielding_run_from_draft_job with the moment as the run's start
 * (its gate passed), its job awaited; once accepted the exchange holds the intent and starts the run at `step.at` on
 * its own. The workflow then waits for that moment on a durable timer and reads the run until it is live. A moment
 * passed already (an approval given after it) launches at once.
 */
export async function scheduleLaunch(state: TargetGroupState, api: Api, gate: GateReading, step: Extract<TargetGroupStep, { kind: 'schedule_launch' }>): Promise<StepOutcome> {
  const desired = state.revision.desired;
  const atMs = Date.parse(step.at);
  if (atMs <= Date.now()) return launch(state, api, gate);
  state.status.feasibility = gate.feasibility;
  state.status.price = gate.price;
  if (gate.forecast) state.status.launchForecast = gate.forecast;
  state.launchAttempts += 1;
  state.enter('launching', { message: `scheduling the launch for ${step.at}` });
  const idempotencyKey = step.idempotencyKey.replace(ATTEMPT, String(state.launchAttempts));
  const { jobId } = await api(`schedule launch of ${desired.key} for ${step.at}`).scheduleLaunchFromDraft({
    ...state.base,
    startFieldingAt: step.at,
    endFieldingAt: endFieldingAt(desired, atMs),
    idempotencyKey,
  });
  state.writes += 1;
  const fieldingRunId = await awaitScheduleJob(state, api, jobId);
  state.status.job = undefined;
  state.enter('scheduled', { launchAt: step.at, fieldingRunId, message: `launches at ${step.at} (scheduled in the exchange)` });
  if (await condition(() => state.pendingRevision !== undefined, Math.max(1, atMs - Date.now()))) return 'stop';
  return untilLive(state, api, step.at);
}

/** Polls the schedule job on durable timers until it ends (job_timeout at most); its fielding run, or a job_failed failure. */
async function awaitScheduleJob(state: TargetGroupState, api: Api, jobId: string): Promise<string | undefined> {
  const timing = state.revision.desired.timing;
  const deadline = Date.now() + timing.jobTimeoutMs;
  let delay = 0;
  for (let polls = 1; ; polls += 1) {
    const job = await api().getScheduleLaunchJob({ ...state.base, jobId });
    state.status.job = { kind: 'schedule launch', jobId, status: job.status, polls };
    if (job.status === 'Failed') {
      throw ApplicationFailure.create({ type: 'job_failed', message: `schedule launch job ${jobId} failed: ${job.failure?.description ?? 'no reason given'}`, nonRetryable: true });
    }
    if (job.status === 'Completed') return job.fieldingRunId;
    if (Date.now() >= deadline) {
      throw ApplicationFailure.create({ type: 'job_timeout', message: `schedule launch job ${jobId} still ${job.status} after ${Math.round(timing.jobTimeoutMs / 1000)} s (timing.job_timeout)`, nonRetryable: true });
    }
    delay = nextPollDelay(delay, timing.jobPollInitialMs, timing.jobPollMaxMs);
    await sleep(delay);
  }
}

/**
 * The moment has come: reads the run until the exchange has started it (it starts scheduled runs on its own tick),
 * polling as a job is polled, for at most job_timeout; a run the exchange shows otherwise (completed in the UI, say)
 * is taken as it is.
 */
async function untilLive(state: TargetGroupState, api: Api, at: string): Promise<StepOutcome> {
  const timing = state.revision.desired.timing;
  const deadline = Date.now() + timing.jobTimeoutMs;
  let delay = 0;
  for (;;) {
    const { state: remote } = await api().readTargetGroupState({ ...state.base, reads: ['status', 'fieldingRun'] });
    const fieldingRunId = remote.fieldingRunId ?? state.status.fieldingRunId;
    if (remote.status === 'live') {
      delete state.status.launchAt;
      wentLive(state, fieldingRunId, new Date().toISOString());
      return;
    }
    if (remote.status !== 'scheduled') {
      state.enter(eventOfRemote(remote.status), { fieldingRunId });
      return;
    }
    if (Date.now() >= deadline) {
      throw ApplicationFailure.create({ type: 'launch_timeout', message: `the run scheduled for ${at} is still scheduled after ${Math.round(timing.jobTimeoutMs / 1000)} s (timing.job_timeout)`, nonRetryable: true });
    }
    delay = nextPollDelay(delay, timing.jobPollInitialMs, timing.jobPollMaxMs);
    if (await condition(() => state.pendingRevision !== undefined, delay)) return 'stop';
  }
}
