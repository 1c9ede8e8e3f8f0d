import type { StudySchedule } from '../../plan/schedule';
import type { Api } from '../activity-proxies';
import type { StudyState } from './state';

/** Adds and removes target groups to and from exclusion groups, one call per group and direction. */
export async function writeMemberships(state: StudyState, api: Api, schedule: StudySchedule, draftFailed: ReadonlySet<string>): Promise<void> {
  const ctx = state.ctx();
  const ids = (keys: string[]) => keys.filter((k) => !draftFailed.has(k) && state.targetGroupIds[k]).map((k) => state.targetGroupIds[k]);
  for (const change of schedule.memberships) {
    const exclusionGroupId = state.exclusionGroupIds[change.group];
    if (!exclusionGroupId) continue;
    const add = ids(change.add);
    const remove = ids(change.remove);
    if (add.length) {
      await api(`add to exclusion group ${change.group}`).addTargetGroupsToExclusionGroup({ ctx, exclusionGroupId, targetGroupIds: add });
      state.countWrites();
    }
    if (remove.length) {
      await api(`remove from exclusion group ${change.group}`).removeTargetGroupsFromExclusionGroup({ ctx, exclusionGroupId, targetGroupIds: remove });
      state.countWrites();
    }
  }
}
