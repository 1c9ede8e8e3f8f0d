// The one place where profile payloads change shape between API versions. 2025-12-18 renamed:
//   quota filling_goal -> completes_goal, quota_percentage -> completes_goal_percentage,
//   quota_nominal -> completes_goal, index -> condition, indexes -> conditions,
//   ungrouped / grouped -> target(s), interlocked_profiles -> profiles entries with object = blended.
// Sandbox shape of the older versions (the spec names the fields, not the layout):
//   profile  {id, name, description, description_translated, quotas_enabled, template_id,
//             ungrouped: [target with `index` (one condition)], grouped: [target with `indexes` (two or more)]}
//   interlocked profile (top-level `interlocked_profiles`) {id, name, description, description_translated,
//             quotas_enabled, profile_ids, ungrouped, grouped}; its targets carry source_target_ids
//   quota    {name, quota_percentage, filling_goal, quota_nominal (= filling_goal), completes, prescreens}
// In 2025-12-18 requests a renamed-away field is 400 bad_request naming the new field; quota_nominal is
// tolerated only as an echo equal to completes_goal (responses still carry it). In older requests the
// 2025-12-18-only fields are 400 too. Old-version responses cannot show open_ended_group (it is omitted).
// 2025-12-18 conditions are the reference's (InterlockProfileConditionsV3): selection, range, and open_ended
// `{allow_all_values, open_ended_values}`, zip codes included (the postal-code question is open-ended); the
// sandbox stores a postal-code condition as `zip_code` and an older version's body still names it so. Several
// open-ended questions in one regular profile's targets are its open-ended group (the reference has no group
// field); a target without a quota may carry the reference's `object: nominal`.

import { usesCurrentNames, type ApiVersion } from './api-version';
import { hasOwn, isRecord, type JsonRecord } from './json-shape';
import type { BlendedProfile, Condition, Profile, Quota, RegularProfile, Target } from './profile-types';
import { RuleViolation, type InvalidParam } from './rule-violation';
import { findQuestion, isOpenEndedQuestion } from './question-catalogue';

export interface ProfileRename {
  old: string;
  current: string;
}

export const PROFILE_RENAMES: readonly ProfileRename[] = [
  { old: 'filling_goal', current: 'completes_goal' },
  { old: 'quota_percentage', current: 'completes_goal_percentage' },
  { old: 'quota_nominal', current: 'completes_goal' },
  { old: 'index', current: 'condition' },
  { old: 'indexes', current: 'conditions' },
  { old: 'ungrouped', current: 'target' },
  { old: 'grouped', current: 'target' },
  { old: 'interlocked_profiles', current: 'profiles entries with object = blended' },
];

const renamedTo = (old: string): string => PROFILE_RENAMES.find((rename) => rename.old === old)!.current;
const renamedReason = (old: string): string => `renamed to ${renamedTo(old)} in 2025-12-18`;
const newOnlyReason = (field: string, use: string): string => `${field} is available from 2025-12-18; this version uses ${use}`;

/** A field that does not exist in the request's API version (renamed away, or not yet there): always 400. */
export class VersionNameViolation extends RuleViolation {}

class RenameProblems {
  readonly params: InvalidParam[] = [];
  readonly paths: string[] = [];
  add(name: string, reason: string, path: string): void {
    this.params.push({ name, reason });
    this.paths.push(path);
  }
  throwIfAny(): void {
    if (this.params.length > 0) {
      throw new VersionNameViolation(400, 'bad_request', `fields not valid in this API version: ${this.paths.join(', ')}`, this.params);
    }
  }
}

/**
 * Reads the profiles of a request body (validate, manage-profiles / apply-profiles, create profile…)
 * into raw 2025-12-18 profile inputs, regular and blended in one array, ready for validateProfiles.
 * Throws 400 for fields that do not exist in the request's version.
 */
export function readProfilesRequest(body: JsonRecord, version: ApiVersion): unknown {
  const problems = new RenameProblems();
  if (usesCurrentNames(version)) {
    if (hasOwn(body, 'interlocked_profiles')) problems.add('interlocked_profiles', renamedReason('interlocked_profiles'), 'interlocked_profiles');
    const profiles = Array.isArray(body.profiles) ? body.profiles.map((profile, index) => currentProfileInput(profile, `profiles[${index}]`, problems)) : body.profiles;
    problems.throwIfAny();
    return profiles;
  }
  const regular = Array.isArray(body.profiles) ? body.profiles.map((profile, index) => legacyProfileInput(profile, `profiles[${index}]`, false, problems)) : body.profiles;
  const interlocked = body.interlocked_profiles;
  if (interlocked !== undefined && interlocked !== null && !Array.isArray(interlocked)) {
    problems.add('interlocked_profiles', 'must be an array of interlocked profiles', 'interlocked_profiles');
  }
  problems.throwIfAny();
  if (!Array.isArray(regular)) return regular;
  const blended = Array.isArray(interlocked) ? interlocked.map((profile, index) => legacyProfileInput(profile, `interlocked_profiles[${index}]`, true, problems)) : [];
  problems.throwIfAny();
  return [...regular, ...blended];
}

