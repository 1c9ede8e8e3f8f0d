// Validation of a whole set of profiles in the 2025-12-18 shape (after version translation), giving
// the normalized profiles the sandbox stores. Rules (sandbox choices where the spec is silent):
// - object is regular or blended; ids are optional (assigned) and unique; at most 30 profiles and
//   200 targets a profile; at most 350 quotas in all (the reference, generate_blended_profile);
// - a regular profile profiles one question, except an open_ended_group profile, which spans two or
//   more open-ended questions (zip-code or free text) listed in open_ended_group.question_ids;
// - a question belongs to one regular profile only;
// - duplicate selection or range conditions within a profile are rejected (422 duplicate_condition);
//   duplicate zip codes within a target are removed silently before validation;
// - a blended profile comes in two forms:
//   - the spec's: no profile_ids; each target gives its own conditions, which may combine several
//     questions; every condition is checked against the question catalogue like a regular profile's;
//     duplicate selection or range conditions within one target, and two targets with the same
//     conditions, are rejected (422 duplicate_condition); its questions may also be profiled by other
//     profiles (each profile applies on its own);
//   - the sandbox's combining form: profile_ids names two or more regular profiles of the same set
//     (each in one blended profile at most); each target names one target per combined profile
//     (source_target_ids) and its conditions are theirs, concatenated;
// - quotas: see profile-quotas.ts.

import { hasOwn, isNonEmptyString, isRecord, type JsonRecord } from './json-shape';
import { findLocaleMarket, type LocaleMarket } from './locale-markets';
import { describeCondition, duplicateKey, readCondition, removeDuplicateZipCodesAcrossConditions } from './profile-conditions';
import { checkQuotaSum, readQuota, type QuotaCounters } from './profile-quotas';
import { findProfileTemplate } from './profile-templates';
import type { BlendedProfile, BlendedTarget, Condition, OpenEndedGroup, Profile, RegularProfile, Target } from './profile-types';
import { findQuestion, isOpenEndedQuestion, textIn } from './question-catalogue';
import { RuleViolation } from './rule-violation';
import { ValidationProblems } from './validation-problems';

export const MAX_PROFILES = 30;
export const MAX_TARGETS_PER_PROFILE = 200;
/** The reference: at most 350 quotas in all the profiles of a target group. */
export const MAX_QUOTAS_PER_TARGET_GROUP = 350;
const ID_PATTERN = /^[A-Za-z0-9_.:-]{1,64}$/;

/** What validation needs to know about the target group the profiles are for. */
export interface ProfileValidationContext {
  /** Locale of the target group (questions and zip codes are checked against it). */
  locale: string;
  /** filling_goal of the target group; quotas are checked against it (null: not known, goals not checked against it). */
  fillingGoal: number | null;
  /** Profiles stored before this request: their completes/prescreens counters are kept by id. */
  previous?: readonly Profile[];
  /** Gives a fresh id for a profile or target the request leaves without one. */
  newId: (kind: 'profile' | 'target') => string;
}

export function validateProfiles(rawProfiles: unknown, context: ProfileValidationContext): Profile[] {
  const market = findLocaleMarket(context.locale);
  if (!market) throw new RuleViolation(422, 'unsupported_locale', `locale ${context.locale} is not supported`, [{ name: 'locale', reason: 'unsupported locale' }]);
  const problems = new ValidationProblems();
  if (!Array.isArray(rawProfiles)) {
    problems.shape('profiles', 'must be an array of profile objects');
    problems.throwIfAny('profiles');
    return [];
  }
  if (rawProfiles.length > MAX_PROFILES) problems.shape('profiles', `at most ${MAX_PROFILES} profiles`);
  const counters = countersById(context.previous ?? []);
  const reader = new ProfileReader(market, context, problems, counters);
  const regulars = new Map<string, RegularProfile>();
  const results: (Profile | undefined)[] = rawProfiles.map(() => undefined);

  rawProfiles.forEach((raw, index) => {
    const path = `profiles[${index}]`;
    if (!isRecord(raw)) return problems.shape(path, 'must be a profile object');
    if (raw.object !== 'regular' && raw.object !== 'blended') return problems.shape(`${path}.object`, 'must be regular or blended');
    if (raw.object === 'regular') {
      const profile = reader.readRegular(raw, path);
      if (profile) {
        results[index] = profile;
        regulars.set(profile.id, profile);
      }
    }
  });
  rawProfiles.forEach((raw, index) => {
    if (isRecord(raw) && raw.object === 'blended') results[index] = reader.readBlended(raw, `profiles[${index}]`, regulars);
  });

  checkAcrossProfiles(results, problems);
  problems.throwIfAny('profiles');
  return results.filter((profile): profile is Profile => profile !== undefined);
}

