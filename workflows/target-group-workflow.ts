import { condition, setHandler, workflowInfo } from '@temporalio/workflow';
import { apiActivities } from './activity-proxies';
import { failureOf, rethrowPassThrough } from './failures';
import {
  targetGroupFieldingControlUpdate,
  targetGroupEventOnceUpdate,
  targetGroupReportQuery,
  targetGroupStatusQuery,
  type TargetGroupStatus,
} from './messages';
import {
  targetGroupApproveSignal,
  targetGroupControlSignal,
  targetGroupGuardResumeSignal,
  targetGroupFiguresSignal,
  targetGroupRevisionSignal,
  targetGroupSoftLaunchSignal,
  upstreamCompletesSignal,
} from './child-protocol';
import { answerControl, queueControl, validateControl } from './target-group/controls';
import { converge } from './target-group/converge';
import { noticeCompletion, noticeFailure } from './target-group/notifications';
import { ProgressSender } from './target-group/progress';
import { TargetGroupState, type TargetGroupWorkflowInput } from './target-group/state';
import { watchOnce } from './target-group/watch';
import { continueAsNewFor, safePointDecision, serverHints } from './versioning';

export type { CarriedReport, TargetGroupWorkflowInput } from './target-group/state';
export { PROGRESS_INTERVAL_MS, PROGRESS_PACING_SUMMARY } from './target-group/progress';

/**
 * One target group from draft to fielding and beyond: converge each revision (prepare, upload, gate,
 * approval, launch: workflows/target-group/converge.ts), then watch it (webhook events, fielding
 * controls, performance and drift) until a new revision or the end of fielding.
 */
export async function targetGroupWorkflow(input: TargetGroupWorkflowInput): Promise<TargetGroupStatus> {
  const state = new TargetGroupState(input);
  setHandler(targetGroupStatusQuery, () => state.status);
  setHandler(targetGroupReportQuery, () => state.reportData());
  setHandler(targetGroupApproveSignal, () => void (state.approved = true));
  // Fielding controls: a signal's goes unanswered; `studyflow fielding`'s update answers applied or refused (./target-group/controls.ts).
  setHandler(targetGroupControlSignal, (action) => queueControl(state, action));
  setHandler(targetGroupFieldingControlUpdate, (action) => answerControl(state, action), { validator: validateControl });
  // `studyflow approve --resume`: the resume that a guard's hold lets through (workflows/target-group/guard-hold.ts).
  setHandler(targetGroupGuardResumeSignal, ({ by }) => {
    state.guardResumes.push(by);
    queueControl(state, 'resume');
  });
  // `studyflow approve --promote | --abort`: decides a soft launch that waits (./target-group/soft-launch.ts).
  setHandler(targetGroupSoftLaunchSignal, (decision) => void state.softLaunchDecisions.push(decision));
  // A webhook event is taken once, however many receivers pass it on (an Update keyed by the event id) and however often it comes.
  setHandler(targetGroupEventOnceUpdate, (event) => (state.takeEvent(event) ? 'accepted' : 'duplicate'));
  setHandler(targetGroupRevisionSignal, (next) => void (state.pendingRevision = next));
  setHandler(upstreamCompletesSignal, ({ targetGroup, completes }) => state.takeUpstream(targetGroup, completes));
  setHandler(targetGroupFiguresSignal, (figures) => void (state.figures = figures));
  const progress = new ProgressSender(state, workflowInfo().runStartTime.getTime());
  void progress.run();

  let needsConverge = input.carried === undefined;
  for (;;) {
    if (needsConverge) {
      try {
        await converge(state, apiActivities);
      } catch (error) {
        // A cancellation ends the workflow (it did not fail); an IllegalTransition is a bug: the task fails and waits for a fix.
        rethrowPassThrough(error);
        const failure = failureOf(error);
        const failedIn = state.status.phase;
        state.enter('failed', { failure, message: failure.message });
        noticeFailure(state, failedIn, failure.message);
        await condition(() => state.pendingRevision !== undefined);
      }
      needsConverge = false;
      noticeCompletion(state);
    }
    if (state.pendingRevision) {
      state.takeRevision();
      needsConverge = true;
      continue;
    }
    if (state.status.phase === 'completed') {
      await state.notices.settled();
      await progress.delivered();
      return state.status;
    }
    await watchOnce(state, apiActivities);
    noticeCompletion(state);
    // A safe point: the watch tick is done, no revision waits (./versioning.ts: a long history, or a new build).
    const next = safePointDecision({ ...serverHints(), busy: state.pendingRevision !== undefined });
    if (next.continueAsNew) {
      await state.notices.settled();
      await progress.delivered();
      await continueAsNewFor<typeof targetGroupWorkflow>(next)({ ...input, revision: { ...state.revision, steps: [], launch: undefined }, carried: state.carried() });
    }
  }
}

