// The reference as an oracle must be able to say no: a field it does not name is reported, though the
// reference leaves additionalProperties open, at any depth and through oneOf branches.
import { describe, expect, it } from 'vitest';
import { SPEC_STATED_ANSWER_FIELDS, answerProblems, referenceAvailable, requestProblems } from './reference-openapi';

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

describe.skipIf(!referenceAvailable)('the reference as a strict oracle for answers', () => {
  const job = { job_id: '01JPVZD75DW4KRP7MPFMF6KGZX', status: 'Completed', created_at: '2027-01-04T00:00:00Z', created_by: '5b0f3c2e-8d1a-4e6b-9c7f-2a4d6e8f0b13' };

  it('fails a field the reference does not declare, at any depth, in both dialects', () => {
    expect(answerProblems('get_launch_fielding_run_from_draft_job', 200, job, 'cint')).toEqual([]);
    expect(answerProblems('get_launch_fielding_run_from_draft_job', 200, { ...job, completed_at: '2027-01-04T00:00:01Z' }, 'spec')).toEqual(['(body) has completed_at, a field the reference does not declare']);
    const list = { respondent_activity_exclusions: [{ type: 'project', id: '01JPVZD75DW4KRP7MPFMF6KGZX', duration: 'P30D', duration_days: 30 }] };
    expect(answerProblems('get_target_group_respondent_activity_exclusions', 200, { ...list, duration: 'P30D' }, 'cint')).toEqual([
      '/respondent_activity_exclusions/0 has duration_days, a field the reference does not declare',
      '(body) has duration, a field the reference does not declare',
    ]);
  });

  it('lets a spec-stated field (each citing its spec line) through in the spec dialect only', () => {
    expect(SPEC_STATED_ANSWER_FIELDS.every((f) => /^line \d+/.test(f.spec))).toBe(true);
    const range = { suggested_start: '2027-01-04T00:00:00.000Z', suggested_end: '2027-01-06T23:59:59.999Z' };
    expect(answerProblems('suggest_time_range', 200, range, 'spec')).toEqual([]);
    expect(answerProblems('suggest_time_range', 200, range, 'cint')).toEqual([
      '(body) has suggested_start, a field the reference does not declare',
      '(body) has suggested_end, a field the reference does not declare',
    ]);
    // Allowed where the spec states it, not elsewhere: suggest-time-range's locale and days are nobody's.
    expect(answerProblems('suggest_time_range', 200, { ...range, locale: 'eng_us', days: 3 }, 'spec')).toEqual([
      '(body) has locale, a field the reference does not declare',
      '(body) has days, a field the reference does not declare',
    ]);
  });

  it('reads the spec\'s event name and the list without name in the spec dialect only', () => {
    const hook = { id: '01JPVZD75DW4KRP7MPFMF6KGZX', url: 'https://hooks.example.com/h', events: ['com.svc.session.updated'], created_at: '2027-01-04T00:00:00Z', updated_at: '2027-01-04T00:00:00Z' };
    expect(answerProblems('get_webhook', 200, hook, 'spec')).toEqual([]);
    expect(answerProblems('get_webhook', 200, hook, 'cint')).toEqual(['/events/0 must be equal to one of the allowed values']);
  });
});
