// PUT TG/profiles/completes-goal (update quotas; spec: "Update quotas returns 200 on success").
// - 2025-12-18 (the reference's update_profile_filling_goal): FillingGoalUpdateRequestV3 `{completes_goal?,
//   profiles?: [{profile_id, targets: [{id, quota: {completes_goal}}]}]}`, the total, quota goals, or both. A new
//   total alone keeps every quota's percentage and recomputes its goal; a listed quota takes its goal (its
//   percentage follows). 200 ProfilesResponseV3 `{locale, completes_goal, profiles}`. An invalid request is 422
//   (spec Errors: "Update quotas: invalid request | 422"), in the reference's 422 shape for this operation
//   (unprocessable_entity_error, invalid_params as structural errors naming each field, or data validation errors
//   for goals that break a profile rule): a field of the wrong type or range (e.g. `completes_goal: -5`), an unknown
//   field, a profile or target the target group does not have. A body that is not JSON (or not an object), and a
//   field renamed away in 2025-12-18 (the version rule, as before 2025-12-18), stay 400. 404 for a missing project
//   or target group.
// - Before 2025-12-18 (sandbox-defined): {profiles: [{id, quotas_enabled?, ungrouped/grouped: [{id, quota:
//   {filling_goal | quota_nominal | quota_percentage}}]}], interlocked_profiles?}; only the listed quotas change; a
//   value given alone re-derives the other; 200 with the profile set; 422 `invalid_quota_update` for any other
//   invalid request (a renamed-away field stays 400, the version rule).
// Allowed in draft, live and paused, not completed.

import { ApiError } from '../core/api-error';
import { isPlainObject, ObjectReader } from '../core/input-validation';
import { ok, type RequestContext } from '../core/route-module';
import { CURRENT_VERSION } from '../core/versioning';
import { MAX_FILLING_GOAL } from '../resources/target-group-wire';
import { hasOwn, isRecord, type JsonRecord } from '../model/json-shape';
import { demographicsError } from '../model/profiling-request';
import { rescaleQuotasToFillingGoal } from '../model/profile-quotas';
import type { Profile } from '../model/profile-types';
import { validateProfiles } from '../model/profile-validation';
import { readQuotaInput, renderProfiles, VersionNameViolation } from '../model/profile-version-translation';
import { RuleViolation } from '../model/rule-violation';
import {
  asRawProfiles, renderProfileSet, requireBodyRecord, requireProfilingTargetGroup, storeProfiles, storedProfiles, targetGroupValidationContext, validateTargetGroupProfiles,
} from './profiles-target-group';

const invalid = (detail: string, name: string, reason: string) => new ApiError(422, 'invalid_quota_update', detail, { invalidParams: [{ name, reason }] });

/** The profile entries of a pre-2025-12-18 update: `profiles` (regular) and `interlocked_profiles` (blended). */
function updateEntries(body: unknown): { path: string; entry: JsonRecord }[] {
  if (!isRecord(body)) throw invalid('The request body must be a JSON object.', 'body', 'must be a JSON object');
  const allowed = ['profiles', 'interlocked_profiles'];
  const unknown = Object.keys(body).filter((key) => !allowed.includes(key));
  if (unknown.length > 0) throw invalid('The quota update has unknown fields.', unknown[0], 'is not a known field');
  const entries: { path: string; entry: JsonRecord }[] = [];
  for (const key of allowed) {
    const list = body[key];
    if (list === undefined && key === 'interlocked_profiles') continue;
    if (!Array.isArray(list) || (key === 'profiles' && list.length === 0 && body.interlocked_profiles === undefined)) {
      throw invalid('The quota update needs a non-empty profiles array.', key, 'must be a non-empty array');
    }
    list.forEach((entry, index) => {
      if (!isRecord(entry)) throw invalid('Each profile entry must be an object.', `${key}[${index}]`, 'must be an object');
      entries.push({ path: `${key}[${index}]`, entry });
    });
  }
  return entries;
}

/** The targets of a pre-2025-12-18 entry, under `ungrouped` and `grouped`. */
function targetEntries(entry: JsonRecord, path: string): { path: string; target: JsonRecord }[] {
  const out: { path: string; target: JsonRecord }[] = [];
  for (const field of ['ungrouped', 'grouped']) {
    const list = entry[field];
    if (list === undefined) continue;
    if (!Array.isArray(list)) throw invalid('Targets must be an array.', `${path}.${field}`, 'must be an array');
    list.forEach((target, index) => {
      if (!isRecord(target)) throw invalid('Each target must be an object.', `${path}.${field}[${index}]`, 'must be an object');
      out.push({ path: `${path}.${field}[${index}]`, target });
    });
  }
  return out;
}