/** Reads one quota object of a request in the given version into the 2025-12-18 fields. */
export function readQuotaInput(raw: unknown, version: ApiVersion, path: string): unknown {
  const problems = new RenameProblems();
  const quota = usesCurrentNames(version) ? currentQuotaInput(raw, path, problems) : legacyQuotaInput(raw, path, problems);
  problems.throwIfAny();
  return quota;
}

function currentProfileInput(raw: unknown, path: string, problems: RenameProblems): unknown {
  if (!isRecord(raw)) return raw;
  for (const old of ['ungrouped', 'grouped']) if (hasOwn(raw, old)) problems.add(old, renamedReason(old), `${path}.${old}`);
  if (hasOwn(raw, 'open_ended_group') && raw.open_ended_group !== null) {
    problems.add('open_ended_group', 'is not a 2025-12-18 field: list the conditions of the open-ended questions in the targets of one regular profile', `${path}.open_ended_group`);
  }
  if (!Array.isArray(raw.targets)) return raw;
  const targets = raw.targets.map((target, index) => {
    const targetPath = `${path}.targets[${index}]`;
    if (!isRecord(target)) return target;
    for (const old of ['index', 'indexes']) if (hasOwn(target, old)) problems.add(old, renamedReason(old), `${targetPath}.${old}`);
    const { object, ...rest } = target;
    if (object !== undefined && (object !== 'nominal' || hasOwn(target, 'quota'))) {
      problems.add('object', 'a target carries `object: nominal` only when it has no quota', `${targetPath}.object`);
    }
    const read: JsonRecord = { ...rest };
    if (Array.isArray(rest.conditions)) read.conditions = rest.conditions.map((condition, c) => currentConditionInput(condition, `${targetPath}.conditions[${c}]`, problems));
    if (hasOwn(rest, 'quota')) read.quota = currentQuotaInput(rest.quota, `${targetPath}.quota`, problems);
    return read;
  });
  const group = raw.object === 'regular' && (raw.open_ended_group ?? null) === null ? openEndedGroupOf(targets, raw.name) : undefined;
  return group ? { ...raw, open_ended_group: group, targets } : { ...raw, targets };
}

/** The open-ended group of a regular profile whose targets name two or more open-ended questions (and nothing else). */
function openEndedGroupOf(targets: unknown[], name: unknown): { name: string; question_ids: number[] } | undefined {
  const ids: number[] = [];
  for (const target of targets) {
    for (const condition of isRecord(target) && Array.isArray(target.conditions) ? target.conditions : []) {
      const id = isRecord(condition) ? condition.question_id : undefined;
      const question = typeof id === 'number' ? findQuestion(id) : undefined;
      if (!question || !isOpenEndedQuestion(question)) return undefined;
      if (!ids.includes(id as number)) ids.push(id as number);
    }
  }
  return ids.length >= 2 ? { name: typeof name === 'string' && name !== '' ? name : 'open-ended group', question_ids: ids } : undefined;
}

/**
 * A 2025-12-18 condition into the stored form: an open_ended condition on the postal-code question becomes
 * the stored `zip_code` kind; `values`, `zip_codes` and the `zip_code` kind are older names (400).
 */
function currentConditionInput(raw: unknown, path: string, problems: RenameProblems): unknown {
  if (!isRecord(raw)) return raw;
  if (raw.object === 'zip_code') {
    problems.add('object', 'there is no zip_code condition in 2025-12-18: zip codes are the open_ended_values of the postal-code question', `${path}.object`);
    return raw;
  }
  if (raw.object !== 'open_ended') return raw;
  for (const old of ['values', 'zip_codes']) if (hasOwn(raw, old)) problems.add(old, 'is open_ended_values (with allow_all_values) in 2025-12-18', `${path}.${old}`);
  const all = raw.allow_all_values;
  const values = raw.open_ended_values;
  if (typeof all !== 'boolean') {
    problems.add('allow_all_values', 'must be true or false on an open_ended condition', `${path}.allow_all_values`);
    return raw;
  }
  if (!hasOwn(raw, 'open_ended_values')) problems.add('open_ended_values', 'is required (null or [] when allow_all_values is true)', `${path}.open_ended_values`);
  else if (all && values !== null && !(Array.isArray(values) && values.length === 0)) problems.add('open_ended_values', 'must be null or empty when allow_all_values is true', `${path}.open_ended_values`);
  else if (!all && !(Array.isArray(values) && values.length >= 1 && values.length <= 10_000)) problems.add('open_ended_values', 'must list 1 to 10000 values when allow_all_values is false', `${path}.open_ended_values`);
  const { open_ended_values: _values, ...rest } = raw;
  const list = Array.isArray(values) ? values : [];
  const question = typeof raw.question_id === 'number' ? findQuestion(raw.question_id) : undefined;
  return question?.kind === 'zip_code' ? { ...rest, object: 'zip_code', zip_codes: list } : { ...rest, values: list };
}

