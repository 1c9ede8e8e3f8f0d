// THE table of in-place changes (plan/live-changes.ts): each row maps its field to the reference's
// operation, or blocks it with the exchange's reason; and every field a study file can give a target group
// has a row, so a new field cannot be forgotten.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { quotaGoalsOf } from '../../plan/live-steps';
import { loadStudyText } from '../../definitions';
import { DRAFT_FIELDS, desiredStudyOf } from '../../plan/desired';
import { draftFieldRoute, LIVE_CHANGES, liveRoute, type LiveField } from '../../plan/live-changes';

const OPERATION_ROWS: [LiveField, string][] = [
  ['draft.name', 'update_launched_target_group_details'],
  ['draft.live_url', 'update_launched_target_group_details'],
  ['draft.test_url', 'update_launched_target_group_details'],
  ['draft.project_manager_id', 'update_launched_target_group_details'],
  ['draft.expected_length_of_interview_minutes', 'update_launched_target_group_details'],
  ['draft.expected_incidence_rate', 'update_launched_target_group_details'],
  ['draft.target_group_customer_reference_number', 'update_launched_target_group_details'],
  ['draft.client_cost_per_interview_note', 'update_launched_target_group_details'],
  ['draft.filling_goal', 'update_profile_filling_goal'],
  ['profiles.completes_goal', 'update_profile_filling_goal'],
  ['draft.fielding_specification', 'update_fielding_run'],
  ['costPerInterview', 'update_cost_per_interview'],
  ['draft.allocations', 'update_target_group_allocation_specification'],
  ['draft.fielding_assistant_assignment', 'create_or_update_fielding_assistant_assignment'],
  ['draft.profiling', 'manage_target_group_profiles'],
  ['profiles', 'manage_target_group_profiles'],
  ['profileTemplateIds', 'manage_target_group_profiles'],
  ['activityExclusions', 'set_target_group_respondent_activity_exclusions'],
  ['idLists', 'exclusion_create_upload_rids_by_file_job'],
  ['recontact', 'recontact_create_upload_respondents_by_file_job'],
  ['exclusionGroups', 'add_target_groups_to_exclusion_group'],
];
const BLOCKED_ROWS: [LiveField, RegExp][] = [
  ['draft.locale', /country and language/],
  ['draft.business_unit_id', /business unit/],
  ['draft.collects_pii', /collects_pii/],
  ['draft.study_type_code', /study type/],
  ['expected', /pricing model/],
];
const STUDYFLOW_ROWS: LiveField[] = ['key', 'movedFrom', 'launch', 'timing', 'guards', 'softLaunch', 'notify'];