function countersById(previous: readonly Profile[]): Map<string, QuotaCounters> {
  const counters = new Map<string, QuotaCounters>();
  for (const profile of previous) {
    for (const target of profile.targets) counters.set(`${profile.id}/${target.id}`, { completes: target.quota.completes, prescreens: target.quota.prescreens });
  }
  return counters;
}

class ProfileReader {
  constructor(
    private readonly market: LocaleMarket,
    private readonly context: ProfileValidationContext,
    private readonly problems: ValidationProblems,
    private readonly counters: Map<string, QuotaCounters>,
  ) {}

  readRegular(raw: JsonRecord, path: string): RegularProfile | undefined {
    const { problems, market } = this;
    const id = this.readId(raw, path, 'profile');
    const name = this.readName(raw, path);
    const quotasEnabled = this.readQuotasEnabled(raw, path);
    const group = this.readOpenEndedGroup(raw.open_ended_group, `${path}.open_ended_group`);
    const templateId = this.readTemplateId(raw.template_id, `${path}.template_id`);
    const rawTargets = this.readTargetArray(raw.targets, `${path}.targets`);
    if (id === undefined || name === undefined || quotasEnabled === undefined || rawTargets === undefined || group === false) return undefined;

    const targets: Target[] = [];
    rawTargets.forEach((rawTarget, index) => {
      const targetPath = `${path}.targets[${index}]`;
      if (!isRecord(rawTarget)) return problems.shape(targetPath, 'must be a target object');
      const conditions = this.readTargetConditions(rawTarget, targetPath);
      if (!conditions) return;
      const target = this.readTargetFields(rawTarget, targetPath, id, conditions, quotasEnabled);
      if (target) targets.push(target);
    });
    if (targets.length !== rawTargets.length) return undefined;

    this.checkQuestions(targets, group, path);
    this.checkDuplicateConditions(targets, path);
    this.checkDuplicateTargetIds(targets, path);
    if (quotasEnabled) checkQuotaSum(targets, this.context.fillingGoal, path, problems);

    const questionId = targets[0].conditions[0].question_id;
    const question = findQuestion(questionId);
    const description = group ? group.name : question ? textIn(question.text, market.language) : name;
    const descriptionTranslated = group ? group.name : question ? question.text.en : name;
    return {
      object: 'regular',
      id,
      name,
      description: this.readOptionalText(raw, 'description', path) ?? description,
      description_translated: this.readOptionalText(raw, 'description_translated', path) ?? descriptionTranslated,
      quotas_enabled: quotasEnabled,
      open_ended_group: group ?? null,
      template_id: templateId ?? null,
      targets,
    };
  }

  readBlended(raw: JsonRecord, path: string, regulars: Map<string, RegularProfile>): BlendedProfile | undefined {
    const blendedType = raw.blended_type;
    if (blendedType !== undefined && blendedType !== null && blendedType !== 'interlock' && blendedType !== 'control') {
      this.problems.shape(`${path}.blended_type`, 'must be interlock or control');
      return undefined;
    }
    const profile = raw.profile_ids === undefined || raw.profile_ids === null ? this.readBlendedByConditions(raw, path) : this.readCombinedBlended(raw, path, regulars);
    return profile && typeof blendedType === 'string' ? { ...profile, blended_type: blendedType } : profile;
  }

