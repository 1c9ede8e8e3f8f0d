// How much of a locale's population a set of profiles lets in. Within a target, conditions on the
// same question are alternatives (OR) and conditions on different questions all apply (AND); the
// targets of a profile are alternatives; profiles all apply. Regular profiles combined by a blended
// profile count through the blended profile only. Answers to different questions are independent.

import type { LocaleMarket } from './locale-markets';
import { combinedProfileIds, type Condition, type Profile, type Target } from './profile-types';
import { findOption, findQuestion, rangeShare } from './question-catalogue';

export function conditionShare(condition: Condition, market: LocaleMarket): number {
  const question = findQuestion(condition.question_id);
  if (!question) return 0;
  switch (condition.object) {
    case 'selection':
      return findOption(question, condition.option)?.share ?? 0;
    case 'range':
      return rangeShare(question, condition.min, condition.max);
    case 'zip_code':
      return condition.allow_all_values ? 1 : Math.min(1, condition.zip_codes.length / market.zipCodeCount);
    default:
      return condition.allow_all_values ? 1 : Math.min(1, condition.values.length * (question.sharePerValue ?? 0));
  }
}

export function targetShare(target: Target, market: LocaleMarket): number {
  const byQuestion = new Map<number, Condition[]>();
  for (const condition of target.conditions) byQuestion.set(condition.question_id, [...(byQuestion.get(condition.question_id) ?? []), condition]);
  let share = 1;
  for (const [questionId, conditions] of byQuestion) {
    const shares = conditions.map((condition) => conditionShare(condition, market));
    const multi = findQuestion(questionId)?.kind === 'multi';
    const either = multi ? 1 - shares.reduce((none, value) => none * (1 - value), 1) : Math.min(1, shares.reduce((sum, value) => sum + value, 0));
    share *= either;
  }
  return share;
}

export function profileShare(profile: Profile, market: LocaleMarket): number {
  return Math.min(1, profile.targets.reduce((sum, target) => sum + targetShare(target, market), 0));
}

/** The regular profiles whose restriction counts on its own (not consumed by a blended profile). */
function restrictingProfiles(profiles: readonly Profile[]): Profile[] {
  const blendedSources = new Set(profiles.flatMap(combinedProfileIds));
  return profiles.filter((profile) => !blendedSources.has(profile.id));
}

/** Share of the population that qualifies for all profiles. */
export function targetingShare(profiles: readonly Profile[], market: LocaleMarket): number {
  return restrictingProfiles(profiles).reduce((share, profile) => share * profileShare(profile, market), 1);
}

/**
 * How far quotas hold the group back: the smallest ratio, over quota targets with a goal, between the
 * completes the target's share of the qualifying population can give and the completes its goal
 * asks for (relative to the filling goal). 1 when no quota binds.
 */
export function quotaFillRatio(profiles: readonly Profile[], market: LocaleMarket, fillingGoal: number): number {
  let ratio = 1;
  for (const profile of restrictingProfiles(profiles)) {
    if (!profile.quotas_enabled) continue;
    const share = profileShare(profile, market);
    if (share <= 0) return 0;
    for (const target of profile.targets) {
      const goal = target.quota.completes_goal;
      if (goal === null || goal <= 0) continue;
      ratio = Math.min(ratio, (targetShare(target, market) / share) / (goal / fillingGoal));
    }
  }
  return ratio;
}