const RENAMED_QUOTA_FIELDS: Record<string, string> = {
  filling_goal: 'renamed to completes_goal in 2025-12-18',
  quota_nominal: 'renamed to completes_goal in 2025-12-18',
  quota_percentage: 'renamed to completes_goal_percentage in 2025-12-18; only completes_goal is updated here',
};

interface GoalUpdate {
  path: string;
  profileId: string;
  targets: { path: string; id: string; goal: number }[];
}

/** Reads FillingGoalUpdateRequestV3; every invalid part is a 422 (RuleViolation) naming it. */
function readGoalUpdate(body: JsonRecord): { completesGoal: number | undefined; updates: GoalUpdate[] } {
  const reader = ObjectReader.body(body);
  reader.rejectUnknown(['completes_goal', 'profiles'], { interlocked_profiles: 'renamed to profiles entries with object = blended in 2025-12-18' });
  const completesGoal = reader.integer('completes_goal', { nullable: true, min: 1, max: MAX_FILLING_GOAL }) ?? undefined;
  const entries = reader.array('profiles', { nullable: true, maxItems: 1500 }) ?? [];
  const updates: GoalUpdate[] = [];
  entries.forEach((entry, p) => {
    const path = `profiles[${p}]`;
    if (!isPlainObject(entry)) return void reader.problems.push({ name: path, reason: 'must be an object {profile_id, targets}' });
    for (const key of Object.keys(entry)) {
      if (key !== 'profile_id' && key !== 'targets') reader.problems.push({ name: `${path}.${key}`, reason: key === 'id' ? 'is profile_id here' : 'is not a known field' });
    }
    if (typeof entry.profile_id !== 'string' || entry.profile_id === '') reader.problems.push({ name: `${path}.profile_id`, reason: 'must be a profile id' });
    const targets = entry.targets;
    if (!Array.isArray(targets) || targets.length < 1 || targets.length > 200) return void reader.problems.push({ name: `${path}.targets`, reason: 'must list 1 to 200 targets {id, quota: {completes_goal}}' });
    const update: GoalUpdate = { path, profileId: String(entry.profile_id), targets: [] };
    targets.forEach((target, t) => {
      const at = `${path}.targets[${t}]`;
      if (!isPlainObject(target) || typeof target.id !== 'string' || target.id === '') return void reader.problems.push({ name: at, reason: 'must be {id, quota: {completes_goal}}' });
      const quota = target.quota;
      const extra = isPlainObject(quota) ? Object.keys(quota).filter((key) => key !== 'completes_goal') : [];
      extra.forEach((key) => reader.problems.push({ name: `${at}.quota.${key}`, reason: RENAMED_QUOTA_FIELDS[key] ?? 'only completes_goal is updated here' }));
      const goal = isPlainObject(quota) ? quota.completes_goal : undefined;
      if (typeof goal !== 'number' || !Number.isInteger(goal) || goal < 0) return void reader.problems.push({ name: `${at}.quota.completes_goal`, reason: 'must be a whole number of at least 0' });
      update.targets.push({ path: at, id: target.id, goal });
    });
    updates.push(update);
  });
  // Neither part given (a completes_goal given but invalid is already named above).
  const goalGiven = reader.has('completes_goal') && reader.value.completes_goal !== null;
  if (!goalGiven && entries.length === 0) reader.problems.push({ name: 'completes_goal', reason: 'give completes_goal, profiles, or both' });
  // The version rule (a field renamed away in 2025-12-18) keeps its 400, as before 2025-12-18; every other
  // invalid request is the spec's 422.
  if (reader.problems.some((problem) => /^renamed to /.test(problem.reason))) reader.finish('The completes goal update uses names renamed away in 2025-12-18.');
  if (reader.problems.length > 0) throw new RuleViolation(422, 'invalid_quota_update', 'The completes goal update is invalid.', reader.problems);
  return { completesGoal, updates };
}

