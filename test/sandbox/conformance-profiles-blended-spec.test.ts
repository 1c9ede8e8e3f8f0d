// Spec: Resources › Profile (2025-12-18 shape: object regular or blended; targets with conditions and
// quota; duplicate selection or range conditions are rejected), Versioning (interlocked_profiles ->
// profiles entries with object = blended). The spec shows no fields of blended profiles beyond the
// common ones, so the sandbox accepts a blended profile in that shape: targets whose conditions combine
// several questions, no profile_ids (docs/sandbox.md › Profiles). The sandbox's own combining form
// (profile_ids, source_target_ids) keeps working beside it. Also here: locale-bound questions of the
// catalogue (96, US region), which the shipped examples use.
import { describe, expect, it } from 'vitest';
import { useTestSandbox } from '../fixtures/sandbox';
import { P, V_MID, V_OLD, draftBody, paramNames } from './sandbox-test-client';

const { api } = useTestSandbox({ resetBeforeEach: true, faultsBeforeEach: { job_duration_ms: 20 } });

type Condition = Record<string, unknown>;
const gender = (option: string): Condition => ({ object: 'selection', question_id: 43, option });
const age = (min: number, max: number): Condition => ({ object: 'range', question_id: 42, min, max });
const cell = (id: string, conditions: Condition[], quota?: Record<string, unknown>) => ({ id, conditions, ...(quota ? { quota } : {}) });

/** Age x gender cells as one blended profile in the spec's shape (filling goal 200: 50 each). */
const ageGender = (overrides: Record<string, unknown> = {}) => ({
  object: 'blended',
  id: 'age_gender',
  name: 'Age x gender',
  quotas_enabled: true,
  targets: [
    cell('m_young', [gender('1'), age(18, 44)], { name: 'men_18_44', completes_goal_percentage: 25 }),
    cell('m_old', [gender('1'), age(45, 99)], { name: 'men_45_plus', completes_goal_percentage: 25 }),
    cell('f_young', [gender('2'), age(18, 44)], { name: 'women_18_44', completes_goal_percentage: 25 }),
    cell('f_old', [gender('2'), age(45, 99)], { name: 'women_45_plus', completes_goal_percentage: 25 }),
  ],
  ...overrides,
});
const kids = () => ({
  object: 'regular',
  id: 'kids',
  name: 'Kids',
  quotas_enabled: false,
  targets: [
    { id: 'yes', conditions: [{ object: 'selection', question_id: 7064, option: '1' }] },
    { id: 'no', conditions: [{ object: 'selection', question_id: 7064, option: '2' }] },
  ],
});
const education = () => ({
  object: 'regular',
  id: 'education',
  name: 'Education',
  quotas_enabled: false,
  targets: [
    { id: 'school', conditions: [{ object: 'selection', question_id: 633, option: '1' }] },
    { id: 'degree', conditions: [{ object: 'selection', question_id: 633, option: '3' }] },
  ],
});

/** The adjustment type the quotas of a set use: nominal when one gives completes_goal. */
const adjustmentOf = (profiles: unknown[]) =>
  JSON.stringify(profiles).includes('"completes_goal":') ? 'nominal' : 'percentage';
/** validate_profiles in 2025-12-18: `{locale, completes_goal, profiling}`. */
const validate = ({ profiles, locale = 'eng_us' }: { profiles: unknown[]; locale?: string }) =>
  api.req('POST', `${P()}/profiles/validate`, { body: { locale, completes_goal: 200, profiling: { profile_adjustment_type: adjustmentOf(profiles), profiles } } });
/** The problems of a validate 422 (ValidationErrorResponseDemographics): each reason and the param it names. */
const problems = (res: { status: number; body: any }) => [
  res.status,
  (res.body.invalid_params ?? []).map((p: { reason: string }) => p.reason),
  (res.body.invalid_params ?? []).map((p: { error_type: string; name: string; detail: string }) => (p.error_type === 'structural_error' ? p.name : p.detail.split(': ')[0])),
];
/** A draft's profiles travel in its profiling: PUT the draft with it, then read what it stores (GET's profiling). */
async function manage(tgPath: string, profiles: unknown[], overrides: Record<string, unknown> = {}) {
  const put = await api.req('PUT', tgPath, { body: { ...draftBody(overrides), profiling: { profile_adjustment_type: adjustmentOf(profiles), profiles } } });
  if (put.status !== 204) return put;
  return { status: put.status, text: put.text, body: { profiles: (await api.req('GET', tgPath)).body.profiling?.profiles ?? [] } };
}

