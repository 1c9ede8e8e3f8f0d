// The spec's deviations from the published reference, each mapped to the connection profiles that speak it
// (DESIGN.md, "Where the spec says not shown, and the two dialects"): `sandbox` speaks the spec, deviations
// included; `cint` the reference, exactly. The one table: the client's operations ask it through
// api/http/dialect.ts, the study checks (definitions/) through `speaksSpec`, docs/api-conventions.md shows
// it and a unit test keeps the two equal. Pure; imports nothing outside this folder.
import { SESSION_UPDATED_EVENT, type ApiProfileName } from './api-profile';

/** The deviations, by name. */
export type DeviationName =
  | 'filling_goal'
  | 'price_prediction_get'
  | 'suggested_time_range'
  | 'respondent_statuses'
  | 'webhook_compression'
  | 'target_group_type'
  | 'target_group_list_name'
  | 'calendar_error_objects'
  | 'version_header'
  | 'signature_header'
  | 'session_event';

/** One place where the spec says something else than the reference. */
export interface Deviation {
  name: DeviationName;
  /** The operations (or the part of the wire) it touches. */
  where: string;
  /** What the spec says (what the profiles below send or read). */
  spec: string;
  /** What the reference says (what every other profile sends or reads). */
  reference: string;
  /** The profiles that speak the spec's form. */
  profiles: readonly ApiProfileName[];
}

export const DEVIATIONS: readonly Deviation[] = [
  {
    name: 'filling_goal',
    where: 'request bodies of `create_target_group`, `update_target_group`, `calculate_target_group_feasibility`',
    spec: '`filling_goal`',
    reference: '`completes_goal`',
    profiles: ['sandbox'],
  },
  {
    name: 'price_prediction_get',
    where: '`generate_price_prediction`',
    spec: 'GET with the config as query `type=rate_card, country_code, expected_incidence_rate, expected_length_of_interview_minutes`',
    reference: 'POST `{config: {type: rate_card, country_code, expected_incidence_rate, expected_length_of_interview_minutes}}`',
    profiles: ['sandbox'],
  },
  {
    name: 'suggested_time_range',
    where: 'answer of `suggest_time_range`',
    spec: '`suggested_start`, `suggested_end`',
    reference: '`start`, `end`',
    profiles: ['sandbox'],
  },
  {
    name: 'respondent_statuses',
    where: 'activity-exclusion items (draft create and update, `set_target_group_respondent_activity_exclusions`)',
    spec: '`respondent_statuses`',
    reference: 'none: a study that asks for statuses is refused under `cint`',
    profiles: ['sandbox'],
  },
  {
    name: 'webhook_compression',
    where: '`create_webhook`, `update_webhook`, `get_webhooks`',
    spec: '`compression` (`gzip` or null), sent on every create and update',
    reference: 'none: not sent; a study that asks for `gzip` is refused under `cint`',
    profiles: ['sandbox'],
  },
  {
    name: 'target_group_type',
    where: 'answers of `get_target_group`, `get_target_group_overview`',
    spec: 'carry `type`',
    reference: 'no `type` (read where present, never required)',
    profiles: ['sandbox'],
  },
  {
    name: 'target_group_list_name',
    where: 'items of `get_list_target_groups`',
    spec: '`name` left out from 2025-12-18',
    reference: '`name` required',
    profiles: ['sandbox'],
  },
  {
    name: 'calendar_error_objects',
    where: 'errors of `suggest_time_range`, `suggest_days`',
    spec: 'objects `bad_request`, `unauthorized`, `internal_server_error`',
    reference: 'the `Error` objects (`bad_request_error`, …)',
    profiles: ['sandbox'],
  },
  {
    name: 'version_header',
    where: 'every `/v1` request',
    spec: '`Svc-API-Version`',
    reference: '`Cint-API-Version`',
    profiles: ['sandbox'],
  },
  {
    name: 'signature_header',
    where: 'webhook deliveries',
    spec: '`Svc-Signature`',
    reference: '`Cint-Signature`',
    profiles: ['sandbox'],
  },
  {
    name: 'session_event',
    where: 'webhook event names (study files, webhook create and update, deliveries)',
    spec: `\`${SESSION_UPDATED_EVENT.sandbox}\``,
    reference: `\`${SESSION_UPDATED_EVENT.cint}\` (and \`quota-fill-registered\`, which the spec does not show)`,
    profiles: ['sandbox'],
  },
];

const BY_NAME = new Map(DEVIATIONS.map((d) => [d.name, d]));

/** Whether the profile speaks the spec's form of the deviation (else the reference's). */
export function speaksSpec(profile: ApiProfileName, name: DeviationName): boolean {
  const deviation = BY_NAME.get(name);
  if (!deviation) throw new Error(`no deviation named ${name}`);
  return deviation.profiles.includes(profile);
}