  /** The spec's shape: targets give their own conditions, on several questions. */
  private readBlendedByConditions(raw: JsonRecord, path: string): BlendedProfile | undefined {
    const { problems, market } = this;
    const id = this.readId(raw, path, 'profile');
    const name = this.readName(raw, path);
    const quotasEnabled = this.readQuotasEnabled(raw, path);
    const rawTargets = this.readTargetArray(raw.targets, `${path}.targets`);
    if (id === undefined || name === undefined || quotasEnabled === undefined || rawTargets === undefined) return undefined;

    const targets: BlendedTarget[] = [];
    rawTargets.forEach((rawTarget, index) => {
      const targetPath = `${path}.targets[${index}]`;
      if (!isRecord(rawTarget)) return problems.shape(targetPath, 'must be a target object');
      if (hasOwn(rawTarget, 'source_target_ids') && rawTarget.source_target_ids !== null) {
        return problems.shape(`${targetPath}.source_target_ids`, 'names targets of combined profiles; give profile_ids too, or leave it out and give the conditions');
      }
      const conditions = this.readTargetConditions(rawTarget, targetPath);
      if (!conditions) return;
      const target = this.readTargetFields(rawTarget, targetPath, id, conditions, quotasEnabled);
      if (target) targets.push(target);
    });
    if (targets.length !== rawTargets.length) return undefined;

    this.checkDuplicateConditionsWithinTargets(targets, path);
    this.checkRepeatedTargets(targets, path);
    this.checkDuplicateTargetIds(targets, path);
    if (quotasEnabled) checkQuotaSum(targets, this.context.fillingGoal, path, problems);

    const questions = [...new Set(targets.flatMap((target) => target.conditions.map((condition) => condition.question_id)))].map((questionId) => findQuestion(questionId)!);
    return {
      object: 'blended',
      id,
      name,
      description: this.readOptionalText(raw, 'description', path) ?? questions.map((question) => textIn(question.text, market.language)).join(' / '),
      description_translated: this.readOptionalText(raw, 'description_translated', path) ?? questions.map((question) => question.text.en).join(' / '),
      quotas_enabled: quotasEnabled,
      targets,
    };
  }

  /** The sandbox's combining form: profile_ids and one target per combination of their targets. */
  private readCombinedBlended(raw: JsonRecord, path: string, regulars: Map<string, RegularProfile>): BlendedProfile | undefined {
    const { problems } = this;
    const id = this.readId(raw, path, 'profile');
    const name = this.readName(raw, path);
    const quotasEnabled = this.readQuotasEnabled(raw, path);
    const rawTargets = this.readTargetArray(raw.targets, `${path}.targets`);
    const profileIds = raw.profile_ids;
    if (!Array.isArray(profileIds) || profileIds.length < 2 || !profileIds.every((value) => isNonEmptyString(value))) {
      problems.shape(`${path}.profile_ids`, 'must be an array of at least two profile ids');
      return undefined;
    }
    if (new Set(profileIds).size !== profileIds.length) {
      problems.rule('invalid_blended_profile', `${path}.profile_ids`, 'a profile can be combined only once');
      return undefined;
    }
    const sources = (profileIds as string[]).map((profileId) => regulars.get(profileId));
    const missing = (profileIds as string[]).filter((_, index) => sources[index] === undefined);
    if (missing.length > 0) {
      problems.rule('invalid_blended_profile', `${path}.profile_ids`, `no regular profile ${missing.join(', ')} in this request`);
      return undefined;
    }
    if (id === undefined || name === undefined || quotasEnabled === undefined || rawTargets === undefined) return undefined;
    const sourceProfiles = sources as RegularProfile[];

    const targets: BlendedTarget[] = [];
    const seenCombinations = new Set<string>();
    rawTargets.forEach((rawTarget, index) => {
      const targetPath = `${path}.targets[${index}]`;
      if (!isRecord(rawTarget)) return problems.shape(targetPath, 'must be a target object');
      const sourceTargetIds = rawTarget.source_target_ids;
      if (!Array.isArray(sourceTargetIds) || sourceTargetIds.length !== sourceProfiles.length || !sourceTargetIds.every((value) => isNonEmptyString(value))) {
        return problems.shape(`${targetPath}.source_target_ids`, `must name one target of each of the ${sourceProfiles.length} combined profiles, in profile_ids order`);
      }
      const sourceTargets = (sourceTargetIds as string[]).map((targetId, position) => sourceProfiles[position].targets.find((candidate) => candidate.id === targetId));
      const unknownIndex = sourceTargets.findIndex((target) => target === undefined);
      if (unknownIndex >= 0) {
        return problems.rule('invalid_blended_profile', `${targetPath}.source_target_ids[${unknownIndex}]`, `profile ${sourceProfiles[unknownIndex].id} has no target ${String(sourceTargetIds[unknownIndex])}`);
      }
      const combination = (sourceTargetIds as string[]).join('\u0000');
      if (seenCombinations.has(combination)) {
        return problems.rule('invalid_blended_profile', `${targetPath}.source_target_ids`, 'this combination of targets is already a target of the profile');
      }
      seenCombinations.add(combination);
      const conditions = (sourceTargets as Target[]).flatMap((target) => target.conditions);
      if (hasOwn(rawTarget, 'conditions') && rawTarget.conditions !== null && JSON.stringify(rawTarget.conditions) !== JSON.stringify(conditions)) {
        return problems.rule('invalid_blended_profile', `${targetPath}.conditions`, 'the conditions of a blended target are those of its source targets; omit them');
      }
      const target = this.readTargetFields(rawTarget, targetPath, id, conditions, quotasEnabled, (sourceTargets as Target[]));
      if (target) targets.push({ ...target, source_target_ids: [...(sourceTargetIds as string[])] });
    });
    if (targets.length !== rawTargets.length) return undefined;
    this.checkDuplicateTargetIds(targets, path);
    if (quotasEnabled) checkQuotaSum(targets, this.context.fillingGoal, path, problems);
    const joinedNames = sourceProfiles.map((profile) => profile.name).join(' × ');
    return {
      object: 'blended',
      id,
      name,
      description: this.readOptionalText(raw, 'description', path) ?? joinedNames,
      description_translated: this.readOptionalText(raw, 'description_translated', path) ?? joinedNames,
      quotas_enabled: quotasEnabled,
      profile_ids: sourceProfiles.map((profile) => profile.id),
      targets,
    };
  }

