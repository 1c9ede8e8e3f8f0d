import { planRevision } from '../../plan/pipeline';
import { runningFromStatus } from '../../plan/program';
import type { DesiredStudy, ObservedStudy } from '../../plan/types';
import type { Api } from '../activity-proxies';
import type { ApplyRequest } from '../messages';
import { runSteps } from '../steps';
import { STUDY_STEPS } from './handlers';
import { ApplyRun } from './run';
import type { StudyState } from './state';

/**
 * Applies one revision: observe the API, plan, schedule and program it (plan/), then run the program's
 * study steps (workflows/study/handlers.ts through workflows/steps.ts). A newer revision stops it at the
 * next checkpoint.
 */
export async function applyRevision(state: StudyState, api: Api, request: ApplyRequest): Promise<void> {
  const desired = state.begin(request);
  state.setPhase('planning');
  const observed = await api(`observe study ${desired.studyId}`, 'long').observeStudy({ ctx: state.ctx(), desired, known: state.known() });
  const { plan, program } = planRevision(desired, observed, runningFromStatus(state.status), state.children);
  state.status.plan = plan.actions;
  state.checkpoint();
  state.setPhase('applying');
  takeObservedIds(state, desired, observed);
  await runSteps(STUDY_STEPS, new ApplyRun(state, api, desired, observed, program), program.study);
}

/** Remembers the remote ids observing found (a renamed target group keeps its remote id under its new key). */
function takeObservedIds(state: StudyState, desired: DesiredStudy, observed: ObservedStudy): void {
  if (observed.project) state.projectId = observed.project.id;
  for (const [key, tg] of Object.entries(observed.targetGroups)) state.targetGroupIds[key] = tg.id;
  for (const [name, group] of Object.entries(observed.exclusionGroups)) state.exclusionGroupIds[name] = group.id;
  for (const tg of desired.targetGroups) {
    if (tg.movedFrom && state.targetGroupIds[tg.movedFrom] && !state.targetGroupIds[tg.key]) {
      state.targetGroupIds[tg.key] = state.targetGroupIds[tg.movedFrom];
      delete state.targetGroupIds[tg.movedFrom];
    }
  }
}
