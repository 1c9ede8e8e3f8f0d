import { manageProfilesBody } from '../../plan/profiling';
import type { Api } from '../activity-proxies';
import type { TargetGroupState } from './state';

/**
 * Replaces the profiles of a launched target group with manage-profiles: the `profiles` step, which the
 * program gives only a launched target group whose profiles differ (a draft's profiles travel in its own
 * `profiling` on create and update).
 */
export async function prepareProfiles(state: TargetGroupState, api: Api): Promise<void> {
  const desired = state.revision.desired;
  const request = manageProfilesBody(desired);
  if (!request) return;
  state.enter('uploading', { message: 'replacing the profiles of the launched target group' });
  await api(`profiles ${desired.key}`).manageProfiles({ ...state.base, request });
  state.writes += 1;
}
