import type { StudySchedule } from '../../plan/schedule';
import type { DesiredStudy } from '../../plan/types';
import type { Api } from '../activity-proxies';
import type { StudyState } from './state';

/** Creates the exclusion groups the study declares and the API lacks, one after the other. */
export async function writeExclusionGroups(state: StudyState, api: Api, desired: DesiredStudy, schedule: StudySchedule): Promise<void> {
  for (const name of schedule.exclusionGroups) {
    const group = desired.exclusionGroups.find((g) => g.name === name);
    if (!group) continue;
    const result = await api(`create exclusion group ${group.name}`).ensureExclusionGroup({
      ctx: state.ctx(),
      idempotencyKey: state.keyFor(`exclusion-group/${group.name}`),
      knownId: state.exclusionGroupIds[group.name],
      desired: { name: group.title },
    });
    state.exclusionGroupIds[group.name] = result.exclusionGroup.id;
    state.status.exclusionGroups[group.name] = result.exclusionGroup.id;
    if (result.created) state.countWrites();
  }
}
