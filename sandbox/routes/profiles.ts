// Profile operations (spec: Resources › Profile; Endpoints › Webhooks and others; Versioning).
// 2025-12-18 paths (older names in older versions; each 404s in the other versions):
//   POST P/profiles/validate                              204 when valid; 2025-12-18 body {locale, completes_goal, profiling}
//   POST TG/profiles/manage-profiles      (/apply-profiles)              2025-12-18: {completes_goal, profiling} replaces
//        every profile of a LAUNCHED target group (201 {locale, completes_goal, profiles}); a draft's profiles
//        travel in its own `profiling` on create and update. apply-profiles (older versions) replaces a draft's.
//   POST P/drafts/generate-blended-profile (/generate-interlocked-profile) a blended profile, not saved;
//        2025-12-18: the reference's generate_blended_profile (2-3 regular profiles -> 201 the blended profile)
//   POST TG/profiles/create-blended-profile (/create_interlocked_profile) adds a blended profile to a draft;
//        2025-12-18: the spec's operation (not in the reference), the profile in the reference's vocabulary
//   POST P/supplier-quota-distribution/draft (/panel-distribution/draft)  2025-12-18: one profile -> its projected goals
//   PUT  TG/profiles/completes-goal                       update quotas: 200, 422 invalid, 404 project/TG
//   POST TG/profiles                                      create one regular profile (201)
//   PUT  TG/profiles/{profile_id}/conditions              replace the targets (conditions) of a profile
//   GET  P/profiles/templates, GET P/profiles/templates/{template_id}
// Removed in 2025-12-18 (older versions only): PUT TG/profiles/disable-quotas, GET TG/profiles,
// POST TG/profiles/convert-to-regular-profile, POST TG/profiles/group-quotas (profiles-legacy.ts).

import { ApiError, badRequest, notFound } from '../core/api-error';
import { hasOwn, isRecord } from '../model/json-shape';
import { ISO_TIMESTAMP, ObjectReader } from '../core/input-validation';
import { created, noContent, ok, type RequestContext, type RouteModule } from '../core/route-module';
import { CURRENT_VERSION, LEGACY_VERSIONS, type ApiVersion } from '../core/versioning';
import { requireTargetGroup } from '../resources/lookups';
import { MAX_FILLING_GOAL, targetGroupRenderHooks } from '../resources/target-group-wire';
import { demographicsError, readProfiling } from '../model/profiling-request';
import { generateBlendedProfileInput } from '../model/blended-profiles';
import { canonicalLocale, findLocaleMarket } from '../model/locale-markets';
import { rescaleQuotasToFillingGoal } from '../model/profile-quotas';
import { findProfileTemplate, listProfileTemplates } from '../model/profile-templates';
import type { Profile } from '../model/profile-types';
import { validateProfiles } from '../model/profile-validation';
import { readProfilesRequest, renderProfile, renderProfiles } from '../model/profile-version-translation';
import { distributeSupplierQuotas, projectProfileGoals } from '../model/supplier-quota-distribution';
import { FEASIBILITY_FILLING_GOAL_CAP } from '../model/feasibility-request';
import { legacyProfileRoutes } from './profiles-legacy';
import { updateCompletesGoal } from './profiles-completes-goal';
import {
  PROFILE_SET_FIELDS, applyDraftProfiling, asRawProfiles, profileIds, rawProfileSet, readTemplateIds, renderProfileSet, renderProfiling, requireBodyRecord,
  requireProfilingTargetGroup, storeProfiles, storedProfiles, targetGroupValidationContext, validateTargetGroupProfiles,
} from './profiles-target-group';
import { P, TG } from './paths';

const CURRENT_ONLY: readonly ApiVersion[] = [CURRENT_VERSION];

/** Reads the required locale and completes_goal of a 2025-12-18 account-level body (validate, generate-blended-profile, distribution). */
function readCompletesGoalContext(reader: ObjectReader): { locale: string | undefined; completesGoal: number | undefined } {
  const locale = reader.string('locale', { required: true, maxLength: 10 });
  if (typeof locale === 'string' && !canonicalLocale(locale)) reader.fail('locale', 'must be a locale such as en_US, en_us or eng_us');
  const completesGoal = reader.integer('completes_goal', { required: true, min: 1, max: FEASIBILITY_FILLING_GOAL_CAP });
  return { locale: locale ?? undefined, completesGoal: completesGoal ?? undefined };
}

