import { manageProfilesBody } from '../../plan/profiling';
import type { Api } from '../activity-proxies';
import type { TargetGroupState } from './state';

/**
 * Replaces the profiles of a launched target group with manage-profiles when the plan says they differ (a
 * draft's profiles travel in its own `profiling` on create and update, so a draft never comes here).
 */
export async function prepareProfiles(state: TargetGroupState, api: Api): Promise<void> {
  const desired = state.revision.desired;
  const request = manageProfilesBody(desired);
  if (!request || !state.revision.actions.some((a) => a.resource === 'profiles' && a.kind === 'update')) return;
  state.enter('uploading', { message: 'replacing the profiles of the launched target group' });
  await api(`profiles ${desired.key}`).manageProfiles({ ...state.base, request });
  state.writes += 1;
}
