// The four profile endpoints removed in 2025-12-18 (404 there; they answer in 2025-02-17 and 2025-05-27):
//   PUT  TG/profiles/disable-quotas               {profile_ids?} -> quotas_enabled false (all, or the listed profiles)
//   GET  TG/profiles                              the profile list {target_group_id, profiles, interlocked_profiles}
//   POST TG/profiles/convert-to-regular-profile   {profile_id} of an interlocked profile: removes the interlocking,
//                                                 its source profiles stay as independent regular profiles
//                                                 (422 for one without profile_ids: nothing to convert back to)
//   POST TG/profiles/group-quotas                 {profile_id, target_ids (2+), name?}: merges those targets into one
//                                                 grouped target (conditions joined, goals added)
// All answer the profile set in the old names. Writes on a draft (group-quotas, convert) or a group
// that is not completed (disable-quotas).

import { listLaunchedProfiles } from './live-target-groups';
import { ApiError } from '../core/api-error';
import { ObjectReader } from '../core/input-validation';
import { ok, type RequestContext, type RouteDefinition } from '../core/route-module';
import { CURRENT_VERSION, LEGACY_VERSIONS } from '../core/versioning';
import { requireTargetGroup } from '../resources/lookups';
import type { JsonRecord } from '../model/json-shape';
import { asRawProfiles, renderProfileSet, requireProfilingTargetGroup, storeProfiles, storedProfiles, validateTargetGroupProfiles } from './profiles-target-group';
import { TG } from './paths';

function disableQuotas(ctx: RequestContext) {
  const tg = requireProfilingTargetGroup(ctx, { draftOnly: false });
  let only: string[] | null = null;
  if (ctx.body !== undefined) {
    const reader = ObjectReader.body(ctx.body);
    reader.rejectUnknown(['profile_ids']);
    const ids = reader.array('profile_ids', { nullable: true, maxItems: 30 });
    ids?.forEach((id, index) => {
      if (typeof id !== 'string') reader.problems.push({ name: `profile_ids[${index}]`, reason: 'must be a profile id' });
    });
    reader.finish('The request is invalid.');
    only = (ids as string[] | null | undefined) ?? null;
  }
  const raw = asRawProfiles(storedProfiles(tg));
  const unknown = (only ?? []).filter((id) => !raw.some((profile) => profile.id === id));
  if (unknown.length > 0) throw new ApiError(422, 'unknown_profile', `No profile ${unknown.join(', ')} in target group ${tg.id}.`, { invalidParams: [{ name: 'profile_ids', reason: `unknown profile ${unknown[0]}` }] });
  for (const profile of raw) if (only === null || only.includes(profile.id as string)) profile.quotas_enabled = false;
  storeProfiles(ctx, tg, validateTargetGroupProfiles(ctx, tg, raw));
  return ok(renderProfileSet(tg, ctx.version));
}

function convertToRegular(ctx: RequestContext) {
  const tg = requireProfilingTargetGroup(ctx, { draftOnly: true });
  const reader = ObjectReader.body(ctx.body);
  reader.rejectUnknown(['profile_id']);
  const profileId = reader.string('profile_id', { required: true, maxLength: 64 });
  reader.finish('The request is invalid.');
  const profile = storedProfiles(tg).find((candidate) => candidate.id === profileId);
  if (!profile) throw new ApiError(422, 'unknown_profile', `No profile ${profileId} in target group ${tg.id}.`, { invalidParams: [{ name: 'profile_id', reason: 'is not a profile of the target group' }] });
  if (profile.object !== 'blended') throw new ApiError(422, 'invalid_blended_profile', `Profile ${profileId} is already a regular profile.`, { invalidParams: [{ name: 'profile_id', reason: 'is not an interlocked profile' }] });
  if (!profile.profile_ids) {
    throw new ApiError(422, 'invalid_blended_profile', `Profile ${profileId} gives its own conditions; it combines no regular profiles to convert back to.`, { invalidParams: [{ name: 'profile_id', reason: 'is an interlocked profile without profile_ids' }] });
  }
  const raw = asRawProfiles(storedProfiles(tg).filter((candidate) => candidate.id !== profileId));
  storeProfiles(ctx, tg, validateTargetGroupProfiles(ctx, tg, raw));
  return ok(renderProfileSet(tg, ctx.version));
}