/** Reads the required fielding window of a 2025-12-18 account-level body: RFC 3339 `start_at` before `end_at`. */
function readFieldingWindow(reader: ObjectReader): void {
  const start = reader.string('start_at', { required: true, pattern: ISO_TIMESTAMP, patternReason: 'must be an RFC 3339 timestamp' });
  const end = reader.string('end_at', { required: true, pattern: ISO_TIMESTAMP, patternReason: 'must be an RFC 3339 timestamp' });
  if (start && end && !(Date.parse(end) > Date.parse(start))) reader.fail('end_at', 'must be a date after start_at');
}

/** Reads locale and filling_goal of an account-level body (validate, drafts, distribution). */
function readAccountLevelContext(reader: ObjectReader, fillingGoalRequired: boolean): { locale: string | undefined; fillingGoal: number | null } {
  const locale = reader.string('locale', { maxLength: 10 });
  if (typeof locale === 'string' && !canonicalLocale(locale)) reader.fail('locale', 'must be a locale such as en_US, en_us or eng_us');
  const fillingGoal = reader.integer('filling_goal', { required: fillingGoalRequired, min: 1, max: FEASIBILITY_FILLING_GOAL_CAP });
  return { locale: locale ?? undefined, fillingGoal: fillingGoal ?? null };
}

function requireSupportedLocale(locale: string | undefined): string {
  if (!locale) throw badRequest('The request is invalid.', [{ name: 'locale', reason: 'is required (or give target_group_id)' }]);
  if (!findLocaleMarket(locale)) throw new ApiError(422, 'unsupported_locale', `The sandbox has no panel for locale ${locale}.`, { invalidParams: [{ name: 'locale', reason: 'unsupported locale' }] });
  return locale;
}

/** POST P/profiles/validate: {profiles, profile_template_ids?, locale, filling_goal?} or {…, target_group_id}. */
function validateRoute(ctx: RequestContext) {
  const body = requireBodyRecord(ctx.body);
  const reader = ObjectReader.body(body);
  reader.rejectUnknown([...PROFILE_SET_FIELDS, 'locale', 'filling_goal', 'target_group_id']);
  reader.array('profiles', { required: true });
  const templateIds = readTemplateIds(reader);
  let { locale, fillingGoal } = readAccountLevelContext(reader, false);
  const targetGroupId = reader.string('target_group_id', { nullable: true, maxLength: 64 });
  reader.finish('The profile validation request is invalid.');
  if (targetGroupId) {
    const tg = requireTargetGroup(ctx, targetGroupId);
    locale = tg.locale ?? locale;
    fillingGoal = tg.filling_goal;
  }
  const raw = rawProfileSet(body, ctx.version, templateIds);
  validateProfiles(raw, { locale: requireSupportedLocale(locale), fillingGoal, newId: profileIds(ctx) });
  return noContent();
}

/** validate (2025-12-18): ValidateProfilesRequestV3 `{locale, completes_goal, profiling}`; 204, 400, or 422 (ValidationErrorResponseDemographics). */
function validateCurrentRoute(ctx: RequestContext) {
  const body = requireBodyRecord(ctx.body);
  const reader = ObjectReader.body(body);
  reader.rejectUnknown(['locale', 'completes_goal', 'profiling'], { profiles: 'is profiling.profiles in 2025-12-18', filling_goal: 'is completes_goal here' });
  const { locale, completesGoal } = readCompletesGoalContext(reader);
  reader.object('profiling', { required: true });
  reader.finish('The profile validation request is invalid.');
  try {
    const profiling = readProfiling(body.profiling, 'profiling', ctx.version, { template: false, none: false })!;
    validateProfiles(profiling.rawProfiles, { locale: requireSupportedLocale(locale!), fillingGoal: completesGoal!, newId: profileIds(ctx) });
  } catch (error) {
    throw demographicsError(error);
  }
  return noContent();
}

/**
 * manage-profiles (2025-12-18): ManageProfilesRequestV3 `{completes_goal, profiling}` replaces every profile of a
 * launched target group; completes_goal becomes its goal. A draft is refused (422 invalid_state_error): its
 * profiles are set in its own `profiling`. 201 ProfilesResponseV3; a profile rule broken: 422 ValidationErrorResponseDemographics.
 */