function currentQuotaInput(raw: unknown, path: string, problems: RenameProblems): unknown {
  if (!isRecord(raw)) return raw;
  for (const old of ['filling_goal', 'quota_percentage']) if (hasOwn(raw, old)) problems.add(old, renamedReason(old), `${path}.${old}`);
  if (!hasOwn(raw, 'quota_nominal')) return raw;
  const { quota_nominal: nominal, ...rest } = raw;
  const echoesGoal = nominal === null || (hasOwn(raw, 'completes_goal') && nominal === raw.completes_goal);
  if (!echoesGoal) problems.add('quota_nominal', `${renamedReason('quota_nominal')}; it may only repeat completes_goal`, `${path}.quota_nominal`);
  return rest;
}

function legacyProfileInput(raw: unknown, path: string, interlocked: boolean, problems: RenameProblems): unknown {
  if (!isRecord(raw)) return raw;
  if (hasOwn(raw, 'targets')) problems.add('targets', newOnlyReason('targets', 'ungrouped and grouped'), `${path}.targets`);
  if (hasOwn(raw, 'open_ended_group') && raw.open_ended_group !== null) problems.add('open_ended_group', newOnlyReason('open_ended_group', 'one profile per question'), `${path}.open_ended_group`);
  if (hasOwn(raw, 'object') && raw.object !== (interlocked ? 'blended' : 'regular') && raw.object !== null) {
    problems.add('object', interlocked ? 'interlocked profiles have no object field before 2025-12-18' : 'blended profiles are interlocked_profiles before 2025-12-18', `${path}.object`);
  }
  const { ungrouped, grouped, object: _object, ...rest } = raw;
  const targets: unknown[] = [];
  const readGroup = (value: unknown, field: 'ungrouped' | 'grouped'): void => {
    if (value === undefined || value === null) return;
    if (!Array.isArray(value)) {
      problems.add(field, `must be an array of targets`, `${path}.${field}`);
      return;
    }
    value.forEach((target, index) => targets.push(legacyTargetInput(target, `${path}.${field}[${index}]`, field, interlocked, problems)));
  };
  readGroup(ungrouped, 'ungrouped');
  readGroup(grouped, 'grouped');
  return { ...rest, object: interlocked ? 'blended' : 'regular', targets };
}

function legacyTargetInput(raw: unknown, path: string, field: 'ungrouped' | 'grouped', interlocked: boolean, problems: RenameProblems): unknown {
  if (!isRecord(raw)) return raw;
  if (hasOwn(raw, 'conditions')) problems.add('conditions', newOnlyReason('conditions', 'index (ungrouped) or indexes (grouped)'), `${path}.conditions`);
  const { index, indexes, ...rest } = raw;
  const result: JsonRecord = { ...rest };
  if (hasOwn(raw, 'quota')) result.quota = legacyQuotaInput(raw.quota, `${path}.quota`, problems);
  if (field === 'ungrouped') {
    if (indexes !== undefined) problems.add('indexes', 'an ungrouped target has one index; grouped targets carry indexes', `${path}.indexes`);
    if (index !== undefined) result.conditions = [index];
    else if (!interlocked) problems.add('index', 'an ungrouped target needs its index', `${path}.index`);
  } else {
    if (index !== undefined) problems.add('index', 'a grouped target carries indexes (two or more)', `${path}.index`);
    if (indexes !== undefined) {
      if (!Array.isArray(indexes) || (indexes.length < 2 && !interlocked)) problems.add('indexes', 'must be an array of two or more conditions', `${path}.indexes`);
      else result.conditions = indexes;
    } else if (!interlocked) problems.add('indexes', 'a grouped target needs its indexes', `${path}.indexes`);
  }
  return result;
}

