import type { StudyStep } from '../../plan/program';
import type { ApplyRun } from './run';

/** Creates or updates the study's project, with the step's Idempotency-Key; remembers its id. */
export async function writeProject({ state, api, desired }: ApplyRun, step: Extract<StudyStep, { kind: 'project' }>): Promise<void> {
  const ctx = state.ctxFor('project');
  if (step.mode === 'create') {
    const result = await api(`create project ${desired.project.project_customer_reference_number}`).ensureProject({
      ctx,
      idempotencyKey: step.idempotencyKey,
      knownId: state.projectId,
      desired: desired.project,
      // The plan creates only a project that observing did not find: no second look before the create.
      observedAbsent: true,
    });
    state.projectId = result.project.id;
    if (result.created) state.countWrites();
    state.pin('project');
  } else if (state.projectId) {
    await api(`update project ${state.projectId}`).updateProject({
      ctx,
      projectId: state.projectId,
      // One key per revision: the same update sent again is deduplicated, a later one is not.
      idempotencyKey: step.idempotencyKey,
      desired: desired.project,
    });
    state.countWrites();
    state.pin('project');
  }
  state.status.projectId = state.projectId;
  state.touch();
}