function manageLaunchedProfilesRoute(ctx: RequestContext) {
  const tg = requireProfilingTargetGroup(ctx, { draftOnly: false });
  if (tg.status === 'draft') {
    throw new ApiError(422, 'invalid_state_error', `Target group ${tg.id} is a draft; set its profiles in the draft's profiling (update_target_group).`);
  }
  const body = requireBodyRecord(ctx.body);
  const reader = ObjectReader.body(body);
  reader.rejectUnknown(['completes_goal', 'profiling'], { profiles: 'is profiling.profiles in 2025-12-18', profile_template_ids: 'is profiling.template_id in 2025-12-18' });
  const completesGoal = reader.integer('completes_goal', { required: true, min: 1, max: MAX_FILLING_GOAL });
  reader.object('profiling', { required: true });
  reader.finish('The profiles are invalid.');
  let profiles: Profile[];
  let profiling: ReturnType<typeof readProfiling>;
  try {
    profiling = readProfiling(body.profiling, 'profiling', ctx.version, { template: true, none: false })!;
    profiles = validateProfiles(profiling.rawProfiles, { ...targetGroupValidationContext(ctx, tg), fillingGoal: completesGoal! });
  } catch (error) {
    throw demographicsError(error);
  }
  if (tg.filling_goal !== completesGoal) {
    tg.filling_goal = completesGoal!;
  }
  applyDraftProfiling(tg, { profiles, adjustment: profiling!.adjustment, templateId: profiling!.templateId });
  storeProfiles(ctx, tg, profiles);
  return created({ locale: tg.locale, completes_goal: tg.filling_goal, profiles: renderProfiles(profiles, ctx.version).profiles });
}

/** apply-profiles (before 2025-12-18): replaces every profile of a draft target group. */
function manageProfilesRoute(ctx: RequestContext) {
  const tg = requireProfilingTargetGroup(ctx, { draftOnly: true });
  const body = requireBodyRecord(ctx.body);
  const reader = ObjectReader.body(body);
  reader.rejectUnknown(PROFILE_SET_FIELDS);
  reader.array('profiles', { required: true });
  const templateIds = readTemplateIds(reader);
  reader.finish('The profiles are invalid.');
  const profiles = validateTargetGroupProfiles(ctx, tg, rawProfileSet(body, ctx.version, templateIds));
  storeProfiles(ctx, tg, profiles);
  return ok(renderProfileSet(tg, ctx.version));
}

function readBlendRequest(reader: ObjectReader): { profileIds: string[]; name: string | undefined; quotasEnabled: boolean } {
  const ids = reader.array('profile_ids', { required: true, minItems: 2, maxItems: 5 }) ?? [];
  ids.forEach((id, index) => {
    if (typeof id !== 'string' || id.length === 0) reader.problems.push({ name: `profile_ids[${index}]`, reason: 'must be a profile id' });
  });
  const name = reader.string('name', { nullable: true, maxLength: 255 });
  const quotasEnabled = reader.boolean('quotas_enabled', { nullable: true });
  return { profileIds: ids.filter((id): id is string => typeof id === 'string'), name: name ?? undefined, quotasEnabled: quotasEnabled ?? true };
}

/** generate-interlocked-profile (before 2025-12-18; sandbox-defined): the profile set with the new blended profile, not saved. */
function generateBlendedRoute(ctx: RequestContext) {
  const body = requireBodyRecord(ctx.body);
  const reader = ObjectReader.body(body);
  reader.rejectUnknown([...PROFILE_SET_FIELDS, 'locale', 'filling_goal', 'profile_ids', 'name', 'quotas_enabled']);
  reader.array('profiles', { required: true });
  const templateIds = readTemplateIds(reader);
  const { locale, fillingGoal } = readAccountLevelContext(reader, true);
  const blend = readBlendRequest(reader);
  reader.finish('The blended profile request is invalid.');
  const context = { locale: requireSupportedLocale(locale), fillingGoal: fillingGoal!, newId: profileIds(ctx) };
  const profiles = validateProfiles(rawProfileSet(body, ctx.version, templateIds), context);
  const blended = generateBlendedProfileInput(profiles, { ...blend, id: ctx.newId('prf'), fillingGoal: fillingGoal!, newTargetId: () => ctx.newId('tgt') });
  const all = validateProfiles([...asRawProfiles(profiles), blended], { ...context, previous: profiles });
  return ok(renderProfiles(all, ctx.version));
}

