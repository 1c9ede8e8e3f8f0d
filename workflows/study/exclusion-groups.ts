import type { StudyStep } from '../../plan/program';
import type { ApplyRun } from './run';

/** Creates an exclusion group the study declares and the API lacks. */
export async function writeExclusionGroup({ state, api, desired }: ApplyRun, step: Extract<StudyStep, { kind: 'exclusion_group' }>): Promise<void> {
  const group = desired.exclusionGroups.find((g) => g.name === step.name);
  if (!group) return;
  const result = await api(`create exclusion group ${group.name}`).ensureExclusionGroup({
    ctx: state.ctx(),
    idempotencyKey: step.idempotencyKey,
    knownId: state.exclusionGroupIds[group.name],
    desired: { name: group.title },
  });
  state.exclusionGroupIds[group.name] = result.exclusionGroup.id;
  state.status.exclusionGroups[group.name] = result.exclusionGroup.id;
  if (result.created) state.countWrites();
}