  /** A target's conditions, each checked against the catalogue and the locale; duplicate zip codes removed. */
  private readTargetConditions(rawTarget: JsonRecord, targetPath: string): Condition[] | undefined {
    if (!Array.isArray(rawTarget.conditions) || rawTarget.conditions.length === 0) {
      this.problems.shape(`${targetPath}.conditions`, 'must be a non-empty array of conditions');
      return undefined;
    }
    const read = rawTarget.conditions.map((condition, conditionIndex) => readCondition(condition, `${targetPath}.conditions[${conditionIndex}]`, this.market, this.problems));
    if (read.some((condition) => condition === undefined)) return undefined;
    return removeDuplicateZipCodesAcrossConditions(read as Condition[]);
  }

  private readTargetFields(raw: JsonRecord, path: string, profileId: string, conditions: Condition[], quotasEnabled: boolean, sourceTargets?: Target[]): Target | undefined {
    const id = this.readId(raw, path, 'target');
    if (id === undefined) return undefined;
    const language = this.market.language;
    const defaultText = sourceTargets
      ? sourceTargets.map((target) => target.text).join(' + ')
      : conditions.map((condition) => describeCondition(condition, language)).join(' / ');
    const defaultTranslated = sourceTargets
      ? sourceTargets.map((target) => target.text_translated).join(' + ')
      : conditions.map((condition) => describeCondition(condition, 'en')).join(' / ');
    const text = this.readOptionalText(raw, 'text', path) ?? defaultText;
    const quota = readQuota(raw.quota, {
      quotasEnabled,
      fillingGoal: this.context.fillingGoal,
      defaultName: text,
      path: `${path}.quota`,
      counters: this.counters.get(`${profileId}/${id}`) ?? { completes: 0, prescreens: 0 },
    }, this.problems);
    return { id, text, text_translated: this.readOptionalText(raw, 'text_translated', path) ?? defaultTranslated, conditions, quota };
  }

  private readId(raw: JsonRecord, path: string, kind: 'profile' | 'target'): string | undefined {
    if (raw.id === undefined || raw.id === null) return this.context.newId(kind);
    if (typeof raw.id !== 'string' || !ID_PATTERN.test(raw.id)) {
      this.problems.shape(`${path}.id`, 'must be a string of 1-64 letters, digits, "_", "-", "." or ":"');
      return undefined;
    }
    return raw.id;
  }

