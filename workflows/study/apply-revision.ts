import { planRevision } from '../../plan/pipeline';
import { revisionInputs } from '../../plan/revision-inputs';
import type { DesiredStudy, ObservedStudy } from '../../plan/types';
import type { Api } from '../activity-proxies';
import type { ApplyRequest } from '../messages';
import { runSteps } from '../steps';
import { revisionBudget, takeRevisionBudget } from './budget';
import { STUDY_STEPS } from './handlers';
import { stopIfMovedSincePlan } from './plan-file-check';
import { ApplyRun } from './run';
import type { StudyState } from './state';

/**
 * Applies one revision: observe the API (and, for a study with a budget, the prices of the launches ahead:
 * workflows/study/budget.ts), plan, schedule and program it (plan/), then run the program's
 * study steps (workflows/study/handlers.ts through workflows/steps.ts). A newer revision stops it at the
 * next checkpoint.
 */
export async function applyRevision(state: StudyState, api: Api, request: ApplyRequest): Promise<void> {
  const desired = state.begin(request);
  state.setPhase('planning');
  const observed = await api(`observe study ${desired.studyId}`, 'long').observeStudy({ ctx: state.ctx(), desired, known: state.known() });
  // What the plan takes besides desired and observed, as `studyflow plan` derives it (plan/revision-inputs.ts): the
  // running children, the budget's hold, and the launches ahead whose prices a study with a budget reads (over
  // budget, it launches nothing).
  const inputs = revisionInputs(desired, observed, state.status);
  const budget = await revisionBudget(state, api, desired, inputs);
  // A partial apply (request.scope) plans the whole study and runs the program of its target groups in scope only.
  const { plan, program, applied, leftOut } = planRevision(desired, observed, inputs.running, state.children, budget, request.scope);
  state.status.plan = plan.actions;
  state.checkpoint();
  // A revision from a plan file (`apply plan.sfplan`): nothing is written if the exchange moved since the plan.
  if (request.planned) stopIfMovedSincePlan(desired, observed, plan.actions, request.planned.fingerprints);
  takeRevisionBudget(state, desired, plan, budget.held);
  state.setPhase('applying');
  takeObservedIds(state, desired, observed);
  const run = new ApplyRun(state, api, applied, observed, program);
  run.request = request;
  run.unapplied.push(...leftOut);
  if (budget.gates) run.gates = budget.gates;
  await runSteps(STUDY_STEPS, run, program.study);
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
