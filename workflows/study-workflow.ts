import {
  allHandlersFinished,
  CancellationScope,
  condition,
  getExternalWorkflowHandle,
  isCancellation,
  log,
  setHandler,
} from '@temporalio/workflow';
import { passUpstreamCompletes } from './study/upstream';
import { apiActivities } from './activity-proxies';
import { failureOf, rethrowPassThrough } from './failures';
import {
  applyUpdate,
  approveUpdate,
  awaitRevisionUpdate,
  fieldingControlUpdate,
  resumeGuardedUpdate,
  softLaunchDecisionUpdate,
  type SoftLaunchDecisionRequest,
  type GuardResumeRequest,
  reportQuery,
  revisionOutcome,
  statusQuery,
  type ApproveRequest,
  type StudyReport,
  type StudyStatus,
} from './messages';
import {
  targetGroupGuardResumeSignal,
  targetGroupSoftLaunchSignal,
  targetGroupApproveSignal,
  targetGroupControlSignal,
  targetGroupProgressSignal,
  targetGroupReportSignal,
} from './child-protocol';
import { applyRevision } from './study/apply-revision';
import { judgeSpend } from './study/budget';
import { closeoutWarningDueIn, warnOfCloseoutDeadline } from './study/closeout';
import { completeAtEnd } from './study/removed';
import { hasWatched, watchDueIn, watchTick } from './study/watch';
import { StudyState, Superseded, type StudyWorkflowInput } from './study/state';
import { withForecasts } from './forecast';
import { softLaunchDecides } from '../plan/soft-launch';
import { continueAsNewFor, safePointDecision, serverHints, wantsSafePoint } from './versioning';

export type { StudyCarriedState, StudyWorkflowInput } from './study/state';

/** The sooner of two waits (undefined: no wait). */
function earliest(a: number | undefined, b: number | undefined): number | undefined {
  return a === undefined ? b : b === undefined ? a : Math.min(a, b);
}

/** Phases in which a target group has nothing left to approve. */
const PAST_APPROVAL = new Set(['live', 'paused', 'completed', 'failed']);

/**
 * The long-lived workflow of one study: message handlers over one state object, a loop that applies
 * each revision it is sent (workflows/study/apply-revision.ts), and continue-as-new carrying the state.
 */
export async function studyWorkflow(input: StudyWorkflowInput): Promise<StudyStatus> {
  const state = new StudyState(input);
  registerHandlers(state);
  try {
    for (;;) {
      // Between revisions the study watches its live target groups: one list read per watch interval (./study/watch.ts).
      // A close-out not applied warns before its window closes (./study/closeout.ts): the earlier of the two wakes the loop.
      const watchIn = watchDueIn(state);
      const wakeIn = earliest(watchIn, closeoutWarningDueIn(state));
      // Nothing to watch yet: a target group's progress (entering live, say) makes it watchable and wakes the loop.
      const woken = () => state.pending !== undefined || (wantsSafePoint() && allHandlersFinished()) || (watchIn === undefined && hasWatched(state));
      if (wakeIn === undefined) await condition(woken);
      else if (wakeIn > 0) await condition(woken, wakeIn);
      if (state.pending) await applyPending(state);
      else if (closeoutWarningDueIn(state) === 0) await warnOfCloseoutDeadline(state);
      else if (watchDueIn(state) === 0) await watchTick(state, apiActivities);
      // A safe point: no revision being applied, no watch read in flight (./versioning.ts: a long history, or a new build).
      const next = safePointDecision({ ...serverHints(), busy: state.pending !== undefined });
      if (next.continueAsNew) {
        await condition(allHandlersFinished);
        await continueAsNewFor<typeof studyWorkflow>(next)({ accountId: input.accountId, studyId: input.studyId, carried: state.carried() });
      }
    }
  } catch (error) {
    if (isCancellation(error)) {
      // Cancelling a study stops studyflow managing it (and its target-group workflows); nothing is deleted remotely.
      // Under removed_target_groups: complete, its live target groups are completed first (as a removed one is).
      await CancellationScope.nonCancellable(async () => {
        await completeAtEnd(state, apiActivities);
        for (const key of state.children) await getExternalWorkflowHandle(state.childId(key)).cancel().catch(() => undefined);
      });
    }
    throw error;
  }
}


