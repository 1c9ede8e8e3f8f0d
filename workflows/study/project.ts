import type { StudySchedule } from '../../plan/schedule';
import type { DesiredStudy } from '../../plan/types';
import type { Api } from '../activity-proxies';
import type { StudyState } from './state';

/** Creates or updates the study's project, as the schedule says; remembers its id. */
export async function writeProject(state: StudyState, api: Api, desired: DesiredStudy, schedule: StudySchedule): Promise<void> {
  const ctx = state.ctxFor('project');
  if (schedule.project === 'create') {
    const result = await api(`create project ${desired.project.project_customer_reference_number}`).ensureProject({
      ctx,
      idempotencyKey: state.keyFor('project'),
      knownId: state.projectId,
      desired: desired.project,
      // The plan creates only a project that observing did not find: no second look before the create.
      observedAbsent: true,
    });
    state.projectId = result.project.id;
    if (result.created) state.countWrites();
    state.pin('project');
  } else if (schedule.project === 'update' && state.projectId) {
    await api(`update project ${state.projectId}`).updateProject({ ctx, projectId: state.projectId, desired: desired.project });
    state.countWrites();
    state.pin('project');
  }
  state.status.projectId = state.projectId;
  state.touch();
}