/**
 * generate-blended-profile (2025-12-18; the reference's generate_blended_profile): GenerateDraftInterlockedProfileRequestV3
 * `{locale, completes_goal, start_at, end_at, collects_pii, profiling: {profile_adjustment_type, profiles}}`, two or
 * three regular profiles -> 201 CompositeDraftRegularProfileV3: one blended profile whose targets are every
 * combination of theirs (conditions joined), each with its share of the completes goal (the product of the sources'
 * percentages; equal shares where a source has no quotas). Nothing is saved. A malformed body or a profile count or
 * kind the request does not take: 400 (BadRequestErrorResponseDemographics); a broken profile rule, or more
 * combinations than a profile may have targets: 422 (ValidationErrorResponseDemographics).
 */
function generateBlendedCurrentRoute(ctx: RequestContext) {
  const body = requireBodyRecord(ctx.body);
  const reader = ObjectReader.body(body);
  reader.rejectUnknown(['locale', 'completes_goal', 'start_at', 'end_at', 'collects_pii', 'profiling'], {
    filling_goal: 'is completes_goal here',
    profiles: 'is profiling.profiles here',
    profile_ids: 'every profile of profiling.profiles is blended',
    profile_template_ids: 'a template is not blended here',
    name: 'the blended profile is named after its sources',
    quotas_enabled: 'follows the sources: quotas when any of them has quotas',
  });
  const { locale, completesGoal } = readCompletesGoalContext(reader);
  readFieldingWindow(reader);
  reader.boolean('collects_pii', { required: true });
  const profiling = reader.object('profiling', { required: true });
  const sources = profiling?.array('profiles', { required: true, minItems: 2, maxItems: 3 });
  sources?.forEach((profile, index) => {
    if (isRecord(profile) && profile.object !== 'regular') reader.problems.push({ name: `profiling.profiles[${index}].object`, reason: 'only regular profiles are blended' });
  });
  reader.finish('The blended profile request is invalid.');
  const market = requireSupportedLocale(locale!);
  try {
    const read = readProfiling(body.profiling, 'profiling', ctx.version, { template: false, none: false })!;
    const context = { locale: market, fillingGoal: completesGoal!, newId: profileIds(ctx) };
    const regulars = validateProfiles(read.rawProfiles, context);
    const blend = { profileIds: regulars.map((profile) => profile.id), name: undefined, quotasEnabled: regulars.some((profile) => profile.quotas_enabled) };
    const blended = generateBlendedProfileInput(regulars, { ...blend, id: ctx.newId('prf'), fillingGoal: completesGoal!, newTargetId: () => ctx.newId('tgt') });
    const all = validateProfiles([...asRawProfiles(regulars), blended], { ...context, previous: regulars });
    return created(renderGeneratedBlend(all[all.length - 1]));
  } catch (error) {
    throw demographicsError(error);
  }
}

/** A generated blended profile as CompositeDraftRegularProfileV3 (the combination is the sandbox's bookkeeping, not shown). */
function renderGeneratedBlend(profile: Profile): Record<string, unknown> {
  const { id: _id, profile_ids: _sources, targets, ...rest } = renderProfile(profile, CURRENT_VERSION) as Record<string, unknown> & { targets: Record<string, unknown>[] };
  return { ...rest, targets: targets.map(({ source_target_ids: _ids, ...target }) => target) };
}

/**
 * create-blended-profile (2025-12-18; the spec lists it, the reference has no such operation): adds one blended
 * profile to a draft, given in the reference's profile vocabulary: RequestDraftRegularProfileV3's blended branch
 * `{object: blended, blended_type?, name, quotas_enabled, targets: [{conditions, quota?}]}` (for instance what
 * generate-blended-profile answered). It is checked with the draft's other profiles, its quotas of the draft's
 * adjustment type -> 201 `{locale, completes_goal, profiles}` (ProfilesResponseV3's shape). The sandbox's combining
 * form (`profile_ids`) is 400 here.
 */
