// The client's side of the dialect table (shared/api-dialect.ts): which header names, field names and wire
// schemas each profile speaks at the boundary. `sandbox` speaks the spec, deviations included; `cint` the
// reference, exactly. The operations ask `speaksSpec` (or the helpers below) and nothing else.
import { speaksSpec } from '../../shared/api-dialect';
import type { ApiProfileName } from '../../shared/api-profile';
import type { ApiVersion } from '../../shared/api-version';

export { API_PROFILES, DEFAULT_API_PROFILE, type ApiProfileName } from '../../shared/api-profile';
export { DEVIATIONS, speaksSpec, type Deviation, type DeviationName } from '../../shared/api-dialect';

/** The header names of a profile. */
export function profileHeaders(profile: ApiProfileName): { versionHeader: string; signatureHeader: string } {
  return {
    versionHeader: speaksSpec(profile, 'version_header') ? 'Svc-API-Version' : 'Cint-API-Version',
    signatureHeader: speaksSpec(profile, 'signature_header') ? 'Svc-Signature' : 'Cint-Signature',
  };
}

/** The name of the wanted completes on draft create/update and feasibility requests. */
export function completesGoalField(profile: ApiProfileName): 'filling_goal' | 'completes_goal' {
  return speaksSpec(profile, 'filling_goal') ? 'filling_goal' : 'completes_goal';
}

/**
 * A request body with studyflow's `filling_goal` (the buyer's word, and the spec's) under the profile's name.
 * The input is not modified.
 */
export function withGoalFieldOut<T extends Record<string, unknown>>(profile: ApiProfileName, body: T): Record<string, unknown> {
  if (completesGoalField(profile) === 'filling_goal' || !('filling_goal' in body)) return body;
  const { filling_goal: goal, ...rest } = body;
  return { ...rest, completes_goal: goal };
}

/**
 * A draft or feasibility body (already in the version's other names) with the wanted completes under the
 * version's name: before 2025-12-18 the goal of a target group is `filling_goal` in either dialect (2025-12-18
 * renamed it `completes_goal`, as it renamed the quotas' goal; the spec's rename table). The input is not modified.
 */
export function goalFieldInVersion(body: Record<string, unknown>, version: ApiVersion): Record<string, unknown> {
  if (version === '2025-12-18' || !('completes_goal' in body)) return body;
  const { completes_goal: goal, ...rest } = body;
  return { ...rest, filling_goal: goal };
}

/** The profile a client speaks: its config's, `sandbox` for a config built without one (test doubles). */
export function profileOfConfig(config: { readonly profile?: ApiProfileName }): ApiProfileName {
  return config.profile ?? 'sandbox';
}

/** The spec's default statuses of an activity-exclusion item, and what the reference's items (which have none) exclude. */
export const DEFAULT_RESPONDENT_STATUSES: readonly string[] = ['Complete'];

const isDefaultStatuses = (value: unknown) => Array.isArray(value) && value.length === 1 && value[0] === DEFAULT_RESPONDENT_STATUSES[0];

/**
 * Activity-exclusion items as a profile sends them. Under a profile without `respondent_statuses` an item's
 * `[Complete]` (the study format's default, and what the reference's items exclude) is left out; any other set stays,
 * for the request schema to refuse (a study asking for other statuses gets SF4305 from validate first).
 */
export function activityItemsOut(profile: ApiProfileName, items: unknown): unknown {
  if (speaksSpec(profile, 'respondent_statuses') || !Array.isArray(items)) return items;
  return items.map((item) => {
    if (typeof item !== 'object' || item === null || !isDefaultStatuses((item as Record<string, unknown>).respondent_statuses)) return item;
    const { respondent_statuses: _default, ...rest } = item as Record<string, unknown>;
    return rest;
  });
}

/** Activity-exclusion items as read: under a profile without `respondent_statuses`, an item excludes `[Complete]`. */
export function activityItemsIn(profile: ApiProfileName, items: unknown): unknown {
  if (speaksSpec(profile, 'respondent_statuses') || !Array.isArray(items)) return items;
  return items.map((item) =>
    typeof item === 'object' && item !== null && !('respondent_statuses' in item) ? { ...item, respondent_statuses: [...DEFAULT_RESPONDENT_STATUSES] } : item,
  );
}

/** A body whose `respondent_activity_exclusions` are sent (or read) in the profile's dialect. */
export function withActivityItems(profile: ApiProfileName, body: Record<string, unknown>, direction: 'out' | 'in'): Record<string, unknown> {
  if (!Array.isArray(body.respondent_activity_exclusions)) return body;
  const items = direction === 'out' ? activityItemsOut(profile, body.respondent_activity_exclusions) : activityItemsIn(profile, body.respondent_activity_exclusions);
  return { ...body, respondent_activity_exclusions: items };
}
