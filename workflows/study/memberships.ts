import type { StudyStep } from '../../plan/program';
import type { ApplyRun } from './run';

/** Adds and removes target groups to and from exclusion groups, one call per group and direction. */
export async function writeMemberships(run: ApplyRun, step: Extract<StudyStep, { kind: 'memberships' }>): Promise<void> {
  const { state, api } = run;
  const ctx = state.ctx();
  const keys = (list: string[]) => list.filter((k) => !run.drafts.failed.has(k) && state.targetGroupIds[k]);
  for (const change of step.changes) {
    const exclusionGroupId = state.exclusionGroupIds[change.group];
    if (!exclusionGroupId) continue;
    for (const [direction, list] of [
      ['add', keys(change.add)],
      ['remove', keys(change.remove)],
    ] as const) {
      if (!list.length) continue;
      const targetGroupIds = list.map((k) => state.targetGroupIds[k]);
      if (direction === 'add') await api(`add to exclusion group ${change.group}`).addTargetGroupsToExclusionGroup({ ctx, exclusionGroupId, targetGroupIds });
      else await api(`remove from exclusion group ${change.group}`).removeTargetGroupsFromExclusionGroup({ ctx, exclusionGroupId, targetGroupIds });
      state.countWrites();
      for (const key of list) run.ran(key, { kind: 'membership', group: change.group, change: direction });
    }
  }
}
