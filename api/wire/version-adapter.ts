// The spec's 2025-12-18 rename table, applied in one place: the study model speaks 2025-12-18 names, and a call
// made with 2025-05-27 or 2025-02-17 is translated on the way out (request) and on the way back (response).
//
// Layout of the older versions (the spec names the fields, docs/api-conventions.md pins the layout):
//   profile   {id, name, description, …, ungrouped: [target with `index` (one condition)],
//              grouped: [target with `indexes` (two or more)]}          (no `object`, no `targets`)
//   blended   entries of a top-level `interlocked_profiles` array, same layout, no `object`
//   quota     {name, quota_percentage, filling_goal, quota_nominal (= filling_goal), completes, prescreens}
//   elsewhere client_cpi, human-readable-id, pricing_model/type value ratecard; projects carry
//             purchase_order_number (dropped from answers: 2025-12-18 has no such field); performance
//             `quotas` entries carry filling_goal; completes_cost.value is an integer of minor units
//             (made a decimal string, the 2025-12-18 money format).
import type { ApiVersion } from '../../shared/api-version';

type Pair = readonly [current: string, legacy: string];
type Direction = 'toLegacy' | 'toCurrent';
type Json = Record<string, unknown>;

/** Field renames that apply anywhere in a body. */
const FIELD_RENAMES: readonly Pair[] = [
  ['client_cost_per_interview_note', 'client_cpi'],
  ['human_readable_id', 'human-readable-id'],
];

/** Enumeration values renamed, by the field that holds them. */
const VALUE_RENAMES: Readonly<Record<string, readonly Pair[]>> = {
  pricing_model: [['rate_card', 'ratecard']],
  type: [['rate_card', 'ratecard']],
};

/** Quota field renames. (quota_nominal, also renamed to completes_goal, is echoed as filling_goal.) */
const QUOTA_RENAMES: readonly Pair[] = [
  ['completes_goal', 'filling_goal'],
  ['completes_goal_percentage', 'quota_percentage'],
];

/** Fields a 2025-12-18 resource does not have; dropped from older versions' answers. */
const REMOVED_FIELDS = new Set(['purchase_order_number']);

const LEGACY_BLENDED = 'interlocked_profiles';
const COMPLETES_COST = 'completes_cost';

/** True when the version uses the pre-2025-12-18 names. */
export function usesLegacyNames(version: ApiVersion): boolean {
  return version !== '2025-12-18';
}

/**
 * A 2025-12-18 request body in the names of `version` (profiles are found under `profiles` keys at any depth).
 * The input is not modified.
 */
export function toWireBody<T>(body: T, version: ApiVersion): T {
  const wire = withActivityItemTypes(body, 'toWire');
  if (!usesLegacyNames(version)) return wire;
  return translate(wire, 'toLegacy') as T;
}

/** A response body of `version` in 2025-12-18 names. The input is not modified. */
export function fromWireBody<T>(body: T, version: ApiVersion): T {
  const current = usesLegacyNames(version) ? (translate(body, 'toCurrent') as T) : body;
  return withActivityItemTypes(current, 'fromWire');
}

/**
 * Activity-exclusion item types: studyflow says `target_group`, the reference's wire says `target-group`
 * (RespondentActivityExclusionsIDsListRequest). Applies to `respondent_activity_exclusions` of a body
 * (draft create/update and get, the activity-exclusions PUT and GET); the input is not modified.
 */
export function withActivityItemTypes<T>(body: T, direction: 'toWire' | 'fromWire'): T {
  if (!isRecord(body) || !Array.isArray(body.respondent_activity_exclusions)) return body;
  const [from, to] = direction === 'toWire' ? ['target_group', 'target-group'] : ['target-group', 'target_group'];
  const items = body.respondent_activity_exclusions.map((item: unknown) => (isRecord(item) && item.type === from ? { ...item, type: to } : item));
  return { ...body, respondent_activity_exclusions: items } as T;
}

function rename(key: string, pairs: readonly Pair[], direction: Direction): string {
  for (const [current, legacy] of pairs) {
    if (direction === 'toLegacy' && key === current) return legacy;
    if (direction === 'toCurrent' && key === legacy) return current;
  }
  return key;
}

/** Generic walk: field and value renames everywhere; profile arrays are handed to the profile translation. */
function translate(value: unknown, direction: Direction): unknown {
  if (Array.isArray(value)) return value.map((item) => translate(item, direction));
  if (!isRecord(value)) return value;
  const out: Json = {};
  for (const [key, child] of Object.entries(value)) {
    if (key === 'profiles' || key === LEGACY_BLENDED) continue;
    if (direction === 'toCurrent' && REMOVED_FIELDS.has(key)) continue;
    const valuePairs = VALUE_RENAMES[key];
    let translated: unknown;
    if (valuePairs && typeof child === 'string') translated = rename(child, valuePairs, direction);
    else if (key === 'quotas' && Array.isArray(child)) translated = child.map((q) => (isRecord(q) ? renameQuotaFields(translate(q, direction) as Json, direction) : q));
    else if (key === COMPLETES_COST && direction === 'toCurrent') translated = decimalMoney(child);
    else translated = translate(child, direction);
    out[rename(key, FIELD_RENAMES, direction)] = translated;
  }
  Object.assign(out, direction === 'toLegacy' ? profilesToLegacy(value) : profilesToCurrent(value));
  return out;
}