function createBlendedCurrentRoute(ctx: RequestContext) {
  const tg = requireProfilingTargetGroup(ctx, { draftOnly: true });
  const body = requireBodyRecord(ctx.body);
  if (body.object !== 'blended') throw badRequest('The blended profile request is invalid.', [{ name: 'object', reason: 'must be blended (a regular profile travels in the draft\'s profiling)' }]);
  if (hasOwn(body, 'profile_ids')) throw badRequest('The blended profile request is invalid.', [{ name: 'profile_ids', reason: 'give the blended profile\'s targets and their conditions (generate-blended-profile combines regular profiles)' }]);
  const nominalQuotas = Array.isArray(body.targets) && body.targets.some((target) => isRecord(target) && isRecord(target.quota) && target.quota.completes_goal !== undefined);
  const adjustment = tg.profiling_adjustment_type ?? (nominalQuotas ? 'nominal' : 'percentage');
  let profiles: Profile[];
  try {
    const read = readProfiling({ profile_adjustment_type: adjustment, profiles: [body] }, 'profiling', ctx.version, { template: false, none: false })!;
    profiles = validateTargetGroupProfiles(ctx, tg, [...asRawProfiles(storedProfiles(tg)), ...read.rawProfiles]);
  } catch (error) {
    throw demographicsError(error);
  }
  tg.profiling_adjustment_type = adjustment;
  storeProfiles(ctx, tg, profiles);
  return created({ locale: tg.locale, completes_goal: tg.filling_goal, profiles: renderProfiles(profiles, ctx.version).profiles });
}

/** create_interlocked_profile (before 2025-12-18; sandbox-defined): adds a blended profile of existing profiles to a draft. */
function createBlendedRoute(ctx: RequestContext) {
  const tg = requireProfilingTargetGroup(ctx, { draftOnly: true });
  const reader = ObjectReader.body(ctx.body);
  reader.rejectUnknown(['profile_ids', 'name', 'quotas_enabled']);
  const blend = readBlendRequest(reader);
  reader.finish('The blended profile request is invalid.');
  const current = storedProfiles(tg);
  const blended = generateBlendedProfileInput(current, { ...blend, id: ctx.newId('prf'), fillingGoal: tg.filling_goal, newTargetId: () => ctx.newId('tgt') });
  const profiles = validateTargetGroupProfiles(ctx, tg, [...asRawProfiles(current), blended]);
  storeProfiles(ctx, tg, profiles);
  return created(renderProfileSet(tg, ctx.version));
}

/**
 * supplier-quota-distribution/draft (2025-12-18; the reference's get_panel_distribution_draft): PanelDistributionRequestV3
 * `{locale, completes_goal, profile_adjustment_type, start_at, end_at, collects_pii?, profile}`, one profile checked
 * like a draft's (its quotas must match the adjustment type) -> 200 the profile with each quota target's projected
 * goal. Every refusal is the reference's 400 (ClientErrorDemandAPI `{object, detail, invalid_params}`): the operation
 * answers no 422. Supplier ids are refused: the reference does not take supplier allocation here yet.
 */
function draftDistributionRoute(ctx: RequestContext) {
  const body = requireBodyRecord(ctx.body);
  const reader = ObjectReader.body(body);
  reader.rejectUnknown(['locale', 'completes_goal', 'profile_adjustment_type', 'start_at', 'end_at', 'collects_pii', 'profile'], {
    filling_goal: 'is completes_goal here',
    supplier_ids: 'supplier allocation is not supported in this request yet',
    profiles: 'one profile a request, under profile',
    profiling: 'one profile a request, under profile (with profile_adjustment_type beside it)',
    profile_template_ids: 'a template is not distributed here: send its profiles one at a time',
  });
  const { locale, completesGoal } = readCompletesGoalContext(reader);
  const adjustment = reader.oneOf('profile_adjustment_type', ['percentage', 'nominal'], { required: true });
  readFieldingWindow(reader);
  reader.boolean('collects_pii');
  reader.object('profile', { required: true });
  reader.finish('The distribution request is invalid.');
  const market = requireSupportedLocale(locale!);
  let profile: Profile;
  try {
    const profiling = readProfiling({ profile_adjustment_type: adjustment, profiles: [body.profile] }, 'profiling', ctx.version, { template: false, none: false })!;
    [profile] = validateProfiles(profiling.rawProfiles, { locale: market, fillingGoal: completesGoal!, newId: profileIds(ctx) });
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    const rename = (name: string) => name.replace(/^(profiling\.)?profiles\[0\]/, 'profile').replace(/^profiling\.profile_adjustment_type/, 'profile_adjustment_type');
    throw new ApiError(400, 'bad_request_error', error.message, { invalidParams: (error.invalidParams ?? [{ name: 'profile', reason: error.message }]).map((p) => ({ name: rename(p.name), reason: p.reason })) });
  }
  const targets = (body.profile as { targets?: unknown }).targets;
  const names = Array.isArray(targets) ? targets.map((target) => (target && typeof target === 'object' && typeof (target as { name?: unknown }).name === 'string' ? (target as { name: string }).name : undefined)) : [];
  return ok(projectProfileGoals(profile, completesGoal!, names));
}

