// A target group's profiles as the reference's wire carries them (ProfilingRequest on draft create and
// update, ManageProfilesRequestV3 for a launched target group, ValidateProfilesRequestV3), and the part of
// an observed draft's `profiling` (ProfilingResponse) a re-apply compares with. Pure.
import { holdsDesired } from './compare';
import type { DesiredTargetGroup } from './types';

type Json = Record<string, unknown>;

const record = (value: unknown): Json | undefined => (value && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : undefined);
const array = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

export type AdjustmentType = 'nominal' | 'percentage';

/** The profiling of a draft, a launched target group or a validation (reference: ProfilingRequest's variants). */
export interface Profiling {
  profile_adjustment_type: AdjustmentType;
  profiles?: Json[];
  template_id?: string;
}

/** One condition on the wire: selection and range as written; open-ended values without repeats (the API removes them). */
function wireCondition(raw: unknown): Json {
  const c = record(raw) ?? {};
  if (c.object !== 'open_ended') return { ...c };
  const all = c.allow_all_values === true;
  return {
    object: 'open_ended',
    question_id: c.question_id,
    allow_all_values: all,
    open_ended_values: all ? [] : [...new Set(array(c.open_ended_values).map(String))],
  };
}

/**
 * One profile on the wire (reference: RequestDraftRegularProfileV3): `object`, `blended_type` for a blended
 * profile, `name`, `quotas_enabled` and the targets: `{conditions, quota: {name, completes_goal |
 * completes_goal_percentage}}` when quotas are enabled, else `{object: nominal, conditions}` (the reference's
 * target without a quota). The study file's `description` and target `text` are labels of its own, not sent.
 */
export function wireProfile(raw: unknown): Json {
  const p = record(raw) ?? {};
  const quotas = p.quotas_enabled === true;
  const out: Json = { object: p.object ?? 'regular' };
  if (p.object === 'blended' && typeof p.blended_type === 'string') out.blended_type = p.blended_type;
  out.name = p.name;
  out.quotas_enabled = quotas;
  out.targets = array(p.targets).map((rawTarget) => {
    const target = record(rawTarget) ?? {};
    const conditions = array(target.conditions).map(wireCondition);
    const quota = record(target.quota);
    if (!quotas || !quota) return { object: 'nominal', conditions };
    const wireQuota: Json = { name: quota.name };
    if (typeof quota.completes_goal === 'number') wireQuota.completes_goal = quota.completes_goal;
    else wireQuota.completes_goal_percentage = quota.completes_goal_percentage;
    return { conditions, quota: wireQuota };
  });
  return out;
}

/**
 * A profile of the wire's draft shape ({@link wireProfile}) as a feasibility request takes it (reference:
 * FeasibilityRequestDraftRegularProfileV3): no profile name; a target `{name?, conditions, quota?}`, its name the
 * draft quota's, its quota the goal alone.
 */
export function feasibilityProfile(wire: Json): Json {
  const { name: _name, targets, ...profile } = wire;
  return {
    ...profile,
    targets: array(targets).map((rawTarget) => {
      const { object: _object, quota: rawQuota, ...target } = record(rawTarget) ?? {};
      const quota = record(rawQuota);
      if (!quota) return target;
      const { name, ...goal } = quota;
      return { ...(typeof name === 'string' ? { name } : {}), ...target, quota: goal };
    }),
  };
}

/**
 * `profile_adjustment_type` of a set of profiles: `nominal` when a quota gives completes_goal, else
 * `percentage` (the reference refuses the two mixed; a study file cannot mix them, SF4115).
 */
export function adjustmentTypeOf(profiles: readonly unknown[]): AdjustmentType {
  for (const profile of profiles) {
    if (record(profile)?.quotas_enabled !== true) continue;
    for (const target of array(record(profile)?.targets)) {
      if (typeof record(record(target)?.quota)?.completes_goal === 'number') return 'nominal';
    }
  }
  return 'percentage';
}

/**
 * The profiling of a target group: its own profiles and at most one profile template in the API
 * (`template_id`, which takes percentages only); undefined when it has neither.
 */
