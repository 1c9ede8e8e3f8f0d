// Shared pieces of the profile routes: reading the profile set of a request (version names and
// templates), loading a target group for a profiling write, storing and rendering its profiles.

import { ApiError, badRequest } from '../core/api-error';
import { ObjectReader } from '../core/input-validation';
import type { RequestContext } from '../core/route-module';
import type { TargetGroupRecord } from '../core/state-records';
import { CURRENT_VERSION, assertWriteVersionAllowed, pinWriteVersion, type ApiVersion } from '../core/versioning';
import { requireTargetGroup } from '../resources/lookups';
import { emitTargetGroupEvent } from '../resources/target-group-events';
import { assertProfilingAllowed } from '../resources/target-group-wire';
import { hasOwn, isRecord, type JsonRecord } from '../model/json-shape';
import { readProfiling } from '../model/profiling-request';
import { expandProfileTemplates } from '../model/profile-templates';
import type { Profile } from '../model/profile-types';
import { validateProfiles, type ProfileValidationContext } from '../model/profile-validation';
import { readProfilesRequest, renderProfiles } from '../model/profile-version-translation';
import { findLocaleMarket } from '../model/locale-markets';

/** Fields every profile-set body may carry besides its own (profiles, templates, the legacy blended list). */
export const PROFILE_SET_FIELDS = ['profiles', 'profile_template_ids', 'interlocked_profiles'];

export const storedProfiles = (tg: TargetGroupRecord): Profile[] => tg.profiles as Profile[];

export const profileIds = (ctx: RequestContext) => (kind: 'profile' | 'target'): string => ctx.newId(kind === 'profile' ? 'prf' : 'tgt');

/** Reads `profile_template_ids` (optional array of strings) with the reader's other problems. */
export function readTemplateIds(reader: ObjectReader): string[] {
  const ids = reader.array('profile_template_ids', { nullable: true, maxItems: 10 }) ?? [];
  ids.forEach((id, index) => {
    if (typeof id !== 'string' || id.length === 0) reader.problems.push({ name: `profile_template_ids[${index}]`, reason: 'must be a profile template id' });
  });
  return ids.filter((id): id is string => typeof id === 'string');
}

/**
 * The raw 2025-12-18 profile inputs of a body: the applied templates' profiles, then the body's own
 * (translated from the request version's names). `profiles` absent counts as an empty list.
 */
export function rawProfileSet(body: JsonRecord, version: ApiVersion, templateIds: readonly string[]): unknown[] {
  const own = body.profiles === undefined && body.interlocked_profiles === undefined ? [] : readProfilesRequest(body, version);
  if (!Array.isArray(own)) throw badRequest('The profiles are invalid.', [{ name: 'profiles', reason: 'must be an array of profiles' }]);
  return [...expandProfileTemplates(templateIds), ...own];
}

export interface ProfilingTargetGroupOptions {
  /** Only a draft may change this way (422 invalid_state_error otherwise). */
  draftOnly: boolean;
}

/** The target group of the path, ready for a profiling write (version pin, recontact, state and locale checks). */
export function requireProfilingTargetGroup(ctx: RequestContext, options: ProfilingTargetGroupOptions): TargetGroupRecord {
  const tg = requireTargetGroup(ctx);
  assertWriteVersionAllowed(tg, ctx.version, 'target group');
  assertProfilingAllowed(tg);
  if (options.draftOnly && tg.status !== 'draft') {
    throw new ApiError(422, 'invalid_state_error', `Target group ${tg.id} is ${tg.status}; only a draft target group's profiles can be changed this way.`);
  }
  if (tg.status === 'completed') throw new ApiError(422, 'invalid_state_error', `Target group ${tg.id} is completed; it can no longer change.`);
  localeOf(tg);
  return tg;
}

/** The target group's locale; 422 locale_required when it has none, 422 unsupported_locale when the sandbox has no panel for it. */
export function localeOf(tg: TargetGroupRecord): string {
  if (!tg.locale) throw new ApiError(422, 'locale_required', `Target group ${tg.id} has no locale; set it before profiling.`, { invalidParams: [{ name: 'locale', reason: 'is required for profiling' }] });
  if (!findLocaleMarket(tg.locale)) throw new ApiError(422, 'unsupported_locale', `The sandbox has no panel for locale ${tg.locale}.`, { invalidParams: [{ name: 'locale', reason: 'unsupported locale' }] });
  return tg.locale;
}

export function targetGroupValidationContext(ctx: RequestContext, tg: TargetGroupRecord): ProfileValidationContext {
  return { locale: localeOf(tg), fillingGoal: tg.filling_goal, previous: storedProfiles(tg), newId: profileIds(ctx) };
}

