import { condition, getExternalWorkflowHandle, ParentClosePolicy, startChild, workflowInfo } from '@temporalio/workflow';
import { canonicalJson } from '../../plan/compare';
import { isWrite } from '../../plan/plan-study';
import { actionsOfTargetGroup } from '../../plan/schedule';
import type { DesiredStudy, DesiredTargetGroup, StudyPlan } from '../../plan/types';
import { targetGroupRevisionSignal, type LaunchHandOver, type TargetGroupRevision } from '../messages';
import { ACCOUNT_ID, REMOTE_TARGET_GROUP_ID, STUDY_ID, TARGET_GROUP_KEY } from '../search-attributes';
import { targetGroupWorkflow } from '../target-group-workflow';
import type { StudyState } from './state';

/**
 * Starts the workflow of each of `keys` (or gives its running workflow the new revision): uploads,
 * gate, approval, launch and watching, or only watching when the study launched it.
 */
export async function startOrReviseChildren(
  state: StudyState,
  desired: DesiredStudy,
  plan: StudyPlan,
  keys: readonly string[],
  handOver: Record<string, LaunchHandOver>,
  failed: ReadonlySet<string>,
): Promise<void> {
  const tgs = desired.targetGroups.filter((tg) => keys.includes(tg.key) && !failed.has(tg.key) && state.targetGroupIds[tg.key]);
  await Promise.all(tgs.map((tg) => startOrRevise(state, desired, tg, { ...revisionOf(state, desired, plan, tg), ...(handOver[tg.key] ? { launch: handOver[tg.key] } : {}) })));
}

function revisionOf(state: StudyState, desired: DesiredStudy, plan: StudyPlan, tg: DesiredTargetGroup): TargetGroupRevision {
  return {
    revision: desired.revision,
    desired: tg,
    targetGroupId: state.targetGroupIds[tg.key],
    projectId: state.projectId as string,
    actions: actionsOfTargetGroup(plan, tg.key),
    apiVersion: state.ctxFor(`tg:${tg.key}`).apiVersion,
  };
}

async function startOrRevise(state: StudyState, desired: DesiredStudy, tg: DesiredTargetGroup, revision: TargetGroupRevision): Promise<void> {
  const existing = state.status.targetGroups[tg.key];
  if (!state.children.has(tg.key)) {
    state.children.add(tg.key);
    state.status.managedTargetGroups = [...state.children];
    state.childRevisions[tg.key] = desired.revision;
    state.childSpecs[tg.key] = canonicalJson(tg);
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
  } else if (state.childSpecs[tg.key] !== canonicalJson(tg) || revision.actions.some(isWrite) || existing?.phase === 'failed') {
    // Its part of the study changed, the API differs from it, or a retry of a failed target group.
    state.childRevisions[tg.key] = desired.revision;
    state.childSpecs[tg.key] = canonicalJson(tg);
    state.reopen(tg.key);
    await getExternalWorkflowHandle(state.childId(tg.key)).signal(targetGroupRevisionSignal, revision);
  }
}

/**
 * Waits until every target group has settled for this revision, or a newer revision arrived. A failed
 * target group, and one the study itself took live (`settledByStudy`, whose workflow starts after), settle
 * with the study's revision; the others with the revision their workflow was last given.
 */
export async function untilSettled(state: StudyState, desired: DesiredStudy, failed: ReadonlySet<string>, settledByStudy: readonly string[]): Promise<void> {
  const keys = desired.targetGroups.map((t) => t.key);
  const byStudy = new Set([...failed, ...settledByStudy]);
  await condition(
    () =>
      state.pending !== undefined ||
      keys.every((k) => {
        const s = state.status.targetGroups[k];
        return s !== undefined && s.settledRevision === (byStudy.has(k) ? desired.revision : state.childRevisions[k]);
      }),
  );
}