/** panel-distribution/draft (before 2025-12-18; sandbox-defined): the goals split over the chosen suppliers. */
function supplierDistributionRoute(ctx: RequestContext) {
  const body = requireBodyRecord(ctx.body);
  const reader = ObjectReader.body(body);
  reader.rejectUnknown([...PROFILE_SET_FIELDS, 'locale', 'filling_goal', 'supplier_ids']);
  const templateIds = readTemplateIds(reader);
  const { locale, fillingGoal } = readAccountLevelContext(reader, true);
  const ids = reader.array('supplier_ids', { required: true, minItems: 1, maxItems: 100 }) ?? [];
  const supplierIds: number[] = [];
  ids.forEach((id, index) => {
    if (typeof id !== 'number' || !Number.isInteger(id) || id < 1) reader.problems.push({ name: `supplier_ids[${index}]`, reason: 'must be a positive integer supplier id' });
    else if (supplierIds.includes(id)) reader.problems.push({ name: `supplier_ids[${index}]`, reason: 'is listed twice' });
    else supplierIds.push(id);
  });
  reader.finish('The distribution request is invalid.');
  const market = requireSupportedLocale(locale);
  const profiles = validateProfiles(rawProfileSet(body, ctx.version, templateIds), { locale: market, fillingGoal: fillingGoal!, newId: profileIds(ctx) });
  return ok(distributeSupplierQuotas({ locale: findLocaleMarket(market)!.locale, fillingGoal: fillingGoal!, supplierIds, profiles }));
}

/** POST TG/profiles: one regular profile, added to the draft's set. */
function createProfileRoute(ctx: RequestContext) {
  const tg = requireProfilingTargetGroup(ctx, { draftOnly: true });
  const body = requireBodyRecord(ctx.body);
  const withObject = ctx.version === CURRENT_VERSION && body.object === undefined ? { ...body, object: 'regular' } : body;
  if (withObject.object !== undefined && withObject.object !== 'regular') {
    throw badRequest('Only regular profiles are created here; blend profiles with create-blended-profile.', [{ name: 'object', reason: 'must be regular' }]);
  }
  const [raw] = readProfilesRequest({ profiles: [withObject] }, ctx.version) as unknown[];
  const profiles = validateTargetGroupProfiles(ctx, tg, [...asRawProfiles(storedProfiles(tg)), raw]);
  storeProfiles(ctx, tg, profiles);
  return created(renderProfile(profiles[profiles.length - 1], ctx.version));
}

/**
 * PUT TG/profiles/{profile_id}/conditions: {targets} (ungrouped/grouped before 2025-12-18) replaces the
 * targets of a regular profile or of a blended profile in the spec's shape (not of one that combines profiles).
 */
function updateConditionsRoute(ctx: RequestContext) {
  const tg = requireProfilingTargetGroup(ctx, { draftOnly: true });
  const current = storedProfiles(tg);
  const position = current.findIndex((profile) => profile.id === ctx.params.profile_id);
  if (position < 0) throw notFound(`Profile ${ctx.params.profile_id} not found.`);
  const existing = current[position];
  if (existing.object === 'blended' && existing.profile_ids) throw new ApiError(422, 'invalid_blended_profile', `Profile ${existing.id} combines other profiles; its targets follow the profiles it combines.`);
  const body = requireBodyRecord(ctx.body);
  const reader = ObjectReader.body(body);
  const current2025 = ctx.version === CURRENT_VERSION;
  reader.rejectUnknown(current2025 ? ['targets'] : ['ungrouped', 'grouped'], current2025
    ? { ungrouped: 'renamed to target in 2025-12-18', grouped: 'renamed to target in 2025-12-18' }
    : { targets: 'targets is available from 2025-12-18; this version uses ungrouped and grouped' });
  reader.finish('The conditions update is invalid.');
  const { object: _object, targets: _targets, ...profileFields } = asRawProfiles([existing])[0];
  const replacement = current2025 ? { ...profileFields, object: existing.object, targets: body.targets } : { ...profileFields, ungrouped: body.ungrouped ?? [], grouped: body.grouped ?? [] };
  const [raw] = readProfilesRequest(current2025 || existing.object === 'regular' ? { profiles: [replacement] } : { profiles: [], interlocked_profiles: [replacement] }, ctx.version) as Record<string, unknown>[];
  const rawSet: unknown[] = asRawProfiles(current);
  rawSet[position] = existing.object === 'regular' ? { ...raw, object: 'regular', template_id: existing.template_id } : { ...raw, object: 'blended' };
  const profiles = validateTargetGroupProfiles(ctx, tg, rawSet);
  storeProfiles(ctx, tg, profiles);
  return ok(renderProfile(profiles[position], ctx.version));
}

