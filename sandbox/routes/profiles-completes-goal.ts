// PUT TG/profiles/completes-goal (update quotas). Body: {profiles: [{id, quotas_enabled?, targets: [{id,
// quota: {completes_goal?, completes_goal_percentage?}}]}]} (before 2025-12-18: targets under ungrouped /
// grouped, blended ones under interlocked_profiles, quota fields filling_goal / quota_nominal /
// quota_percentage; index/indexes are ignored). Only the listed quotas change; a value given alone
// re-derives the other. 200 with the profile set; 404 when the project or target group does not exist;
// 422 `invalid_quota_update` for any other invalid request (a renamed-away field stays 400, the version
// rule). Allowed in draft, live and paused, not completed.

import { ApiError } from '../core/api-error';
import { ok, type RequestContext } from '../core/route-module';
import { CURRENT_VERSION } from '../core/versioning';
import { hasOwn, isRecord, type JsonRecord } from '../model/json-shape';
import { readQuotaInput, VersionNameViolation } from '../model/profile-version-translation';
import { RuleViolation } from '../model/rule-violation';
import { asRawProfiles, renderProfileSet, requireProfilingTargetGroup, storeProfiles, storedProfiles, validateTargetGroupProfiles } from './profiles-target-group';

const invalid = (detail: string, name: string, reason: string) => new ApiError(422, 'invalid_quota_update', detail, { invalidParams: [{ name, reason }] });

function updateEntries(body: unknown, current2025: boolean): { path: string; entry: JsonRecord }[] {
  if (!isRecord(body)) throw invalid('The request body must be a JSON object.', 'body', 'must be a JSON object');
  const allowed = current2025 ? ['profiles'] : ['profiles', 'interlocked_profiles'];
  const unknown = Object.keys(body).filter((key) => !allowed.includes(key));
  if (current2025 && unknown.includes('interlocked_profiles')) {
    throw new ApiError(400, 'bad_request_error', 'interlocked_profiles was renamed in 2025-12-18.', { invalidParams: [{ name: 'interlocked_profiles', reason: 'renamed to profiles entries with object = blended in 2025-12-18' }] });
  }
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

function targetEntries(entry: JsonRecord, path: string, current2025: boolean): { path: string; target: JsonRecord }[] {
  if (current2025) {
    for (const old of ['ungrouped', 'grouped']) {
      if (hasOwn(entry, old)) throw new ApiError(400, 'bad_request_error', `${old} was renamed in 2025-12-18.`, { invalidParams: [{ name: old, reason: 'renamed to target in 2025-12-18' }] });
    }
  }
  const lists = current2025 ? [['targets', entry.targets]] : [['ungrouped', entry.ungrouped], ['grouped', entry.grouped]];
  const out: { path: string; target: JsonRecord }[] = [];
  for (const [field, list] of lists as [string, unknown][]) {
    if (list === undefined) continue;
    if (!Array.isArray(list)) throw invalid('Targets must be an array.', `${path}.${field}`, 'must be an array');
    list.forEach((target, index) => {
      if (!isRecord(target)) throw invalid('Each target must be an object.', `${path}.${field}[${index}]`, 'must be an object');
      out.push({ path: `${path}.${field}[${index}]`, target });
    });
  }
  return out;
}

export function updateCompletesGoal(ctx: RequestContext) {
  const tg = requireProfilingTargetGroup(ctx, { draftOnly: false });
  const current2025 = ctx.version === CURRENT_VERSION;
  const raw = asRawProfiles(storedProfiles(tg));
  try {
    for (const { path, entry } of updateEntries(ctx.body, current2025)) {
      const profile = raw.find((candidate) => candidate.id === entry.id);
      if (!profile) throw invalid(`No profile ${String(entry.id)} in target group ${tg.id}.`, `${path}.id`, 'is not a profile of the target group');
      if (hasOwn(entry, 'quotas_enabled')) {
        if (typeof entry.quotas_enabled !== 'boolean') throw invalid('quotas_enabled must be a boolean.', `${path}.quotas_enabled`, 'must be a boolean');
        profile.quotas_enabled = entry.quotas_enabled;
      }
      for (const { path: targetPath, target } of targetEntries(entry, path, current2025)) {
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
