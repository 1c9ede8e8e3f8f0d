// The calculate-feasibility request body.
// 2025-12-18, the reference's CalculateTargetGroupFeasibilityRequest (docs/api-conventions.md); in the spec's
// dialect with the spec's filling_goal in place of completes_goal (a listed spec deviation, core/dialect.ts):
//   {business_unit_id (integer), locale, expected_incidence_rate, expected_length_of_interview_minutes,
//    filling_goal (cint: completes_goal), fielding_specification {start_at, end_at}, collects_pii?, step_days?,
//    cost_per_interview?, price?, rate_card_price_boost? (money), profiling? {profile_adjustment_type, profiles},
//    allocations? (the spec's supplier_ids, or the reference's open/private exchange allocations)}.
// Before 2025-12-18 (sandbox shape, docs/sandbox.md): {locale, expected_incidence_rate,
//  expected_length_of_interview_minutes, filling_goal, start_fielding_at?, end_fielding_at? (window, default
//  now .. now + 14 days), profiles?, profile_template_ids?, allocations? {supplier_ids?, template_id?},
//  target_group_id?, business_unit_id?}.
// filling_goal: up to 100,000 in 2025-12-18, 10,000 before. No project_id in the 2025-12-18 body.

import { ISO_TIMESTAMP, isPlainObject, ObjectReader } from '../core/input-validation';
import { usesCurrentNames, type ApiVersion } from './api-version';
import { canonicalLocale, findLocaleMarket, type LocaleMarket } from './locale-markets';
import { readRequestMoney } from './money';
import { readProfilesRequest } from './profile-version-translation';
import { RuleViolation } from './rule-violation';

export const FEASIBILITY_FILLING_GOAL_CAP = 100_000;
export const LEGACY_FEASIBILITY_FILLING_GOAL_CAP = 10_000;
export const DEFAULT_FIELDING_DAYS = 14;
export const MAX_FIELDING_DAYS = 365;
export const MAX_LENGTH_OF_INTERVIEW_MINUTES = 180;
const DAY_MS = 86_400_000;

export interface FeasibilityRequest {
  market: LocaleMarket;
  locale: string;
  incidenceRate: number;
  lengthOfInterviewMinutes: number;
  fillingGoal: number;
  startMs: number;
  endMs: number;
  fieldingDays: number;
  /** Raw 2025-12-18 profile inputs (still to validate against the locale and filling goal). */
  rawProfiles: unknown[];
  profileTemplateIds: string[];
  supplierIds: number[];
  targetGroupId: string | null;
  businessUnitId: number | null;
  /** The reference's body (fielding_specification, profiling): answered with the reference's answer. */
  referenceShape?: boolean;
}

export const feasibilityFillingGoalCap = (version: ApiVersion): number =>
  usesCurrentNames(version) ? FEASIBILITY_FILLING_GOAL_CAP : LEGACY_FEASIBILITY_FILLING_GOAL_CAP;