describe('Profiles › blended profiles in the spec shape (conditions on several questions, no profile_ids)', () => {
  it('a draft\'s profiling accepts one beside a regular profile and renders it back in the same shape', async () => {
    const { tgPath } = await api.projectWithTargetGroup();
    const res = await manage(tgPath, [ageGender(), kids()]);
    expect(res.status, res.text).toBe(204);
    const blended = res.body.profiles[0];
    expect(Object.keys(blended).sort()).toEqual(['description', 'description_translated', 'id', 'name', 'object', 'quotas_enabled', 'targets']);
    expect(blended).toMatchObject({ object: 'blended', id: 'age_gender', name: 'Age x gender', quotas_enabled: true, description: 'What is your gender? / What is your age?' });
    expect(blended.targets.map((t: { id: string }) => t.id)).toEqual(['m_young', 'm_old', 'f_young', 'f_old']);
    expect(blended.targets[0]).toEqual({
      id: 'm_young',
      text: 'Male / 18-44',
      text_translated: 'Male / 18-44',
      conditions: [gender('1'), age(18, 44)],
      quota: { name: 'men_18_44', completes_goal_percentage: 25, completes_goal: 50, quota_nominal: 50 },
    });
    expect(blended.targets[1].quota).toMatchObject({ completes_goal: 50, completes_goal_percentage: 25 });
    expect(blended.targets.every((t: Record<string, unknown>) => !('source_target_ids' in t))).toBe(true);
    // The same request again leaves the set as it was; blended_type is kept when given.
    expect((await manage(tgPath, [ageGender(), kids()])).body.profiles).toEqual(res.body.profiles);
    const control = await manage(tgPath, [ageGender({ blended_type: 'interlock' }), kids()]);
    expect(control.body.profiles[0].blended_type).toBe('interlock');
    expect((await manage(tgPath, [ageGender({ blended_type: 'other' })])).status).toBe(400);
  });

  it('texts default to the target group locale; the same option may appear in several targets', async () => {
    const { tgPath } = await api.projectWithTargetGroup({ locale: 'ger_de' });
    const res = await manage(tgPath, [ageGender()], { locale: 'ger_de' });
    expect(res.status, res.text).toBe(204);
    expect(res.body.profiles[0]).toMatchObject({ description: 'Welches Geschlecht haben Sie? / Wie alt sind Sie?', description_translated: 'What is your gender? / What is your age?' });
    expect(res.body.profiles[0].targets[2]).toMatchObject({ text: 'Weiblich / 18-44', text_translated: 'Female / 18-44' });
  });

  it('checks every condition against the question catalogue and the locale, like a regular profile', async () => {
    const check = async (conditions: Condition[], reason: string, param: string) => {
      const profile = ageGender({ quotas_enabled: false, targets: [cell('a', conditions)] });
      const res = await validate({ profiles: [profile] });
      expect(problems(res), res.text).toEqual([422, [reason], [param]]);
    };
    await check([gender('1'), { object: 'selection', question_id: 999_999, option: '1' }], 'invalid_question_id_015', 'profiles[0].targets[0].conditions[1].question_id');
    await check([gender('9'), age(18, 30)], 'not_supported_question_option_020', 'profiles[0].targets[0].conditions[0].option');
    await check([gender('1'), age(10, 30)], 'invalid_condition', 'profiles[0].targets[0].conditions[1]');
    await check([gender('1'), { object: 'range', question_id: 43, min: 1, max: 2 }], 'invalid_condition', 'profiles[0].targets[0].conditions[1].object');
    await check([gender('1'), { object: 'open_ended', question_id: 45, allow_all_values: false, open_ended_values: ['ABCDE'] }], 'invalid_zip_code_018', 'profiles[0].targets[0].conditions[1].zip_codes');
    const shape = await validate({ profiles: [ageGender({ targets: [cell('a', [])] })] });
    expect([shape.status, paramNames(shape)]).toEqual([400, ['profiles[0].targets[0].conditions']]);
  });

  it('removes duplicate zip codes (open-ended values of the postal-code question) within a target silently', async () => {
    const { tgPath } = await api.projectWithTargetGroup();
    const zips = (codes: string[]) => ({ object: 'open_ended', question_id: 45, allow_all_values: false, open_ended_values: codes });
    const res = await manage(tgPath, [ageGender({ quotas_enabled: false, targets: [cell('a', [gender('1'), zips(['10001', '10001']), zips(['10001', '10002'])])] })]);
    expect(res.status, res.text).toBe(204);
    expect(res.body.profiles[0].targets[0].conditions).toEqual([gender('1'), zips(['10001']), zips(['10002'])]);
  });

  it('rejects a selection or range condition twice in one target (422 duplicate_condition, naming the later one)', async () => {
    const twiceSelected = await validate({ profiles: [ageGender({ quotas_enabled: false, targets: [cell('a', [gender('1'), age(18, 30), gender('1')])] })] });
    expect(problems(twiceSelected)).toEqual([422, ['duplicate_condition_039'], ['profiles[0].targets[0].conditions[2]']]);
    const twiceRanged = await validate({ profiles: [ageGender({ quotas_enabled: false, targets: [cell('a', [age(18, 30), gender('2'), age(18, 30)])] })] });
    expect(problems(twiceRanged)).toEqual([422, ['duplicate_condition_039'], ['profiles[0].targets[0].conditions[2]']]);
    // Another range on the same question is an alternative, not a duplicate.
    expect((await validate({ profiles: [ageGender({ quotas_enabled: false, targets: [cell('a', [age(18, 30), gender('2'), age(31, 40)])] })] })).status).toBe(204);
  });

  it('rejects two targets with the same conditions, in any order', async () => {
    const res = await validate({ profiles: [ageGender({ quotas_enabled: false, targets: [cell('a', [gender('1'), age(18, 30)]), cell('b', [gender('2'), age(18, 30)]), cell('c', [age(18, 30), gender('1')])] })] });
    expect(problems(res)).toEqual([422, ['duplicate_condition_039'], ['profiles[0].targets[2].conditions']]);
  });

  it('refuses source_target_ids without profile_ids (400)', async () => {
    const res = await validate({ profiles: [ageGender({ quotas_enabled: false, targets: [{ ...cell('a', [gender('1'), age(18, 30)]), source_target_ids: ['x', 'y'] }] })] });
    expect([res.status, paramNames(res)]).toEqual([400, ['profiles[0].targets[0].source_target_ids']]);
  });

  it('checks quotas like a regular profile: required, consistent, within the filling goal, adding up to it', async () => {
    const targets = ageGender().targets;
    const withQuotas = (quotas: (Record<string, unknown> | undefined)[]) => ageGender({ targets: targets.map((t, i) => ({ ...t, quota: quotas[i] })) });
    const missing = await validate({ profiles: [withQuotas([{ completes_goal: 50 }, { completes_goal: 50 }, { completes_goal: 50 }, undefined])] });
    expect(problems(missing)).toEqual([422, ['quota_inconsistent'], ['profiles[0].targets[3].quota']]);
    const below = await validate({ profiles: [withQuotas([{ completes_goal: 50 }, { completes_goal: 50 }, { completes_goal: 50 }, { completes_goal: 49 }])] });
    expect(problems(below)).toEqual([422, ['incorrect_sum_of_nominal_010'], ['profiles[0].targets']]);
    // Both halves in a quota: a nominal profiling takes completes_goal only.
    const both = await validate({ profiles: [withQuotas([{ completes_goal: 50, completes_goal_percentage: 40 }, { completes_goal: 50 }, { completes_goal: 50 }, { completes_goal: 50 }])] });
    expect(problems(both)).toEqual([422, ['nominal_adjustment_cannot_have_percentage_042'], ['profiling.profiles[0].targets[0].quota.completes_goal_percentage']]);
    const above = await validate({ profiles: [withQuotas([{ completes_goal: 201 }, { completes_goal: 50 }, { completes_goal: 50 }, { completes_goal: 50 }])] });
    expect(problems(above)).toEqual([422, ['quota_inconsistent'], ['profiles[0].targets[0].quota.completes_goal']]);
    expect((await validate({ profiles: [withQuotas([{ completes_goal_percentage: 40 }, { completes_goal_percentage: 20 }, { completes_goal_percentage: 20 }, { completes_goal_percentage: 20 }])] })).status).toBe(204);
    // Without quotas_enabled, quotas are optional.
    expect((await validate({ profiles: [ageGender({ quotas_enabled: false, targets: targets.map(({ quota: _quota, ...t }) => t) })] })).status).toBe(204);
  });

  it('update quotas (completes-goal) and a new filling goal work on its targets', async () => {
    const { tgPath } = await api.projectWithTargetGroup();
    expect((await manage(tgPath, [ageGender()])).status).toBe(204);
    const targets = ['m_young', 'm_old', 'f_young', 'f_old'].map((id, index) => ({ id, quota: { completes_goal: [80, 20, 60, 40][index] } }));
    const res = await api.req('PUT', `${tgPath}/profiles/completes-goal`, { body: { profiles: [{ profile_id: 'age_gender', targets }] } });
    expect(res.status, res.text).toBe(200);
    expect(res.body.profiles[0].targets.map((t: { quota: { completes_goal_percentage: number } }) => t.quota.completes_goal_percentage)).toEqual([40, 10, 30, 20]);
    expect(res.body.profiles[0]).not.toHaveProperty('profile_ids');
    // A new total: the goals follow the percentages.
    const total = await api.req('PUT', `${tgPath}/profiles/completes-goal`, { body: { completes_goal: 400 } });
    expect(total.body.profiles[0].targets.map((t: { quota: { completes_goal: number } }) => t.quota.completes_goal)).toEqual([160, 40, 120, 80]);
  });

  it('PUT …/conditions replaces its targets; a profile that combines others still refuses it', async () => {
    const { tgPath } = await api.projectWithTargetGroup();
    expect((await manage(tgPath, [ageGender({ quotas_enabled: false, targets: [cell('a', [gender('1'), age(18, 30)])] }), education(), kids()])).status).toBe(204);
    const replaced = await api.req('PUT', `${tgPath}/profiles/age_gender/conditions`, { body: { targets: [cell('b', [gender('2'), age(31, 40)]), cell('c', [gender('2'), age(41, 99)])] } });
    expect(replaced.status, replaced.text).toBe(200);
    expect(replaced.body).toMatchObject({ object: 'blended', id: 'age_gender' });
    expect(replaced.body).not.toHaveProperty('profile_ids');
    expect(replaced.body.targets.map((t: { id: string }) => t.id)).toEqual(['b', 'c']);
    const duplicate = await api.req('PUT', `${tgPath}/profiles/age_gender/conditions`, { body: { targets: [cell('d', [gender('2'), gender('2')])] } });
    expect([duplicate.status, duplicate.body.object]).toEqual([422, 'duplicate_condition']);

    const combining = { object: 'blended', id: 'edu_kids', name: 'Education x kids', quotas_enabled: false, profile_ids: ['education', 'kids'], targets: [{ id: 'sy', source_target_ids: ['school', 'yes'] }] };
    const combined = await manage(tgPath, [ageGender({ quotas_enabled: false, targets: [cell('b', [gender('2'), age(31, 40)])] }), education(), kids(), combining]);
    expect(combined.status, combined.text).toBe(204);
    const combinedId = combined.body.profiles[3].id as string;
    const refused = await api.req('PUT', `${tgPath}/profiles/${combinedId}/conditions`, { body: { targets: [] } });
    expect([refused.status, refused.body.object]).toEqual([422, 'invalid_blended_profile']);
  });

  it('keeps the combining form (profile_ids) working beside it, in one set', async () => {
    const { tgPath } = await api.projectWithTargetGroup();
    const combined = {
      object: 'blended',
      id: 'edu_kids',
      name: 'Education x kids',
      quotas_enabled: false,
      profile_ids: ['education', 'kids'],
      targets: [{ id: 'sy', source_target_ids: ['school', 'yes'] }, { id: 'dn', source_target_ids: ['degree', 'no'] }],
    };
    const res = await manage(tgPath, [education(), kids(), combined, ageGender()]);
    expect(res.status, res.text).toBe(204);
    expect(res.body.profiles.map((p: { id: string; object: string }) => `${p.object}:${p.id}`)).toEqual(['regular:education', 'regular:kids', 'blended:edu_kids', 'blended:age_gender']);
    expect(res.body.profiles[2]).toMatchObject({ profile_ids: ['education', 'kids'], targets: [{ source_target_ids: ['school', 'yes'], conditions: [{ question_id: 633, option: '1' }, { question_id: 7064, option: '1' }] }, {}] });
    // A combining target still may not give conditions of its own.
    const own = { ...combined, targets: [{ id: 'sy', source_target_ids: ['school', 'yes'], conditions: [gender('1')] }] };
    expect((await manage(tgPath, [education(), kids(), own])).body.object).toBe('invalid_blended_profile');
  });

  it('narrows feasibility like any profile', async () => {
    const feasibility = (profiles: unknown[]) =>
      api.req('POST', `${P()}/target-groups/calculate-feasibility`, {
        body: {
          business_unit_id: 2001, locale: 'eng_us', expected_incidence_rate: 0.5, expected_length_of_interview_minutes: 10, filling_goal: 200,
          fielding_specification: { start_at: '2026-03-01T00:00:00Z', end_at: '2026-03-15T00:00:00Z' },
          ...(profiles.length ? { profiling: { profile_adjustment_type: 'percentage', profiles } } : {}),
        },
      });
    const open = await feasibility([]);
    const narrow = await feasibility([ageGender({ quotas_enabled: false, targets: [cell('a', [gender('1'), age(18, 24)])] })]);
    expect([open.status, narrow.status]).toEqual([200, 200]);
    expect(narrow.body.suggested_completes_goal_range.max).toBeLessThan(open.body.suggested_completes_goal_range.max * 0.2);
    expect(narrow.body.suggested_completes_goal_range.max).toBeGreaterThan(0);
  });
});

