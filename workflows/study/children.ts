import { condition, getExternalWorkflowHandle, log, ParentClosePolicy, startChild, workflowInfo } from '@temporalio/workflow';
import { rethrowPassThrough } from '../failures';
import { specDigest, stepsAfterHandOver, type StudyStep, type TargetGroupStep } from '../../plan/program';
import type { DesiredTargetGroup } from '../../plan/types';
import { targetGroupRevisionSignal, type TargetGroupRevision } from '../child-protocol';
import { ACCOUNT_ID, REMOTE_TARGET_GROUP_ID, STUDY_ID, TARGET_GROUP_KEY } from '../search-attributes';
import { targetGroupWorkflow } from '../target-group-workflow';
import { untilControlsTaken } from './controls';
import type { ApplyRun } from './run';
import { upstreamAtHandOver } from './upstream';

/**
 * The hand-over: starts the workflow of each target group of the step (or gives its running workflow the
 * new revision) with its remaining steps. `now` leaves out those their draft batch took live (they are
 * handed over once the revision settled, only to watch); `settled` hands over exactly those.
 */
export async function handOver(run: ApplyRun, step: Extract<StudyStep, { kind: 'hand_over' }>): Promise<void> {
  const { state, desired } = run;
  const keys = step.keys.filter((k) => (step.when === 'settled') === run.watchOnly.has(k));
  const tgs = desired.targetGroups.filter((tg) => keys.includes(tg.key) && !run.drafts.failed.has(tg.key) && state.targetGroupIds[tg.key]);
  await Promise.all(tgs.map((tg) => startOrRevise(run, tg, step.when)));
}

/**
 * What the target group's workflow runs: the steps of its program after its hand-over; for one the study
 * was to launch, what is left of that launch (nothing once live, the job's wait while it runs, else its
 * own gate and launch).
 */
function remainingSteps(run: ApplyRun, tg: DesiredTargetGroup): TargetGroupStep[] {
  const program = run.program.targetGroups.find((t) => t.key === tg.key);
  if (!program?.fallback) return stepsAfterHandOver(program?.steps ?? []);
  const found = run.handOver[tg.key];
  if (found?.live) return [];
  if (found?.jobId) return [{ kind: 'await_job', job: 'launch' }];
  return program.fallback;
}

function revisionOf(run: ApplyRun, tg: DesiredTargetGroup): TargetGroupRevision {
  const { state, desired } = run;
  const found = run.handOver[tg.key];
  return {
    revision: desired.revision,
    desired: tg,
    targetGroupId: state.targetGroupIds[tg.key],
    projectId: state.projectId as string,
    steps: remainingSteps(run, tg),
    apiVersion: state.ctxFor(`tg:${tg.key}`).apiVersion,
    ...(found ? { launch: found } : {}),
    ...upstreamAtHandOver(state, tg, run.observed),
  };
}

async function startOrRevise(run: ApplyRun, tg: DesiredTargetGroup, when: 'now' | 'settled'): Promise<void> {
  const { state, desired } = run;
  const digests = (state.status.childSpecDigests ??= {});
  const revision = revisionOf(run, tg);
  const handed = run.stepsOf(tg.key).some((s) => s.kind === 'hand_over');
  // A completed target group's workflow has ended: a revision the program hands it (a relaunch) starts a new one.
  const ended = handed && state.status.targetGroups[tg.key]?.phase === 'completed';
  if (!state.children.has(tg.key) || ended) return startTargetGroup(run, tg, when, revision);
  if (!handed) return;
  // The program hands it the revision: its part of the study changed, the API differs from it, or a retry of a failed target group.
  state.childRevisions[tg.key] = desired.revision;
  digests[tg.key] = specDigest(tg);
  run.ran(tg.key, { kind: 'hand_over', when });
  state.reopen(tg.key);
  try {
    await getExternalWorkflowHandle(state.childId(tg.key)).signal(targetGroupRevisionSignal, revision);
  } catch (error) {
    rethrowPassThrough(error);
    // Its workflow ended meanwhile (the exchange completed the target group and its watch saw it first): a new one takes the revision.
    log.info('a target group\'s workflow ended before it took the revision: a new one takes it', { key: tg.key });
    await startTargetGroup(run, tg, when, revision, { handedAlready: true });
  }
}

async function startTargetGroup(run: ApplyRun, tg: DesiredTargetGroup, when: 'now' | 'settled', revision: TargetGroupRevision, options: { handedAlready?: boolean } = {}): Promise<void> {
  const { state, desired } = run;
  const digests = (state.status.childSpecDigests ??= {});
  state.children.add(tg.key);
  state.status.managedTargetGroups = [...state.children];
  state.childRevisions[tg.key] = desired.revision;
  digests[tg.key] = specDigest(tg);
  if (!options.handedAlready) run.ran(tg.key, { kind: 'hand_over', when });
  if (!revision.launch?.live) state.setTargetGroup(tg.key, 'workflow_started', { targetGroupId: revision.targetGroupId });
  await startChild(targetGroupWorkflow, {
    workflowId: state.childId(tg.key),
    args: [{ studyWorkflowId: workflowInfo().workflowId, accountId: desired.accountId, studyId: desired.studyId, businessUnitId: desired.businessUnitId, apiVersion: desired.apiVersion, revision }],
    parentClosePolicy: ParentClosePolicy.ABANDON,
    staticSummary: `Target group ${tg.key} of study ${desired.studyId}`,
    typedSearchAttributes: [
      { key: STUDY_ID, value: desired.studyId },
      { key: ACCOUNT_ID, value: desired.accountId },
      { key: TARGET_GROUP_KEY, value: tg.key },
      { key: REMOTE_TARGET_GROUP_ID, value: revision.targetGroupId },
    ],
  });
}

/**
 * Waits until every target group has settled for this revision, or a newer revision arrived. A failed
 * target group, and one the study itself took live (`watchOnly`, whose workflow starts after), settle
 * with the study's revision; the others with the revision their workflow was last given.
 */
export async function untilSettled(run: ApplyRun): Promise<void> {
  const { state, desired } = run;
  const keys = desired.targetGroups.map((t) => t.key);
  const byStudy = new Set([...run.drafts.failed, ...run.watchOnly]);
  await condition(
    () =>
      state.pending !== undefined ||
      keys.every((k) => {
        const s = state.status.targetGroups[k];
        return s !== undefined && s.settledRevision === (byStudy.has(k) ? desired.revision : state.childRevisions[k]);
      }),
  );
  // The budget's pause or resume sent while planning this revision shows before it settles (./controls.ts).
  await untilControlsTaken(state);
}
