// The 2025-12-18 profile shape: the canonical form the sandbox stores. Older versions are translated
// to and from it in profile-version-translation.ts.

export interface SelectionCondition {
  object: 'selection';
  question_id: number;
  option: string;
}

/** Sandbox-defined: inclusive numeric range on a range question (e.g. age 18-34). */
export interface RangeCondition {
  object: 'range';
  question_id: number;
  min: number;
  max: number;
}

/**
 * The stored form of an open-ended condition on the postal-code question: the zip / postal codes (exact repeats
 * removed silently, each stored as sent), or every code (`allow_all_values`, no codes). On the 2025-12-18 wire it is an open_ended
 * condition (`allow_all_values`, `open_ended_values`); the `zip_code` kind exists only in older versions' bodies.
 */
export interface ZipCodeCondition {
  object: 'zip_code';
  question_id: number;
  allow_all_values: boolean;
  zip_codes: string[];
}

/**
 * Free-text answers to an open-ended question (stored as sent, exact repeats removed; a respondent's answer matches
 * one case-insensitively), or every answer (`allow_all_values`).
 */
export interface OpenEndedCondition {
  object: 'open_ended';
  question_id: number;
  allow_all_values: boolean;
  values: string[];
}

export type Condition = SelectionCondition | RangeCondition | ZipCodeCondition | OpenEndedCondition;
export const CONDITION_OBJECTS = ['selection', 'range', 'zip_code', 'open_ended'] as const;

export interface Quota {
  name: string;
  completes_goal_percentage: number | null;
  completes_goal: number | null;
  /** Mirrors completes_goal (kept in the 2025-12-18 shape). */
  quota_nominal: number | null;
  completes: number;
  prescreens: number;
}

export interface Target {
  id: string;
  text: string;
  text_translated: string;
  conditions: Condition[];
  quota: Quota;
}

/**
 * A blended target: conditions on several questions. In a blended profile that combines regular
 * profiles (sandbox-defined), it also names one target of each combined profile (same order as
 * profile_ids) and its conditions are theirs; in the spec's shape it gives its conditions itself.
 */
export interface BlendedTarget extends Target {
  /** Sandbox-defined; present exactly when the profile has profile_ids. */
  source_target_ids?: string[];
}

/** Sandbox-defined: several open-ended (free-text or zip-code) questions profiled together as one profile. */
export interface OpenEndedGroup {
  name: string;
  question_ids: number[];
}

export interface RegularProfile {
  object: 'regular';
  id: string;
  name: string;
  description: string;
  description_translated: string;
  quotas_enabled: boolean;
  open_ended_group: OpenEndedGroup | null;
  /** The profile template this profile came from, or null. */
  template_id: string | null;
  targets: Target[];
}

/**
 * A blended profile in one of two forms: the spec's (targets whose conditions combine several
 * questions; no profile_ids), or the sandbox's combining form (profile_ids naming the regular profiles
 * it combines, one target per combination with source_target_ids).
 */
export interface BlendedProfile {
  object: 'blended';
  id: string;
  name: string;
  description: string;
  description_translated: string;
  quotas_enabled: boolean;
  /** Sandbox-defined: the regular profiles it combines; absent in the spec's shape. */
  profile_ids?: string[];
  /** The reference's blended_type (interlock or control), when the request gave one. */
  blended_type?: 'interlock' | 'control';
  targets: BlendedTarget[];
}

export type Profile = RegularProfile | BlendedProfile;

/** Ids of the regular profiles a blended profile combines (none for a regular or a spec-shaped blended profile). */
export const combinedProfileIds = (profile: Profile): readonly string[] => (profile.object === 'blended' ? profile.profile_ids ?? [] : []);