describe('Profiles › blended profiles in the spec shape across versions', () => {
  it('before 2025-12-18 it is an interlocked profile without profile_ids: grouped targets carry indexes', async () => {
    const { tgPath } = await api.projectWithTargetGroup({}, { version: V_MID });
    const interlocked = {
      id: 'age_gender',
      name: 'Age x gender',
      quotas_enabled: true,
      ungrouped: [{ id: 'other', index: gender('3'), quota: { filling_goal: 10 } }],
      grouped: [
        { id: 'm', indexes: [gender('1'), age(18, 99)], quota: { quota_percentage: 45 } },
        { id: 'f', indexes: [gender('2'), age(18, 99)], quota: { filling_goal: 100, quota_nominal: 100 } },
      ],
    };
    const res = await api.req('POST', `${tgPath}/profiles/apply-profiles`, { body: { profiles: [], interlocked_profiles: [interlocked] }, version: V_MID });
    expect(res.status, res.text).toBe(200);
    expect(res.body.profiles).toEqual([]);
    const [rendered] = res.body.interlocked_profiles;
    expect(rendered).not.toHaveProperty('profile_ids');
    expect(rendered).not.toHaveProperty('object');
    expect(rendered.ungrouped).toEqual([expect.objectContaining({ id: 'other', index: gender('3'), quota: expect.objectContaining({ filling_goal: 10, quota_percentage: 5 }) })]);
    expect(rendered.grouped.map((t: { id: string; indexes: unknown }) => [t.id, t.indexes])).toEqual([['m', [gender('1'), age(18, 99)]], ['f', [gender('2'), age(18, 99)]]]);
    expect(rendered.grouped[0].quota).toEqual({ name: 'Male / 18-99', quota_percentage: 45, filling_goal: 90, quota_nominal: 90, completes: 0, prescreens: 0 });
    // Read with 2025-12-18 it is the spec shape, in the draft's profiling.
    const current = (await api.req('GET', tgPath)).body.profiling.profiles;
    expect(current).toEqual([expect.objectContaining({ object: 'blended', id: 'age_gender' })]);
    expect(current[0]).not.toHaveProperty('profile_ids');
    expect(current[0].targets.map((t: { conditions: unknown[] }) => t.conditions.length)).toEqual([1, 2, 2]);
    // Duplicates are rejected in the old names too.
    const duplicate = { ...interlocked, ungrouped: [], grouped: [{ id: 'm', indexes: [gender('1'), gender('1')], quota: { filling_goal: 200 } }] };
    const bad = await api.req('POST', `${tgPath}/profiles/apply-profiles`, { body: { profiles: [], interlocked_profiles: [duplicate] }, version: V_MID });
    expect([bad.status, bad.body.object]).toEqual([422, 'duplicate_condition']);
  });

  it('a 2025-12-18 one reads as an interlocked profile in older versions; convert-to-regular has nothing to convert back to', async () => {
    const { tgPath } = await api.projectWithTargetGroup({}, { version: V_OLD });
    const written = await api.req('POST', `${tgPath}/profiles/apply-profiles`, {
      body: { profiles: [], interlocked_profiles: [{ id: 'ag', name: 'AG', quotas_enabled: false, grouped: [{ id: 'm', indexes: [gender('1'), age(18, 40)] }] }] },
      version: V_OLD,
    });
    expect(written.status, written.text).toBe(200);
    const converted = await api.req('POST', `${tgPath}/profiles/convert-to-regular-profile`, { body: { profile_id: 'ag' }, version: V_OLD });
    expect([converted.status, converted.body.object, paramNames(converted)]).toEqual([422, 'invalid_blended_profile', ['profile_id']]);
    expect((await api.req('GET', `${tgPath}/profiles`, { version: V_OLD })).body.interlocked_profiles.map((p: { id: string }) => p.id)).toEqual(['ag']);

    const { tgPath: currentPath } = await api.projectWithTargetGroup();
    expect((await manage(currentPath, [ageGender()])).status).toBe(204);
    const legacyRead = await api.req('GET', `${currentPath}/profiles`, { version: V_OLD });
    expect(legacyRead.status, legacyRead.text).toBe(200);
    expect(legacyRead.body.profiles).toEqual([]);
    const [interlocked] = legacyRead.body.interlocked_profiles;
    expect(interlocked).not.toHaveProperty('profile_ids');
    expect(interlocked.ungrouped).toEqual([]);
    expect(interlocked.grouped.map((t: { id: string }) => t.id)).toEqual(['m_young', 'm_old', 'f_young', 'f_old']);
    expect(interlocked.grouped[0]).toMatchObject({ indexes: [gender('1'), age(18, 44)], quota: { name: 'men_18_44', quota_percentage: 25, filling_goal: 50, quota_nominal: 50 } });
  });
});