  private readName(raw: JsonRecord, path: string): string | undefined {
    if (!isNonEmptyString(raw.name) || raw.name.length > 255) {
      this.problems.shape(`${path}.name`, 'must be a non-empty string of up to 255 characters');
      return undefined;
    }
    return raw.name;
  }

  private readQuotasEnabled(raw: JsonRecord, path: string): boolean | undefined {
    if (typeof raw.quotas_enabled !== 'boolean') {
      this.problems.shape(`${path}.quotas_enabled`, 'must be a boolean');
      return undefined;
    }
    return raw.quotas_enabled;
  }

  private readOptionalText(raw: JsonRecord, field: string, path: string): string | undefined {
    const value = raw[field];
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'string' || value.length > 1000) {
      this.problems.shape(`${path}.${field}`, 'must be a string of up to 1000 characters');
      return undefined;
    }
    return value;
  }

  private readTargetArray(value: unknown, path: string): unknown[] | undefined {
    if (!Array.isArray(value) || value.length === 0) {
      this.problems.shape(path, 'must be a non-empty array of targets');
      return undefined;
    }
    if (value.length > MAX_TARGETS_PER_PROFILE) {
      this.problems.rule('too_many_targets', path, `at most ${MAX_TARGETS_PER_PROFILE} targets a profile`);
      return undefined;
    }
    return value;
  }

  /** undefined: no group; false: a malformed group (already reported). */
  private readOpenEndedGroup(value: unknown, path: string): OpenEndedGroup | undefined | false {
    if (value === undefined || value === null) return undefined;
    if (!isRecord(value) || !isNonEmptyString(value.name) || !Array.isArray(value.question_ids) || !value.question_ids.every((id) => Number.isInteger(id))) {
      this.problems.shape(path, 'must be {name: string, question_ids: integer[]}');
      return false;
    }
    const questionIds = value.question_ids as number[];
    if (new Set(questionIds).size !== questionIds.length || questionIds.length < 2) {
      this.problems.rule('invalid_open_ended_group', `${path}.question_ids`, 'an open-ended group holds two or more distinct questions');
      return false;
    }
    for (const questionId of questionIds) {
      const question = findQuestion(questionId);
      if (!question) {
        this.problems.rule('unknown_question', `${path}.question_ids`, `question ${questionId} does not exist`);
        return false;
      }
      if (!isOpenEndedQuestion(question)) {
        this.problems.rule('invalid_open_ended_group', `${path}.question_ids`, `question ${questionId} is not an open-ended question`);
        return false;
      }
    }
    return { name: value.name, question_ids: questionIds };
  }

  private readTemplateId(value: unknown, path: string): string | undefined {
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'string') {
      this.problems.shape(path, 'must be a string or null');
      return undefined;
    }
    if (!findProfileTemplate(value)) this.problems.rule('unknown_profile_template', path, `no profile template ${value}`);
    return value;
  }

  private checkQuestions(targets: Target[], group: OpenEndedGroup | undefined, path: string): void {
    if (group) {
      targets.forEach((target, targetIndex) => target.conditions.forEach((condition, index) => {
        if (!group.question_ids.includes(condition.question_id)) {
          this.problems.rule('invalid_condition', `${path}.targets[${targetIndex}].conditions[${index}].question_id`, `question ${condition.question_id} is not in the open-ended group`);
        }
      }));
      return;
    }
    const first = targets[0].conditions[0].question_id;
    targets.forEach((target, targetIndex) => target.conditions.forEach((condition, index) => {
      if (condition.question_id !== first) {
        this.problems.rule('invalid_condition', `${path}.targets[${targetIndex}].conditions[${index}].question_id`,
          `a profile profiles one question (${first}); group open-ended questions with open_ended_group or use another profile`);
      }
    }));
  }

  private checkDuplicateConditions(targets: Target[], path: string): void {
    const seen = new Map<string, string>();
    targets.forEach((target, targetIndex) => target.conditions.forEach((condition, index) => {
      const key = duplicateKey(condition);
      if (key === undefined) return;
      const conditionPath = `${path}.targets[${targetIndex}].conditions[${index}]`;
      const earlier = seen.get(key);
      if (earlier !== undefined) {
        this.problems.rule('duplicate_condition', conditionPath, `duplicate ${condition.object} condition (same as ${earlier})`);
      } else {
        seen.set(key, conditionPath);
      }
    }));
  }

  /** A blended target may use an option or range of a question once (other targets may use it again). */
  private checkDuplicateConditionsWithinTargets(targets: Target[], path: string): void {
    targets.forEach((target, targetIndex) => {
      const seen = new Map<string, number>();
      target.conditions.forEach((condition, index) => {
        const key = duplicateKey(condition);
        if (key === undefined) return;
        const earlier = seen.get(key);
        if (earlier !== undefined) {
          this.problems.rule('duplicate_condition', `${path}.targets[${targetIndex}].conditions[${index}]`, `duplicate ${condition.object} condition in one target (same as conditions[${earlier}])`);
        } else {
          seen.set(key, index);
        }
      });
    });
  }

  /** Two blended targets with the same selection and range conditions (and nothing else differing) would be the same cell. */
  private checkRepeatedTargets(targets: Target[], path: string): void {
    const seen = new Map<string, number>();
    targets.forEach((target, targetIndex) => {
      if (!target.conditions.some((condition) => duplicateKey(condition) !== undefined)) return;
      const key = [...new Set(target.conditions.map((condition) => duplicateKey(condition) ?? JSON.stringify(condition)))].sort().join('\u0000');
      const earlier = seen.get(key);
      if (earlier !== undefined) {
        this.problems.rule('duplicate_condition', `${path}.targets[${targetIndex}].conditions`, `target ${targetIndex} repeats the conditions of target ${earlier}`);
      } else {
        seen.set(key, targetIndex);
      }
    });
  }

  private checkDuplicateTargetIds(targets: Target[], path: string): void {
    const seen = new Set<string>();
    targets.forEach((target, index) => {
      if (seen.has(target.id)) this.problems.rule('duplicate_target_id', `${path}.targets[${index}].id`, `target id ${target.id} is used twice in the profile`);
      seen.add(target.id);
    });
  }
}