/** Validates `raw` as the target group's complete new profile set (throws before anything changes). */
export function validateTargetGroupProfiles(ctx: RequestContext, tg: TargetGroupRecord, raw: unknown[]): Profile[] {
  return validateProfiles(raw, targetGroupValidationContext(ctx, tg));
}

/** Commits a new profile set: stores it, pins the version, emits target_group.updated. */
export function storeProfiles(ctx: RequestContext, tg: TargetGroupRecord, profiles: Profile[], changed: readonly string[] = []): void {
  tg.profiles = profiles;
  tg.updated_at = ctx.clock.iso();
  pinWriteVersion(tg, ctx.version);
  emitTargetGroupEvent(ctx, 'updated', tg, ['profiles', ...changed]);
}

/**
 * The `profiling` of a draft create or update body (2025-12-18): `undefined` when the body has none (the
 * stored profiles stay), else the validated profiles to store (none for `null`/`{}`). `draft` is the target
 * group as it will be (locale, filling goal, study type, the stored profiles for their counters).
 */
export function readDraftProfiling(ctx: RequestContext, draft: TargetGroupRecord, body: unknown): DraftProfiling | undefined {
  if (!isRecord(body) || !hasOwn(body, 'profiling')) return undefined;
  const profiling = readProfiling(body.profiling, 'profiling', ctx.version, { template: true, none: true });
  if (!profiling) return { profiles: [], adjustment: null, templateId: null };
  assertProfilingAllowed(draft);
  const profiles = validateTargetGroupProfiles(ctx, draft, profiling.rawProfiles);
  return { profiles, adjustment: profiling.adjustment, templateId: profiling.templateId };
}

export interface DraftProfiling {
  profiles: Profile[];
  adjustment: 'nominal' | 'percentage' | null;
  templateId: string | null;
}

/** Stores a draft's profiling on its record (no event: the create or update emits its own). */
export function applyDraftProfiling(tg: TargetGroupRecord, profiling: DraftProfiling): void {
  tg.profiles = profiling.profiles;
  tg.profiling_adjustment_type = profiling.adjustment;
  tg.profiling_template_id = profiling.templateId;
}

/**
 * The 2025-12-18 `profiling` of GET TG (ProfilingResponse): null without profiles, else the adjustment type,
 * the template (when one was applied) and every profile (the template's first). A draft's quotas are the
 * reference's DraftQuotaDetailsV3 quota: goals only, no `completes` or `prescreens` counters (those are the
 * profile operations' ProfilesResponseV3 quota, spec lines 103-104).
 */
export function renderProfiling(tg: TargetGroupRecord): unknown {
  const profiles = storedProfiles(tg);
  if (profiles.length === 0) return null;
  const adjustment = tg.profiling_adjustment_type ?? (profiles.some((p) => p.targets.some((t) => t.quota.completes_goal !== null && t.quota.completes_goal_percentage === null)) ? 'nominal' : 'percentage');
  const out: Record<string, unknown> = { profile_adjustment_type: adjustment };
  if (tg.profiling_template_id) out.template_id = tg.profiling_template_id;
  out.profiles = (renderProfiles(profiles, CURRENT_VERSION).profiles as Array<Record<string, unknown>>).map(withoutQuotaCounters);
  return out;
}

function withoutQuotaCounters(profile: Record<string, unknown>): Record<string, unknown> {
  if (!Array.isArray(profile.targets)) return profile;
  return {
    ...profile,
    targets: (profile.targets as Array<Record<string, unknown>>).map((target) => {
      if (!isRecord(target.quota)) return target;
      const { completes: _completes, prescreens: _prescreens, ...quota } = target.quota;
      return { ...target, quota };
    }),
  };
}

/** `{target_group_id, profiles[, interlocked_profiles]}` in the request version. */
export function renderProfileSet(tg: TargetGroupRecord, version: ApiVersion): Record<string, unknown> {
  return { target_group_id: tg.id, ...renderProfiles(storedProfiles(tg), version) };
}

/** A stored profile set as raw inputs again (for edits that re-validate the whole set). */
export const asRawProfiles = (profiles: readonly Profile[]): Record<string, unknown>[] => structuredClone(profiles) as unknown as Record<string, unknown>[];

export const requireBodyRecord = (body: unknown): JsonRecord => {
  if (!isRecord(body)) throw badRequest('The request body must be a JSON object.', [{ name: 'body', reason: 'must be a JSON object' }]);
  return body;
};