function groupQuotas(ctx: RequestContext) {
  const tg = requireProfilingTargetGroup(ctx, { draftOnly: true });
  const reader = ObjectReader.body(ctx.body);
  reader.rejectUnknown(['profile_id', 'target_ids', 'name']);
  const profileId = reader.string('profile_id', { required: true, maxLength: 64 });
  const targetIds = reader.array('target_ids', { required: true, minItems: 2, maxItems: 200 }) ?? [];
  targetIds.forEach((id, index) => {
    if (typeof id !== 'string') reader.problems.push({ name: `target_ids[${index}]`, reason: 'must be a target id' });
  });
  const name = reader.string('name', { nullable: true, maxLength: 255 });
  reader.finish('The request is invalid.');
  const raw = asRawProfiles(storedProfiles(tg));
  const profile = raw.find((candidate) => candidate.id === profileId);
  if (!profile || profile.object !== 'regular') {
    throw new ApiError(422, 'unknown_profile', `No regular profile ${profileId} in target group ${tg.id}.`, { invalidParams: [{ name: 'profile_id', reason: 'is not a regular profile of the target group' }] });
  }
  const targets = profile.targets as JsonRecord[];
  const picked = (targetIds as string[]).map((id) => targets.find((target) => target.id === id));
  const missing = (targetIds as string[]).filter((_, index) => !picked[index]);
  if (missing.length > 0 || new Set(targetIds).size !== targetIds.length) {
    throw new ApiError(422, 'unknown_target', `Targets ${missing.join(', ') || '(repeated)'} cannot be grouped.`, { invalidParams: [{ name: 'target_ids', reason: 'must name two or more distinct targets of the profile' }] });
  }
  const chosen = picked as JsonRecord[];
  const quotas = chosen.map((target) => target.quota as JsonRecord);
  const goals = quotas.map((quota) => quota.completes_goal);
  const merged: JsonRecord = {
    id: chosen[0].id,
    text: name ?? chosen.map((target) => target.text).join(' / '),
    text_translated: chosen.map((target) => target.text_translated).join(' / '),
    conditions: chosen.flatMap((target) => target.conditions as unknown[]),
    quota: {
      name: name ?? chosen.map((target) => (target.quota as JsonRecord).name).join(' / '),
      ...(goals.every((goal) => typeof goal === 'number') ? { completes_goal: (goals as number[]).reduce((a, b) => a + b, 0) } : {}),
    },
  };
  const ids = new Set(targetIds as string[]);
  profile.targets = [merged, ...targets.filter((target) => !ids.has(target.id as string))];
  storeProfiles(ctx, tg, validateTargetGroupProfiles(ctx, tg, raw));
  return ok(renderProfileSet(tg, ctx.version));
}

export const legacyProfileRoutes: RouteDefinition[] = [
  { method: 'PUT', path: `${TG}/profiles/disable-quotas`, versions: LEGACY_VERSIONS, body: 'optional-json', handler: disableQuotas },
  {
    method: 'GET',
    path: `${TG}/profiles`,
    // 2025-12-18: the reference's list_profiles of a launched group (routes/live-target-groups.ts).
    handler: (ctx) => (ctx.version === CURRENT_VERSION ? listLaunchedProfiles(ctx) : ok(renderProfileSet(requireTargetGroup(ctx), ctx.version))),
  },
  { method: 'POST', path: `${TG}/profiles/convert-to-regular-profile`, versions: LEGACY_VERSIONS, handler: convertToRegular },
  { method: 'POST', path: `${TG}/profiles/group-quotas`, versions: LEGACY_VERSIONS, handler: groupQuotas },
];