export function profilingOf(profiles: readonly unknown[], templateIds: readonly string[] = []): Profiling | undefined {
  const templateId = templateIds[0];
  if (!profiles.length && templateId === undefined) return undefined;
  const profiling: Profiling = { profile_adjustment_type: templateId !== undefined ? 'percentage' : adjustmentTypeOf(profiles) };
  if (profiles.length) profiling.profiles = profiles.map(wireProfile);
  if (templateId !== undefined) profiling.template_id = templateId;
  return profiling;
}

/** The desired target group's profiling, as its draft body carries it. */
export function desiredProfiling(desired: DesiredTargetGroup): Profiling | undefined {
  return record(desired.draft.profiling) as Profiling | undefined;
}

/** The desired profiles as an observed `profiling` shows them: the answer has no `object` on targets. */
function comparableProfiles(profiles: readonly unknown[]): unknown[] {
  return profiles.map((raw) => {
    const profile = record(raw) ?? {};
    return {
      ...profile,
      targets: array(profile.targets).map((rawTarget) => {
        const { object: _object, ...target } = record(rawTarget) ?? {};
        return target;
      }),
    };
  });
}

/**
 * Whether an observed draft's `profiling` (ProfilingResponse) holds the desired one: the same adjustment type and
 * template, and the desired profiles compared on their own keys (the answer adds ids, texts and counters). With a
 * template the answer lists the template's profiles beside the own ones, so each own profile must be there, and
 * the count must add up to no more than the template's and the own ones.
 */
export function profilingHolds(desired: unknown, observed: unknown): boolean {
  const want = record(desired);
  const have = record(observed);
  if (!want) return !have || array(have.profiles).length === 0;
  if (!have || have.profile_adjustment_type !== want.profile_adjustment_type || (have.template_id ?? undefined) !== (want.template_id ?? undefined)) return false;
  const wanted = comparableProfiles(array(want.profiles));
  const held = array(have.profiles);
  if (want.template_id === undefined) return holdsDesired(wanted, held);
  const rest = [...held];
  for (const profile of wanted) {
    const at = rest.findIndex((candidate) => holdsDesired(profile, candidate));
    if (at === -1) return false;
    rest.splice(at, 1);
  }
  // What is left is the template's; an own profile dropped from the study would stay among them unnoticed
  // unless the template's profiles are told apart by name.
  const ownNames = new Set(array(want.profiles).map((p) => record(p)?.name));
  return rest.every((candidate) => !ownNames.has(record(candidate)?.name));
}

/**
 * The body of manage-profiles for a launched target group (reference: ManageProfilesRequestV3): the complete
 * set, which replaces every profile it has, with the target group's completes goal.
 */
export function manageProfilesBody(desired: DesiredTargetGroup): Json | undefined {
  const profiling = desiredProfiling(desired);
  if (!profiling) return undefined;
  return { completes_goal: desired.draft.filling_goal, profiling };
}

/** The body of validate-profiles (reference: ValidateProfilesRequestV3); undefined without own profiles to validate. */
export function validateProfilesBody(desired: DesiredTargetGroup): Json | undefined {
  const profiling = desiredProfiling(desired);
  if (!profiling?.profiles?.length) return undefined;
  return {
    locale: desired.draft.locale,
    completes_goal: desired.draft.filling_goal,
    profiling: { profile_adjustment_type: profiling.profile_adjustment_type, profiles: profiling.profiles },
  };
}

/**
 * The profiling with each nominal quota goal the exchange shows put in place of the file's (matched by profile
 * and quota name): when it then holds, the profiles differ in quota goals alone, which update_profile_filling_goal
 * carries without replacing the profiles.
 */
export function withQuotaGoals(profiling: unknown, goals: readonly { profileName: string; quotaName: string; completesGoal: number }[]): unknown {
  const copy = JSON.parse(JSON.stringify(profiling ?? null)) as unknown;
  for (const profile of array(record(copy)?.profiles)) {
    const p = record(profile);
    for (const target of array(p?.targets)) {
      const quota = record(record(target)?.quota);
      const goal = goals.find((g) => g.profileName === p?.name && g.quotaName === quota?.name);
      if (quota && goal && typeof quota.completes_goal === 'number') quota.completes_goal = goal.completesGoal;
    }
  }
  return copy;
}