function templateSummary(templateId: string, version: ApiVersion, withProfiles: boolean) {
  const template = findProfileTemplate(templateId)!;
  const summary: Record<string, unknown> = { id: template.id, name: template.name, description: template.description };
  if (withProfiles) {
    let next = 0;
    const profiles = validateProfiles(structuredClone(template.profiles as unknown[]), { locale: 'en_US', fillingGoal: 100, newId: (kind) => `${kind}-${++next}` });
    Object.assign(summary, renderProfiles(profiles, version));
  }
  return summary;
}

export const profilesRoutes: RouteModule = {
  name: 'profiles',
  routes: [
    { method: 'POST', path: `${P}/profiles/validate`, handler: (ctx) => (ctx.version === CURRENT_VERSION ? validateCurrentRoute(ctx) : validateRoute(ctx)) },
    { method: 'POST', path: `${TG}/profiles/manage-profiles`, versions: CURRENT_ONLY, handler: manageLaunchedProfilesRoute },
    { method: 'POST', path: `${TG}/profiles/apply-profiles`, versions: LEGACY_VERSIONS, handler: manageProfilesRoute },
    { method: 'POST', path: `${P}/drafts/generate-blended-profile`, versions: CURRENT_ONLY, handler: generateBlendedCurrentRoute },
    { method: 'POST', path: `${P}/drafts/generate-interlocked-profile`, versions: LEGACY_VERSIONS, handler: generateBlendedRoute },
    { method: 'POST', path: `${TG}/profiles/create-blended-profile`, versions: CURRENT_ONLY, handler: createBlendedCurrentRoute },
    { method: 'POST', path: `${TG}/profiles/create_interlocked_profile`, versions: LEGACY_VERSIONS, handler: createBlendedRoute },
    { method: 'POST', path: `${P}/supplier-quota-distribution/draft`, versions: CURRENT_ONLY, handler: draftDistributionRoute },
    { method: 'POST', path: `${P}/panel-distribution/draft`, versions: LEGACY_VERSIONS, handler: supplierDistributionRoute },
    { method: 'PUT', path: `${TG}/profiles/completes-goal`, handler: updateCompletesGoal },
    { method: 'POST', path: `${TG}/profiles`, handler: createProfileRoute },
    { method: 'PUT', path: `${TG}/profiles/{profile_id}/conditions`, handler: updateConditionsRoute },
    { method: 'GET', path: `${P}/profiles/templates`, handler: (ctx) => ok({ data: listProfileTemplates().map((template) => templateSummary(template.id, ctx.version, false)), has_more: false, next_cursor: null }) },
    {
      method: 'GET',
      path: `${P}/profiles/templates/{template_id}`,
      handler: (ctx) => {
        if (!findProfileTemplate(ctx.params.template_id)) throw notFound(`Profile template ${ctx.params.template_id} not found.`);
        return ok(templateSummary(ctx.params.template_id, ctx.version, true));
      },
    },
    ...legacyProfileRoutes,
  ],
  init(services) {
    targetGroupRenderHooks.profiles = (profiles, version) => renderProfiles(profiles as Profile[], version).profiles;
    targetGroupRenderHooks.profiling = renderProfiling;
    // A changed filling_goal keeps the quota percentages and recomputes the goals.
    return services.events.on('target_group.updated', (event) => {
      if (!event.changed_fields.includes('filling_goal')) return;
      const tg = services.store.data.target_groups[event.target_group_id];
      if (!tg || tg.profiles.length === 0) return;
      tg.profiles = rescaleQuotasToFillingGoal(tg.profiles as Profile[], tg.filling_goal);
      services.commit();
    });
  },
};