describe('LIVE_CHANGES', () => {
  it.each(OPERATION_ROWS)('%s is carried by %s', (field, operation) => {
    expect(liveRoute(field)).toMatchObject({ kind: 'operation', operation });
  });

  it.each(BLOCKED_ROWS)('%s is blocked, saying why', (field, why) => {
    const route = liveRoute(field);
    expect(route.kind).toBe('blocked');
    expect(route.kind === 'blocked' && route.reason).toMatch(why);
  });

  it.each(STUDYFLOW_ROWS)('%s is studyflow\'s own: nothing is written', (field) => {
    expect(liveRoute(field).kind).toBe('studyflow');
  });

  it('fielding is the declared state (pause, resume, complete, relaunch)', () => {
    expect(liveRoute('fielding')).toEqual({ kind: 'fielding' });
  });

  it('has exactly the rows above: every row is tested', () => {
    const tested = [...OPERATION_ROWS.map(([f]) => f), ...BLOCKED_ROWS.map(([f]) => f), ...STUDYFLOW_ROWS, 'fielding'];
    expect([...tested].sort()).toEqual(Object.keys(LIVE_CHANGES).sort());
  });

  it('finds a draft field by its bare name, and nothing for a name the draft does not carry', () => {
    expect(draftFieldRoute('end_fielding_at')).toBeUndefined();
    expect(draftFieldRoute('live_url')).toMatchObject({ operation: 'update_launched_target_group_details' });
    for (const field of DRAFT_FIELDS) expect(draftFieldRoute(field), field).toBeDefined();
  });

  it('has a row for every field of a target group made from a study file that sets every field', async () => {
    const text = `format: studyflow/v1
study: every-field
account: "1001"
business_unit: "2001"
project: { name: Every field project }
exclusion_groups: { trackers: { target_groups: [us] } }
notify: [{ url: "\${SLACK_WEBHOOK_URL}", events: [drift_found] }]
target_groups:
  us:
    moved_from: us_old
    name: US every field
    live_url: https://survey.example.com/s?rid=[%RID%]
    test_url: https://survey.example.com/s?rid=[%RID%]&test=1
    locale: en_US
    expected_incidence_rate: 0.5
    expected_length_of_interview_minutes: 10
    filling_goal: 100
    project_manager_id: "6f1c2a4e-3001-4c8e-9d2b-000000003001"
    collects_pii: false
    study_type: tracker
    pricing_model: rate_card
    type: rate_card
    client_cost_per_interview_note: { value: "2.50", currency_code: USD }
    cost_per_interview: { value: "3.10", currency_code: USD }
    fielding: paused
    start_fielding_at: 2027-01-04T00:00:00Z
    end_fielding_at: 2027-01-20T00:00:00Z
    allocations: { open_exchange_allocations: { exchange_max_percentage: 90 } }
    fielding_assistant_assignment: { quota_overlay: { prevent_overfill: true, balance_fill: false } }
    launch: { mode: auto, at: 2027-01-04T08:00:00-05:00 }
    timing: { job_poll_initial: 2s }
    guards: { stalled: { no_completes_for: P2D } }
    soft_launch: { completes: 10, max_duration: P1D }
    profile_templates: [{ id: 0b7c3f6e-5a41-4c1e-9a6d-1f2e3d4c5b02 }]
    profiles:
      - object: regular
        name: gender
        quotas_enabled: true
        targets:
          - conditions: [{ object: selection, question_id: 43, option: "1" }]
            quota: { name: men, completes_goal_percentage: 50 }
          - conditions: [{ object: selection, question_id: 43, option: "2" }]
            quota: { name: women, completes_goal_percentage: 50 }
    exclusions:
      activity: { items: [{ project: self }] }
`;
    const loaded = await loadStudyText(text, path.join(process.cwd(), 'every-field.yaml'), { env: {} });
    expect(loaded.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    const ref = { ref: 'blob://x', sha256: 'a'.repeat(64), count: 3 };
    const [tg] = desiredStudyOf(loaded.study!.study, { us: { RSID: ref, recontact: ref } }).targetGroups;
    const fields = [...Object.keys(tg).filter((k) => k !== 'draft'), ...Object.keys(tg.draft).map((k) => `draft.${k}`)];
    const missing = fields.filter((f) => !Object.hasOwn(LIVE_CHANGES, f));
    expect(missing).toEqual([]);
    // The study sets every field the table knows (but the quota goals, a part of the profiles): the check above is complete.
    const unset = Object.keys(LIVE_CHANGES).filter((f) => f !== 'profiles.completes_goal' && !fields.includes(f));
    expect(unset).toEqual([]);
  });
});

describe('quota goals of a launched target group (quotaGoalsOf)', () => {
  const observed = [
    { profileId: 'p-age', profileName: 'Age', quotaId: 't-young', quotaName: '18-34', completesGoal: 40 },
    { profileId: 'p-age', profileName: 'Age', quotaId: 't-old', quotaName: '35+', completesGoal: 60 },
  ];

  it('writes each changed quota goal by the profile and target ids observe read with its names', () => {
    const changes = [
      { field: 'filling_goal', to: 120 },
      { field: 'profiles.Age.18-34.completes_goal', to: 50 },
    ];
    expect(quotaGoalsOf(changes, observed)).toEqual([{ field: 'profiles.Age.18-34.completes_goal', profileId: 'p-age', targetId: 't-young', completesGoal: 50 }]);
  });

  it('leaves out a quota the exchange does not show by that name (the step names it unwritable: plan/live-requests.ts)', () => {
    expect(quotaGoalsOf([{ field: 'profiles.Age.65+.completes_goal', to: 10 }], observed)).toEqual([]);
    expect(quotaGoalsOf([{ field: 'profiles.Gender.Female.completes_goal', to: 10 }], observed)).toEqual([]);
  });
});
