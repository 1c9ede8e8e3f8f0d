// The reference as an oracle must be able to say no: a field it does not name is reported, though the
// reference leaves additionalProperties open, at any depth and through oneOf branches.
import { describe, expect, it } from 'vitest';
import { referenceAvailable, requestProblems } from './reference-openapi';

const draft = {
  name: 'Oracle draft', business_unit_id: '2001', locale: 'eng_us', collects_pii: false, completes_goal: 100,
  project_manager_id: '6f1c2a4e-3001-4c8e-9d2b-000000003001', expected_incidence_rate: 0.5, expected_length_of_interview_minutes: 10,
  fielding_specification: { start_at: '2027-01-04T00:00:00Z', end_at: '2027-02-01T00:00:00Z' }, fielding_assistant_assignment: {},
  allocations: { open_exchange_allocations: { exchange_min_percentage: 0, exchange_max_percentage: 100, blocked_supplier_ids: [], groups: [] } },
};

describe.skipIf(!referenceAvailable)('the reference as an oracle for request bodies', () => {
  it('passes a draft that names only its fields, and reports every field it does not name, where it stands', () => {
    expect(requestProblems('create_target_group', draft)).toEqual([]);
    expect(requestProblems('create_target_group', { ...draft, pricing_model: 'rate_card' })).toEqual(['(body) has pricing_model, a field the reference does not name']);
    expect(requestProblems('create_target_group', { ...draft, fielding_specification: { ...draft.fielding_specification, timezone: 'UTC' } })).toEqual([
      '/fielding_specification has timezone, a field the reference does not name',
    ]);
  });

  it('follows oneOf branches: a field any branch names passes, one that none names is reported', () => {
    const profile = { object: 'regular', quotas_enabled: true, targets: [{ name: 'm', conditions: [{ object: 'selection', question_id: 43, option: '1' }], quota: { completes_goal: 50 } }] };
    const feasibility = { business_unit_id: 2001, locale: 'eng_us', completes_goal: 100, expected_incidence_rate: 0.5, expected_length_of_interview_minutes: 10, fielding_specification: draft.fielding_specification };
    const problems = (p: unknown) => requestProblems('calculate_target_group_feasibility', { ...feasibility, profiling: { profile_adjustment_type: 'nominal', profiles: [p] } }).filter((x) => x.includes('does not name'));
    expect(problems(profile)).toEqual([]);
    expect(problems({ ...profile, name: 'Gender' })).toEqual(['/profiling/profiles/0 has name, a field the reference does not name']);
    expect(problems({ ...profile, targets: [{ ...profile.targets[0], quota: { completes_goal: 50, name: 'm' } }] })).toEqual(['/profiling/profiles/0/targets/0/quota has name, a field the reference does not name']);
  });
});