/** Applies the waiting revision; a failure marks the study failed, a newer revision supersedes it. */
async function applyPending(state: StudyState): Promise<void> {
  const request = state.pending;
  if (!request) return;
  state.pending = undefined;
  try {
    await applyRevision(state, apiActivities, request);
  } catch (error) {
    if (error instanceof Superseded) {
      log.info('revision superseded', { revision: request.desired.revision });
      return;
    }
    rethrowPassThrough(error);
    const failure = failureOf(error);
    state.status.error = `${failure.type}: ${failure.message}`;
    state.setPhase('failed');
  } finally {
    state.applying = undefined;
  }
}

/** The target groups an approval reaches: waiting ones with a running workflow. */
function approvable(state: StudyState, request: ApproveRequest): string[] {
  return Object.keys(state.status.targetGroups).filter(
    (key) => (!request.targetGroup || key === request.targetGroup) && state.children.has(key) && !PAST_APPROVAL.has(state.status.targetGroups[key]?.phase),
  );
}

function approve(state: StudyState, request: ApproveRequest): string[] {
  const keys = approvable(state, request);
  for (const key of keys) void getExternalWorkflowHandle(state.childId(key)).signal(targetGroupApproveSignal);
  return keys;
}

/**
 * Approves the close-out waiting for approval, as its files were when it waited (plan/closeout.ts closeoutApprovalKey),
 * and applies that revision again: its close-out submits. Answers the revision to await.
 */
function approveCloseout(state: StudyState): string[] {
  const held = state.status.closeout;
  const approval = state.closeoutApproval;
  if (held) approval.approved = held.approvalKey;
  if (approval.waiting && !state.pending) state.pending = approval.waiting;
  return approval.waiting ? [approval.waiting.desired.revision] : [];
}

/** The target groups a guard holds paused (as their last status says) that `request` names, with a running workflow. */
function guardHeld(state: StudyState, request: GuardResumeRequest): string[] {
  return Object.keys(state.status.targetGroups).filter(
    (key) => (!request.targetGroup || key === request.targetGroup) && state.children.has(key) && (state.status.targetGroups[key]?.guards?.hold?.guards.length ?? 0) > 0,
  );
}

async function resumeGuarded(state: StudyState, request: GuardResumeRequest): Promise<string[]> {
  const keys = guardHeld(state, request);
  await Promise.all(keys.map((key) => getExternalWorkflowHandle(state.childId(key)).signal(targetGroupGuardResumeSignal, { by: request.by })));
  return keys;
}

/** The target groups whose soft launch waits for a decision (as their last status says) that `request` names, with a running workflow. */
function softLaunchWaiting(state: StudyState, request: SoftLaunchDecisionRequest): string[] {
  return Object.keys(state.status.targetGroups).filter((key) => {
    const soft = state.status.targetGroups[key]?.softLaunch;
    return (!request.targetGroup || key === request.targetGroup) && state.children.has(key) && soft !== undefined && softLaunchDecides(soft.state, request.decision);
  });
}

async function decideSoftLaunches(state: StudyState, request: SoftLaunchDecisionRequest): Promise<string[]> {
  const keys = softLaunchWaiting(state, request);
  await Promise.all(keys.map((key) => getExternalWorkflowHandle(state.childId(key)).signal(targetGroupSoftLaunchSignal, { decision: request.decision, by: request.by })));
  return keys;
}