function legacyQuotaInput(raw: unknown, path: string, problems: RenameProblems): unknown {
  if (!isRecord(raw)) return raw;
  for (const field of ['completes_goal', 'completes_goal_percentage']) {
    if (hasOwn(raw, field)) problems.add(field, newOnlyReason(field, field === 'completes_goal' ? 'filling_goal / quota_nominal' : 'quota_percentage'), `${path}.${field}`);
  }
  const { filling_goal: fillingGoal, quota_nominal: nominal, quota_percentage: percentage, ...rest } = raw;
  const fillingGiven = fillingGoal !== undefined && fillingGoal !== null;
  const nominalGiven = nominal !== undefined && nominal !== null;
  if (fillingGiven && nominalGiven && fillingGoal !== nominal) {
    problems.add('quota_nominal', 'must equal filling_goal when both are given', `${path}.quota_nominal`);
  }
  const result: JsonRecord = { ...rest };
  if (fillingGiven || nominalGiven) result.completes_goal = fillingGiven ? fillingGoal : nominal;
  if (percentage !== undefined) result.completes_goal_percentage = percentage;
  return result;
}

/** Response fields for profiles in the given version: {profiles} or {profiles, interlocked_profiles}. */
export function renderProfiles(profiles: readonly Profile[], version: ApiVersion): { profiles: unknown[]; interlocked_profiles?: unknown[] } {
  if (usesCurrentNames(version)) return { profiles: profiles.map(renderCurrentProfile) };
  return {
    profiles: profiles.filter((profile): profile is RegularProfile => profile.object === 'regular').map(renderLegacyRegular),
    interlocked_profiles: profiles.filter((profile): profile is BlendedProfile => profile.object === 'blended').map(renderLegacyInterlocked),
  };
}

/** One profile in the given version's shape (a blended profile renders as an interlocked one before 2025-12-18). */
export function renderProfile(profile: Profile, version: ApiVersion): unknown {
  if (usesCurrentNames(version)) return renderCurrentProfile(profile);
  return profile.object === 'regular' ? renderLegacyRegular(profile) : renderLegacyInterlocked(profile);
}

export function renderQuota(quota: Quota, version: ApiVersion): JsonRecord {
  if (usesCurrentNames(version)) return { ...quota, quota_nominal: quota.completes_goal };
  return {
    name: quota.name,
    quota_percentage: quota.completes_goal_percentage,
    filling_goal: quota.completes_goal,
    quota_nominal: quota.completes_goal,
    completes: quota.completes,
    prescreens: quota.prescreens,
  };
}

/**
 * A stored profile in the reference's 2025-12-18 shape (DraftRegularProfileV3 / RegularProfileV3): open-ended
 * conditions (zip codes among them) as `{allow_all_values, open_ended_values}`, no `quota` on a target without
 * a goal; the sandbox's own bookkeeping (`open_ended_group`, `template_id`, a goal-less quota's name and counters)
 * stays inside.
 */
function renderCurrentProfile(profile: Profile): unknown {
  const { open_ended_group: _group, template_id: _template, ...copy } = structuredClone(profile) as RegularProfile;
  return {
    ...copy,
    // A target without a goal is the reference's target without a quota: no `quota` at all.
    targets: copy.targets.map(({ quota, ...target }) => ({
      ...target,
      conditions: target.conditions.map(renderCurrentCondition),
      ...(quota.completes_goal === null && quota.completes_goal_percentage === null ? {} : { quota: renderQuota(quota, '2025-12-18') }),
    })),
  };
}

/** A stored condition in the reference's 2025-12-18 shape (InterlockProfileConditionsV3). */
export function renderCurrentCondition(condition: Condition): unknown {
  if (condition.object === 'zip_code') return { object: 'open_ended', question_id: condition.question_id, allow_all_values: condition.allow_all_values, open_ended_values: condition.zip_codes };
  if (condition.object === 'open_ended') return { object: 'open_ended', question_id: condition.question_id, allow_all_values: condition.allow_all_values, open_ended_values: condition.values };
  return { ...condition };
}

function renderLegacyTargets(targets: readonly Target[]): { ungrouped: unknown[]; grouped: unknown[] } {
  const ungrouped: unknown[] = [];
  const grouped: unknown[] = [];
  for (const target of targets) {
    const { conditions, quota, ...rest } = structuredClone(target);
    const legacyQuota = renderQuota(quota, '2025-02-17');
    if (conditions.length === 1) ungrouped.push({ ...rest, index: conditions[0], quota: legacyQuota });
    else grouped.push({ ...rest, indexes: conditions, quota: legacyQuota });
  }
  return { ungrouped, grouped };
}

function renderLegacyRegular(profile: RegularProfile): unknown {
  const { object: _object, open_ended_group: _group, targets, ...rest } = structuredClone(profile);
  return { ...rest, ...renderLegacyTargets(targets) };
}

function renderLegacyInterlocked(profile: BlendedProfile): unknown {
  const { object: _object, targets, ...rest } = structuredClone(profile);
  return { ...rest, ...renderLegacyTargets(targets) };
}