describe('Question catalogue › locale-bound questions', () => {
  const region = (option: string) => ({ object: 'selection', question_id: 96, option });
  const regions = (locale: string) => validate({
    locale,
    profiles: [{ object: 'regular', name: 'Region', quotas_enabled: false, targets: [{ conditions: [region('1')] }, { conditions: [region('4')] }] }],
  });

  it('96 (US region: 1 Northeast, 2 Midwest, 3 South, 4 West) is asked in en_US only', async () => {
    expect((await regions('eng_us')).status).toBe(204);
    const elsewhere = await regions('ger_de');
    expect(problems(elsewhere)).toEqual([422, ['invalid_question_id_015', 'invalid_question_id_015'], ['profiles[0].targets[0].conditions[0].question_id', 'profiles[0].targets[1].conditions[0].question_id']]);
    expect(elsewhere.body.invalid_params[0].detail).toContain('not asked in de_DE');
    const { tgPath } = await api.projectWithTargetGroup();
    const stored = await manage(tgPath, [{ object: 'regular', name: 'Region', quotas_enabled: false, targets: [{ conditions: [region('3')] }] }]);
    expect(stored.body.profiles[0]).toMatchObject({ description: 'In which region of the United States do you live?', targets: [{ text: 'South' }] });
    expect(problems(await validate({ profiles: [{ object: 'regular', name: 'Region', quotas_enabled: false, targets: [{ conditions: [region('5')] }] }] }))[1]).toEqual(['not_supported_question_option_020']);
  });
});