function report(state: StudyState): StudyReport {
  const { reports } = state;
  const status = withForecasts(state.status, reports);
  return {
    studyId: status.studyId,
    accountId: status.accountId,
    phase: status.phase,
    revision: status.revision,
    appliedRevision: status.appliedRevision,
    projectId: status.projectId,
    updatedAt: status.updatedAt,
    ...(status.forecast ? { forecast: status.forecast } : {}),
    ...(status.closeout ? { closeout: status.closeout } : {}),
    targetGroups: Object.fromEntries(Object.entries(status.targetGroups).map(([key, tg]) => [key, reports[key] ? { status: tg, report: reports[key] } : { status: tg }])),
  };
}

function registerHandlers(state: StudyState): void {
  setHandler(statusQuery, () => withForecasts(state.status, state.reports));
  setHandler(reportQuery, () => report(state));
  // A reading of one target group may release a staged launch waiting for it; a progress may show one just started to wait.
  // A reading's spend (or a target group just gone live) is judged against the budget (workflows/study/budget.ts).
  setHandler(targetGroupReportSignal, (update) => {
    state.takeReport(update);
    passUpstreamCompletes(state);
    judgeSpend(state);
  });
  setHandler(targetGroupProgressSignal, (progress) => {
    state.takeProgress(progress);
    passUpstreamCompletes(state);
    judgeSpend(state);
  });
  setHandler(
    applyUpdate,
    (request) => {
      const applying = state.applying?.revision;
      state.pending = request;
      return Promise.resolve({ revision: request.desired.revision, superseded: applying && applying !== request.desired.revision ? applying : undefined });
    },
    {
      validator: (request) => {
        if (request.desired.studyId !== state.studyId || request.desired.accountId !== state.accountId) {
          throw new Error(`this workflow manages study ${state.studyId} of account ${state.accountId}`);
        }
      },
    },
  );
  setHandler(awaitRevisionUpdate, async ({ revision }) => {
    // A re-apply of the revision already applied is pending until the loop takes it: its status is the old one until then.
    await condition(() => (state.pending?.desired.revision !== revision && revisionOutcome(state.status, revision) !== 'running') || wantsSafePoint());
    return state.status;
  });
  setHandler(approveUpdate, (request) => Promise.resolve(request.closeout ? approveCloseout(state) : approve(state, request)), {
    validator: (request) => {
      if (request.closeout && state.status.closeout?.phase !== 'awaiting_approval') throw new Error(`no close-out of study ${state.studyId} waits for approval`);
      if (request.targetGroup && !state.status.targetGroups[request.targetGroup]) throw new Error(`no target group "${request.targetGroup}" in study ${state.studyId}`);
    },
  });
  setHandler(resumeGuardedUpdate, (request) => resumeGuarded(state, request), {
    validator: (request) => {
      if (request.targetGroup && !state.status.targetGroups[request.targetGroup]) throw new Error(`no target group "${request.targetGroup}" in study ${state.studyId}`);
      if (typeof request.by !== 'string' || request.by.trim() === '') throw new Error('a resume names who resumes (--by)');
    },
  });
  setHandler(softLaunchDecisionUpdate, (request) => decideSoftLaunches(state, request), {
    validator: (request) => {
      if (request.decision !== 'promote' && request.decision !== 'abort') throw new Error(`a soft launch is decided by promote or abort, got ${JSON.stringify(request.decision)}`);
      if (request.targetGroup && !state.status.targetGroups[request.targetGroup]) throw new Error(`no target group "${request.targetGroup}" in study ${state.studyId}`);
      if (typeof request.by !== 'string' || request.by.trim() === '') throw new Error('a decision names who decides (--by)');
    },
  });
  setHandler(
    fieldingControlUpdate,
    async (request) => {
      await getExternalWorkflowHandle(state.childId(request.targetGroup)).signal(targetGroupControlSignal, request.action);
      return `${request.action} requested for ${request.targetGroup}`;
    },
    {
      validator: (request) => {
        if (!state.children.has(request.targetGroup)) throw new Error(`target group "${request.targetGroup}" has no running workflow`);
      },
    },
  );
}