export function readFeasibilityRequest(body: unknown, version: ApiVersion, nowMs: number, goalField: 'filling_goal' | 'completes_goal' = 'filling_goal'): FeasibilityRequest {
  // Older versions take the reference's body too (their profile layout and FeasibilityRequest answer aside).
  if (usesCurrentNames(version) || (isPlainObject(body) && 'fielding_specification' in body)) return readCurrentFeasibilityRequest(body, version, usesCurrentNames(version) ? goalField : 'filling_goal');
  const reader = ObjectReader.body(body);
  reader.rejectUnknown(
    ['locale', 'expected_incidence_rate', 'expected_length_of_interview_minutes', 'filling_goal', 'start_fielding_at', 'end_fielding_at',
      'profiles', 'profile_template_ids', 'allocations', 'target_group_id', 'business_unit_id', 'interlocked_profiles'],
    {},
  );
  const locale = reader.string('locale', { required: true, maxLength: 10 });
  const incidenceRate = reader.number('expected_incidence_rate', { required: true, exclusiveMin: 0, max: 1 });
  const lengthOfInterview = reader.integer('expected_length_of_interview_minutes', { required: true, min: 1, max: MAX_LENGTH_OF_INTERVIEW_MINUTES });
  const fillingGoal = reader.integer('filling_goal', { required: true, min: 1, max: feasibilityFillingGoalCap(version) });
  const start = reader.string('start_fielding_at', { nullable: true, pattern: ISO_TIMESTAMP, patternReason: 'must be an ISO-8601 timestamp' });
  const end = reader.string('end_fielding_at', { nullable: true, pattern: ISO_TIMESTAMP, patternReason: 'must be an ISO-8601 timestamp' });
  reader.array('profiles', { nullable: true });
  const templateIds = reader.array('profile_template_ids', { nullable: true, maxItems: 10 }) ?? [];
  templateIds.forEach((id, index) => {
    if (typeof id !== 'string' || id.length === 0) reader.problems.push({ name: `profile_template_ids[${index}]`, reason: 'must be a template id string' });
  });
  const allocations = reader.object('allocations', { nullable: true });
  if (allocations) {
    allocations.rejectUnknown(['supplier_ids', 'template_id']);
    allocations.string('template_id', { nullable: true, maxLength: 64 });
  }
  const supplierIds = readSupplierIds(reader, allocations);
  const targetGroupId = reader.string('target_group_id', { nullable: true, maxLength: 64 });
  const businessUnitId = reader.integer('business_unit_id', { nullable: true, min: 1, allowNumericString: true });
  if (typeof locale === 'string' && !canonicalLocale(locale)) reader.fail('locale', 'must be a locale such as en_US, en_us or eng_us');
  const startMs = start ? Date.parse(start) : nowMs;
  const endMs = end ? Date.parse(end) : startMs + DEFAULT_FIELDING_DAYS * DAY_MS;
  if (start && Number.isNaN(startMs)) reader.fail('start_fielding_at', 'is not a valid date');
  if (end && Number.isNaN(endMs)) reader.fail('end_fielding_at', 'is not a valid date');
  else if (endMs <= startMs) reader.fail('end_fielding_at', 'must be after start_fielding_at (default: now)');
  else if (endMs - startMs > MAX_FIELDING_DAYS * DAY_MS) reader.fail('end_fielding_at', `the fielding window is at most ${MAX_FIELDING_DAYS} days`);
  reader.finish('The feasibility request is invalid.');

  const market = marketOf(locale!);
  const rawProfiles = reader.value.profiles === undefined || reader.value.profiles === null ? [] : readProfilesRequest(reader.value, version);
  return {
    market,
    locale: locale!,
    incidenceRate: incidenceRate!,
    lengthOfInterviewMinutes: lengthOfInterview!,
    fillingGoal: fillingGoal!,
    startMs,
    endMs,
    fieldingDays: (endMs - startMs) / DAY_MS,
    rawProfiles: rawProfiles as unknown[],
    profileTemplateIds: templateIds as string[],
    supplierIds,
    targetGroupId: targetGroupId ?? null,
    businessUnitId: businessUnitId ?? null,
  };
}

/** `allocations.supplier_ids`: positive integers, at most 100; a wrong one is a problem of `reader`'s body. */
function readSupplierIds(reader: ObjectReader, allocations: ObjectReader | null | undefined): number[] {
  const supplierIds: number[] = [];
  const ids = allocations?.array('supplier_ids', { nullable: true, maxItems: 100 }) ?? [];
  ids.forEach((id, index) => {
    if (typeof id !== 'number' || !Number.isInteger(id) || id < 1) reader.problems.push({ name: `allocations.supplier_ids[${index}]`, reason: 'must be a positive integer supplier id' });
    else supplierIds.push(id);
  });
  return supplierIds;
}

/** The panel of a (valid) locale; 422 unsupported_locale when the sandbox has none. */
function marketOf(locale: string) {
  const market = findLocaleMarket(locale);
  if (!market) throw new RuleViolation(422, 'unsupported_locale', `The sandbox has no panel for locale ${locale}.`, [{ name: 'locale', reason: 'unsupported locale' }]);
  return market;
}

/**
 * The 2025-12-18 body: the reference's request, with the dialect's goal field (the spec dialect's filling_goal,
 * the cint dialect's completes_goal; the other one is refused by name).
 */