function checkAcrossProfiles(profiles: (Profile | undefined)[], problems: ValidationProblems): void {
  const ids = new Set<string>();
  const questionOwner = new Map<number, string>();
  const blendedOwner = new Map<string, string>();
  profiles.forEach((profile, index) => {
    if (!profile) return;
    const path = `profiles[${index}]`;
    if (ids.has(profile.id)) problems.rule('duplicate_profile_id', `${path}.id`, `profile id ${profile.id} is used twice`);
    ids.add(profile.id);
    if (profile.object === 'regular') {
      const questions = new Set(profile.targets.flatMap((target) => target.conditions.map((condition) => condition.question_id)));
      for (const questionId of profile.open_ended_group?.question_ids ?? questions) {
        const owner = questionOwner.get(questionId);
        if (owner !== undefined && owner !== profile.id) {
          problems.rule('duplicate_question', path, `question ${questionId} is already profiled by profile ${owner}`);
        }
        questionOwner.set(questionId, profile.id);
      }
    } else {
      for (const sourceId of profile.profile_ids ?? []) {
        const owner = blendedOwner.get(sourceId);
        if (owner !== undefined) problems.rule('invalid_blended_profile', `${path}.profile_ids`, `profile ${sourceId} is already blended in profile ${owner}`);
        blendedOwner.set(sourceId, profile.id);
      }
    }
  });
  // The reference (generate_blended_profile): a target group holds at most 350 quotas in all.
  const quotas = profiles.reduce((count, profile) => count + (profile?.quotas_enabled ? profile.targets.filter((target) => target.quota.completes_goal !== null || target.quota.completes_goal_percentage !== null).length : 0), 0);
  if (quotas > MAX_QUOTAS_PER_TARGET_GROUP) problems.rule('too_many_quotas', 'profiles', `the profiles hold ${quotas} quotas; a target group holds at most ${MAX_QUOTAS_PER_TARGET_GROUP}`);
}
