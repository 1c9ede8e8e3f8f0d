// THE table of in-place changes: for every field of a target group that a buyer can change in the study
// file, which of the reference's operations carries it once the target group is launched, or why the
// exchange cannot change it. plan/live-plan.ts plans from it; a field added to DesiredTargetGroup or to the
// draft body without a row here does not compile (and a test holds the same at run time).
import type { DraftField } from './desired';
import type { DesiredTargetGroup, ExchangeOperation } from './types';

export type LiveRoute =
  /** The operation carries the field in place. */
  | { kind: 'operation'; operation: ExchangeOperation; note?: string }
  /** The exchange has no operation that changes it after the launch: a change is blocked, with this reason. */
  | { kind: 'blocked'; reason: string }
  /** The declared fielding state: pause, resume, complete or relaunch (plan/live-fielding.ts). */
  | { kind: 'fielding' }
  /** studyflow's own setting: nothing in the exchange holds it, so nothing is written. */
  | { kind: 'studyflow'; note: string };

/** A field of the table: a draft field (`draft.<name>`), a field of the desired target group, or the quota goals. */
export type LiveField = `draft.${DraftField}` | Exclude<keyof DesiredTargetGroup, 'draft'> | 'profiles.completes_goal';

const op = (operation: ExchangeOperation, note?: string): LiveRoute => (note ? { kind: 'operation', operation, note } : { kind: 'operation', operation });
const blocked = (reason: string): LiveRoute => ({ kind: 'blocked', reason });
const studyflow = (note: string): LiveRoute => ({ kind: 'studyflow', note });
const details = op('update_launched_target_group_details');

export const LIVE_CHANGES: Readonly<Record<LiveField, LiveRoute>> = {
  'draft.name': details,
  'draft.live_url': details,
  'draft.test_url': details,
  'draft.project_manager_id': details,
  'draft.expected_length_of_interview_minutes': details,
  'draft.expected_incidence_rate': details,
  'draft.target_group_customer_reference_number': details,
  'draft.client_cost_per_interview_note': details,
  'draft.filling_goal': op('update_profile_filling_goal', 'the total completes goal; the exchange recalculates percentage quotas'),
  'profiles.completes_goal': op('update_profile_filling_goal', 'nominal quota goals, by profile and quota name'),
  'draft.fielding_specification': op('update_fielding_run', 'start and end, with If-Match; the start only while the run is scheduled'),
  costPerInterview: op('update_cost_per_interview'),
  'draft.allocations': op('update_target_group_allocation_specification'),
  'draft.fielding_assistant_assignment': op('create_or_update_fielding_assistant_assignment', 'the whole assignment replaces the old one, with If-Match'),
  'draft.profiling': op('manage_target_group_profiles', 'replaces every profile: questions and conditions'),
  profiles: op('manage_target_group_profiles', 'replaces every profile: questions and conditions'),
  profileTemplateIds: op('manage_target_group_profiles', 'the template travels in the profiling'),
  activityExclusions: op('set_target_group_respondent_activity_exclusions', 'affects future respondents only'),
  idLists: op('exclusion_create_upload_rids_by_file_job'),
  recontact: op('recontact_create_upload_respondents_by_file_job'),
  exclusionGroups: op('add_target_groups_to_exclusion_group', 'and remove_target_groups_from_exclusion_group'),
  fielding: { kind: 'fielding' },
  'draft.locale': blocked(
    'the country and language (locale) are fixed at creation: no operation for a launched target group takes a locale; field a new target group for another market',
  ),
  'draft.business_unit_id': blocked('the business unit is fixed at creation: no operation for a launched target group takes business_unit_id'),
  'draft.collects_pii': blocked('collects_pii is fixed at creation: update_launched_target_group_details does not take it'),
  'draft.study_type_code': blocked('the study type is fixed at creation: no operation for a launched target group takes study_type_code'),
  expected: blocked('the exchange sets the pricing model and type from the business unit; studyflow cannot write them'),
  key: studyflow('the local key names the target group in the study; the exchange holds it in the customer reference number'),
  movedFrom: studyflow('a renamed key: the target group is updated in place, its reference number through update_launched_target_group_details'),
  launch: studyflow('launch rules gate studyflow\'s own launches and in-place checks; a launched target group does not launch again'),
  timing: studyflow('job polling and retries of studyflow\'s workflows'),
  guards: studyflow('guards are judged by studyflow\'s watch over its own readings (plan/guards.ts); a changed guard re-arms, nothing is written'),
  softLaunch: studyflow('the soft launch is judged by studyflow\'s watch over its own readings (plan/soft-launch.ts); it shapes the launch, and a launched target group does not launch again'),
  notify: studyflow('the notification targets are studyflow\'s own (variable names its workflows send to); nothing in the exchange holds them'),
};

/** The route of a field, e.g. `liveRoute('draft.filling_goal')`. */
export function liveRoute(field: LiveField): LiveRoute {
  return LIVE_CHANGES[field];
}

/** The route of a draft field by its bare name (`filling_goal`), or undefined for a name the draft does not carry. */
export function draftFieldRoute(field: string): LiveRoute | undefined {
  return Object.hasOwn(LIVE_CHANGES, `draft.${field}`) ? LIVE_CHANGES[`draft.${field}` as LiveField] : undefined;
}