function readCurrentFeasibilityRequest(body: unknown, version: ApiVersion, goalField: 'filling_goal' | 'completes_goal'): FeasibilityRequest {
  const reader = ObjectReader.body(body);
  reader.rejectUnknown(
    ['business_unit_id', 'locale', 'collects_pii', 'expected_incidence_rate', 'expected_length_of_interview_minutes', goalField, 'fielding_specification',
      'step_days', 'cost_per_interview', 'price', 'rate_card_price_boost', 'profiling', 'allocations'],
    {
      project_id: 'calculate-feasibility takes no project_id in 2025-12-18 (the project-scoped endpoint was removed)',
      [goalField === 'filling_goal' ? 'completes_goal' : 'filling_goal']: `the wanted completes are ${goalField} on feasibility`,
      profiles: 'profiles go under profiling: {profile_adjustment_type, profiles}',
      start_fielding_at: 'the window is fielding_specification: {start_at, end_at}',
      end_fielding_at: 'the window is fielding_specification: {start_at, end_at}',
      interlocked_profiles: 'renamed to profiles entries with object = blended in 2025-12-18',
    },
  );
  const businessUnitId = reader.integer('business_unit_id', { required: true, min: 1 });
  const locale = reader.string('locale', { required: true, maxLength: 10 });
  reader.boolean('collects_pii', { nullable: true });
  const incidenceRate = reader.number('expected_incidence_rate', { required: true, exclusiveMin: 0, max: 1 });
  const lengthOfInterview = reader.integer('expected_length_of_interview_minutes', { required: true, min: 1, max: MAX_LENGTH_OF_INTERVIEW_MINUTES });
  const fillingGoal = reader.integer(goalField, { required: true, min: 1, max: FEASIBILITY_FILLING_GOAL_CAP });
  reader.number('step_days', { nullable: true, min: 0 });
  for (const field of ['cost_per_interview', 'price', 'rate_card_price_boost']) readRequestMoney(reader, field, { currencyRequired: true });
  const window = reader.object('fielding_specification', { required: true });
  let startMs = NaN;
  let endMs = NaN;
  if (window) {
    window.rejectUnknown(['start_at', 'end_at']);
    const start = window.string('start_at', { required: true, pattern: ISO_TIMESTAMP, patternReason: 'must be an RFC 3339 timestamp' });
    const end = window.string('end_at', { required: true, pattern: ISO_TIMESTAMP, patternReason: 'must be an RFC 3339 timestamp' });
    startMs = start ? Date.parse(start) : NaN;
    endMs = end ? Date.parse(end) : NaN;
    if (start && Number.isNaN(startMs)) reader.fail('fielding_specification.start_at', 'is not a valid date');
    else if (end && Number.isNaN(endMs)) reader.fail('fielding_specification.end_at', 'is not a valid date');
    else if (start && end && endMs <= startMs) reader.fail('fielding_specification.end_at', 'must be after start_at');
    else if (start && end && endMs - startMs > MAX_FIELDING_DAYS * DAY_MS) reader.fail('fielding_specification.end_at', `the fielding window is at most ${MAX_FIELDING_DAYS} days`);
  }
  let rawProfiles: unknown[] = [];
  const profiling = reader.object('profiling', { nullable: true });
  if (profiling) {
    profiling.rejectUnknown(['profile_adjustment_type', 'profiles', ...(usesCurrentNames(version) ? [] : ['interlocked_profiles'])]);
    profiling.string('profile_adjustment_type', { required: true, pattern: /^(percentage|nominal)$/, patternReason: 'must be percentage or nominal' });
    const profiles = profiling.array('profiles', { required: true });
    if (profiles) rawProfiles = (readProfilesRequest(profiling.value, version) as unknown[]).map(asProfileRecord);
  }
  const allocations = reader.object('allocations', { nullable: true });
  if (allocations) allocations.rejectUnknown(['supplier_ids', 'open_exchange_allocations', 'private_exchange_allocations']);
  const supplierIds = readSupplierIds(reader, allocations);
  if (allocations) {
    allocations.object('open_exchange_allocations', { nullable: true });
    allocations.object('private_exchange_allocations', { nullable: true });
  }
  if (typeof locale === 'string' && !canonicalLocale(locale)) reader.fail('locale', 'must be a locale such as en_US, en_us or eng_us');
  reader.finish('The feasibility request is invalid.');

  const market = marketOf(locale!);
  return {
    market,
    locale: locale!,
    incidenceRate: incidenceRate!,
    lengthOfInterviewMinutes: lengthOfInterview!,
    fillingGoal: fillingGoal!,
    startMs,
    endMs,
    fieldingDays: (endMs - startMs) / DAY_MS,
    rawProfiles,
    profileTemplateIds: [],
    supplierIds,
    targetGroupId: null,
    businessUnitId: businessUnitId!,
    referenceShape: true,
  };
}

/**
 * A profile of the reference's feasibility request (FeasibilityRequestDraftRegularProfileV3: no profile name, a
 * target's `name` beside its conditions, a quota of the goal alone) in the shape the sandbox's profile reader
 * takes: the profile named by its position, each quota by its target's name.
 */
function asProfileRecord(raw: unknown, index: number): unknown {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return raw;
  const profile = raw as Record<string, unknown>;
  const targets = Array.isArray(profile.targets)
    ? profile.targets.map((rawTarget) => {
        if (!rawTarget || typeof rawTarget !== 'object' || Array.isArray(rawTarget)) return rawTarget;
        const { name, ...target } = rawTarget as Record<string, unknown>;
        const quota = target.quota && typeof target.quota === 'object' && !Array.isArray(target.quota) ? (target.quota as Record<string, unknown>) : undefined;
        return quota && typeof name === 'string' && quota.name === undefined ? { ...target, quota: { ...quota, name } } : target;
      })
    : profile.targets;
  return { ...profile, name: profile.name ?? `profile ${index + 1}`, targets };
}
