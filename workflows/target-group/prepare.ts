import type { Api } from '../activity-proxies';
import type { TargetGroupState } from './state';

/** Applies the target group's profiles (and profile templates) when the plan says they differ. */
export async function prepareProfiles(state: TargetGroupState, api: Api): Promise<void> {
  const desired = state.revision.desired;
  if (!desired.profiles || !state.revision.actions.some((a) => a.resource === 'profiles' && a.kind === 'update')) return;
  state.enter('uploading', { message: 'applying profiles' });
  await api(`profiles ${desired.key}`).manageProfiles({
    ...state.base,
    profiles: desired.profiles as Record<string, unknown>[],
    ...(desired.profileTemplateIds ? { extra: { profile_template_ids: desired.profileTemplateIds } } : {}),
  });
  state.writes += 1;
}
