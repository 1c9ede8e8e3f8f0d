// Generating a blended profile from regular profiles: one target per combination of their targets
// (the cartesian product, in profile_ids order). With quotas, each combination's goal is the filling
// goal split in proportion to the product of its source targets' percentages (equal shares where a
// source has no quota), so the goals add up to exactly the filling goal.

import { apportion } from './profile-quotas';
import { MAX_TARGETS_PER_PROFILE } from './profile-validation';
import type { Profile, RegularProfile, Target } from './profile-types';
import { RuleViolation } from './rule-violation';

/** What to blend and how to name the result. */
export interface BlendedProfileRequest {
  /** Ids of two or more regular profiles, in the order their targets combine. */
  profileIds: string[];
  /** Id of the new blended profile. */
  id: string;
  /** Defaults to the source profile names joined with " × ". */
  name?: string;
  quotasEnabled: boolean;
  fillingGoal: number;
  /** Gives ids for the generated targets. */
  newTargetId: () => string;
}

/**
 * The raw (2025-12-18 input shape) blended profile for `request`; run it through validateProfiles
 * together with the regular profiles to store it. Throws 422 invalid_blended_profile when a source is
 * missing or not regular, 422 too_many_targets when the product exceeds the target limit.
 */
export function generateBlendedProfileInput(profiles: readonly Profile[], request: BlendedProfileRequest): Record<string, unknown> {
  const { profileIds } = request;
  if (profileIds.length < 2 || new Set(profileIds).size !== profileIds.length) {
    throw new RuleViolation(422, 'invalid_blended_profile', 'a blended profile combines two or more distinct profiles',
      [{ name: 'profile_ids', reason: 'must name two or more distinct regular profiles' }]);
  }
  const sources = profileIds.map((id) => profiles.find((profile) => profile.id === id));
  const problems = profileIds.flatMap((id, index) => {
    const source = sources[index];
    if (!source) return [{ name: `profile_ids[${index}]`, reason: `no profile ${id}` }];
    if (source.object !== 'regular') return [{ name: `profile_ids[${index}]`, reason: `profile ${id} is blended; only regular profiles can be blended` }];
    return [];
  });
  if (problems.length > 0) throw new RuleViolation(422, 'invalid_blended_profile', 'the profiles to blend must be regular profiles of the target group', problems);
  const regulars = sources as RegularProfile[];
  const combinationCount = regulars.reduce((count, profile) => count * profile.targets.length, 1);
  if (combinationCount > MAX_TARGETS_PER_PROFILE) {
    throw new RuleViolation(422, 'too_many_targets', `blending gives ${combinationCount} targets; at most ${MAX_TARGETS_PER_PROFILE} are allowed`,
      [{ name: 'profile_ids', reason: `${combinationCount} combinations exceed ${MAX_TARGETS_PER_PROFILE}` }]);
  }
  const combinations = cartesian(regulars.map((profile) => profile.targets));
  const weights = combinations.map((combination) => combination.reduce((product, target, index) => product * shareOf(target, regulars[index]), 1));
  const goals = apportion(request.fillingGoal, weights);
  return {
    object: 'blended',
    id: request.id,
    name: request.name ?? regulars.map((profile) => profile.name).join(' × '),
    quotas_enabled: request.quotasEnabled,
    profile_ids: [...profileIds],
    targets: combinations.map((combination, index) => ({
      id: request.newTargetId(),
      source_target_ids: combination.map((target) => target.id),
      ...(request.quotasEnabled ? { quota: { completes_goal: goals[index] } } : {}),
    })),
  };
}

function shareOf(target: Target, profile: RegularProfile): number {
  const percentage = target.quota.completes_goal_percentage;
  return percentage === null || !profile.quotas_enabled ? 1 / profile.targets.length : percentage / 100;
}

function cartesian<T>(lists: readonly (readonly T[])[]): T[][] {
  return lists.reduce<T[][]>((acc, list) => acc.flatMap((prefix) => list.map((item) => [...prefix, item])), [[]]);
}