/** `profiles` (regular and blended) -> `profiles` (regular) + `interlocked_profiles` (blended). */
function profilesToLegacy(value: Json): Json {
  if (!('profiles' in value)) return LEGACY_BLENDED in value ? { [LEGACY_BLENDED]: value[LEGACY_BLENDED] } : {};
  const profiles = value.profiles;
  if (!Array.isArray(profiles)) return { profiles };
  const isBlended = (p: unknown) => isRecord(p) && p.object === 'blended';
  const out: Json = {
    profiles: profiles.filter((p) => !isBlended(p)).map((p) => (isRecord(p) ? translateProfile(p, 'toLegacy', false) : p)),
  };
  const blended = profiles.filter(isBlended).map((p) => translateProfile(p as Json, 'toLegacy', true));
  if (blended.length > 0) out[LEGACY_BLENDED] = blended;
  return out;
}

/** `profiles` + `interlocked_profiles` -> one `profiles` array with `object` set on every entry. */
function profilesToCurrent(value: Json): Json {
  const hasRegular = 'profiles' in value;
  const hasBlended = LEGACY_BLENDED in value;
  if (!hasRegular && !hasBlended) return {};
  const regular = value.profiles;
  const blended = value[LEGACY_BLENDED];
  if (hasRegular && !Array.isArray(regular)) return { profiles: regular };
  const out = [
    ...(Array.isArray(regular) ? regular : []).map((p) => (isRecord(p) ? translateProfile(p, 'toCurrent', false) : p)),
    ...(Array.isArray(blended) ? blended : []).map((p) => (isRecord(p) ? translateProfile(p, 'toCurrent', true) : p)),
  ];
  return { profiles: out };
}

function translateProfile(profile: Json, direction: Direction, blended: boolean): Json {
  const base = translate(omit(profile, ['targets', 'ungrouped', 'grouped', 'object']), direction) as Json;
  if (direction === 'toLegacy') {
    const ungrouped: unknown[] = [];
    const grouped: unknown[] = [];
    for (const target of Array.isArray(profile.targets) ? profile.targets : []) {
      if (!isRecord(target)) continue;
      const conditions = Array.isArray(target.conditions) ? target.conditions : [];
      const rest = translateTarget(omit(target, ['conditions']), direction);
      if (conditions.length === 1) ungrouped.push({ ...rest, index: conditions[0] });
      else grouped.push({ ...rest, indexes: conditions });
    }
    return { ...base, ungrouped, grouped };
  }
  const targets: unknown[] = [];
  for (const [field, many] of [['ungrouped', false], ['grouped', true]] as const) {
    const list = profile[field];
    if (!Array.isArray(list)) continue;
    for (const target of list) {
      if (!isRecord(target)) continue;
      const rest = translateTarget(omit(target, ['index', 'indexes']), direction);
      const conditions = many ? (Array.isArray(target.indexes) ? target.indexes : []) : target.index === undefined ? [] : [target.index];
      targets.push({ ...rest, conditions });
    }
  }
  if (Array.isArray(profile.targets)) targets.push(...profile.targets);
  return { object: blended ? 'blended' : 'regular', ...base, targets };
}

function translateTarget(target: Json, direction: Direction): Json {
  const out = translate(omit(target, ['quota']), direction) as Json;
  if (isRecord(target.quota)) out.quota = translateQuota(target.quota, direction);
  else if ('quota' in target) out.quota = target.quota;
  return out;
}

/** Quota field renames only (performance `quotas` entries, which have no quota_nominal). */
function renameQuotaFields(quota: Json, direction: Direction): Json {
  const out: Json = {};
  for (const [key, value] of Object.entries(quota)) out[rename(key, QUOTA_RENAMES, direction)] = value;
  return out;
}

/** Legacy money (integer minor units) as 2025-12-18 money (decimal string); other shapes pass unchanged. */
function decimalMoney(money: unknown): unknown {
  if (!isRecord(money) || typeof money.value !== 'number' || !Number.isInteger(money.value)) return money;
  const scale = typeof money.currency_scale === 'number' ? money.currency_scale : 2;
  const negative = money.value < 0;
  const digits = String(Math.abs(money.value)).padStart(scale + 1, '0');
  const value = scale === 0 ? digits : `${digits.slice(0, -scale)}.${digits.slice(-scale)}`;
  return { ...money, value: negative ? `-${value}` : value };
}

function translateQuota(quota: Json, direction: Direction): Json {
  const out: Json = {};
  for (const [key, value] of Object.entries(quota)) {
    if (direction === 'toLegacy' && key === 'quota_nominal') continue;
    out[rename(key, QUOTA_RENAMES, direction)] = value;
  }
  if (direction === 'toLegacy' && 'filling_goal' in out) out.quota_nominal = out.filling_goal;
  if (direction === 'toCurrent') {
    if (out.completes_goal === undefined && quota.quota_nominal !== undefined) out.completes_goal = quota.quota_nominal;
    if ('completes_goal' in out) out.quota_nominal = out.completes_goal;
  }
  return out;
}

function omit(value: Json, keys: readonly string[]): Json {
  const out: Json = {};
  for (const [key, child] of Object.entries(value)) if (!keys.includes(key)) out[key] = child;
  return out;
}

function isRecord(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