/** update_profile_filling_goal (2025-12-18): the total, listed quota goals, or both -> 200 ProfilesResponseV3. */
function updateProfileFillingGoal(ctx: RequestContext) {
  const tg = requireProfilingTargetGroup(ctx, { draftOnly: false });
  const body = requireBodyRecord(ctx.body);
  let profiles: Profile[];
  let goal: number;
  try {
    const { completesGoal, updates } = readGoalUpdate(body);
    goal = completesGoal ?? tg.filling_goal;
    // A new total keeps the quotas' percentages and recomputes their goals; listed quota goals then apply.
    const raw = asRawProfiles(goal === tg.filling_goal ? storedProfiles(tg) : rescaleQuotasToFillingGoal(storedProfiles(tg), goal));
    for (const update of updates) {
      const profile = raw.find((candidate) => candidate.id === update.profileId);
      if (!profile) throw new RuleViolation(422, 'invalid_quota_update', `No profile ${update.profileId} in target group ${tg.id}.`, [{ name: `${update.path}.profile_id`, reason: 'is not a profile of the target group' }]);
      for (const target of update.targets) {
        const stored = (profile.targets as JsonRecord[]).find((candidate) => candidate.id === target.id);
        if (!stored) throw new RuleViolation(422, 'invalid_quota_update', `Profile ${update.profileId} has no target ${target.id}.`, [{ name: `${target.path}.id`, reason: 'is not a target of the profile' }]);
        stored.quota = { ...(stored.quota as JsonRecord), completes_goal: target.goal, completes_goal_percentage: undefined };
      }
    }
    profiles = validateProfiles(raw, { ...targetGroupValidationContext(ctx, tg), fillingGoal: goal });
  } catch (error) {
    throw demographicsError(error);
  }
  // A new total is a field change of the target group (target-group-updated carries it).
  tg.filling_goal = goal;
  storeProfiles(ctx, tg, profiles, ['filling_goal']);
  return ok({ locale: tg.locale, completes_goal: tg.filling_goal, profiles: renderProfiles(profiles, ctx.version).profiles });
}

export function updateCompletesGoal(ctx: RequestContext) {
  if (ctx.version === CURRENT_VERSION) return updateProfileFillingGoal(ctx);
  const tg = requireProfilingTargetGroup(ctx, { draftOnly: false });
  const raw = asRawProfiles(storedProfiles(tg));
  try {
    for (const { path, entry } of updateEntries(ctx.body)) {
      const profile = raw.find((candidate) => candidate.id === entry.id);
      if (!profile) throw invalid(`No profile ${String(entry.id)} in target group ${tg.id}.`, `${path}.id`, 'is not a profile of the target group');
      if (hasOwn(entry, 'quotas_enabled')) {
        if (typeof entry.quotas_enabled !== 'boolean') throw invalid('quotas_enabled must be a boolean.', `${path}.quotas_enabled`, 'must be a boolean');
        profile.quotas_enabled = entry.quotas_enabled;
      }
      for (const { path: targetPath, target } of targetEntries(entry, path)) {
        const stored = (profile.targets as JsonRecord[]).find((candidate) => candidate.id === target.id);
        if (!stored) throw invalid(`Profile ${String(profile.id)} has no target ${String(target.id)}.`, `${targetPath}.id`, 'is not a target of the profile');
        const quota = readQuotaInput(target.quota, ctx.version, `${targetPath}.quota`);
        if (!isRecord(quota)) throw invalid('A quota object is required.', `${targetPath}.quota`, 'must be a quota object');
        const merged: JsonRecord = { ...(stored.quota as JsonRecord) };
        if (quota.name !== undefined) merged.name = quota.name;
        const goalGiven = quota.completes_goal !== undefined;
        const percentageGiven = quota.completes_goal_percentage !== undefined;
        if (!goalGiven && !percentageGiven && quota.name === undefined) throw invalid('Give completes_goal or completes_goal_percentage.', `${targetPath}.quota`, 'needs completes_goal or completes_goal_percentage');
        if (goalGiven || percentageGiven) {
          merged.completes_goal = goalGiven ? quota.completes_goal : undefined;
          merged.completes_goal_percentage = percentageGiven ? quota.completes_goal_percentage : undefined;
        }
        stored.quota = merged;
      }
    }
    const profiles = validateTargetGroupProfiles(ctx, tg, raw);
    storeProfiles(ctx, tg, profiles);
  } catch (error) {
    // Any invalid update is 422 (spec: update quotas), except the version rule's 400 for renamed fields.
    if (error instanceof RuleViolation && error.status === 400 && !(error instanceof VersionNameViolation)) throw new ApiError(422, 'invalid_quota_update', error.message, { invalidParams: error.invalidParams });
    throw error;
  }
  return ok(renderProfileSet(tg, ctx.version));
}
