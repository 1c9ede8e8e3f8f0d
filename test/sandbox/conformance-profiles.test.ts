// Spec: Resources › Profile (2025-12-18 shape), Endpoints › profile operations, Errors (update quotas,
// duplicate conditions), Versioning (renames, removed endpoints, forward-only). Sandbox choices: docs/sandbox.md.
import { describe, expect, it } from 'vitest';
import { useTestSandbox } from '../fixtures/sandbox';
import { P, V_MID, V_NEW, V_OLD, draftBody, paramNames } from './sandbox-test-client';

const { sb, api } = useTestSandbox({ resetBeforeEach: true, faultsBeforeEach: { job_duration_ms: 20 } });

const gender = (overrides: Record<string, unknown> = {}) => ({
  object: 'regular',
  id: 'gender',
  name: 'Gender',
  quotas_enabled: true,
  targets: [
    { id: 'm', conditions: [{ object: 'selection', question_id: 43, option: '1' }], quota: { completes_goal: 100 } },
    { id: 'f', conditions: [{ object: 'selection', question_id: 43, option: '2' }], quota: { completes_goal: 100 } },
  ],
  ...overrides,
});
/** Gender with percentage quotas (a percentage profiling). */
const genderShares = () => gender({ targets: gender().targets.map((t) => ({ ...t, quota: { completes_goal_percentage: 50 } })) });
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
const legacyGender = () => ({
  id: 'gender', name: 'Gender', quotas_enabled: true,
  ungrouped: [
    { id: 'm', index: { object: 'selection', question_id: 43, option: '1' }, quota: { quota_percentage: 50 } },
    { id: 'f', index: { object: 'selection', question_id: 43, option: '2' }, quota: { filling_goal: 100, quota_nominal: 100 } },
  ],
  grouped: [],
});
const zipCodes = (values: string[]) => ({ object: 'open_ended', question_id: 45, allow_all_values: false, open_ended_values: values });
const nominal = (...profiles: unknown[]) => ({ profile_adjustment_type: 'nominal', profiles });
const percentage = (...profiles: unknown[]) => ({ profile_adjustment_type: 'percentage', profiles });
const TEMPLATE = '0b7c3f6e-5a41-4c1e-9a6d-1f2e3d4c5b01';

async function draft(version = V_NEW, overrides: Record<string, unknown> = {}) {
  return api.projectWithTargetGroup(overrides, { version });
}

/** A draft's profiles travel in its own `profiling`: PUT the draft with it. */
function setProfiling(tgPath: string, profiling: unknown, overrides: Record<string, unknown> = {}, version = V_NEW) {
  return api.req('PUT', tgPath, { body: { ...draftBody(overrides), profiling }, version });
}

async function profilingOf(tgPath: string) {
  return (await api.req('GET', tgPath)).body.profiling;
}

async function launch(tgPath: string) {
  const res = await api.req('POST', `${tgPath}/fielding-run-jobs/launch-from-draft`, { body: { end_fielding_at: '2099-01-01T00:00:00Z' } });
  expect(res.status, res.text).toBe(201);
  await api.waitForJob(res.headers.get('location')!);
}

/** The reference's ValidationErrorResponseDemographics, with the data-validation names it lists. */
function expectDemographics(res: { status: number; body: any; text: string }, reasons: string[]) {
  expect(res.status, res.text).toBe(422);
  expect(res.body).toMatchObject({ object: 'unprocessable_entity_error', title: 'profile request validation' });
  expect(res.body.detail).toMatch(/^Validation error/);
  expect(res.body.invalid_params.map((p: { reason: string }) => p.reason)).toEqual(reasons);
}

describe('Profiles › validate (POST P/profiles/validate)', () => {
  const validate = (body: unknown, version = V_NEW) => api.req('POST', `${P()}/profiles/validate`, { body, version });

  it('answers 204 for a valid set and changes nothing', async () => {
    const before = await api.state();
    const res = await validate({ locale: 'eng_us', completes_goal: 200, profiling: nominal(gender(), kids()) });
    expect(res.status, res.text).toBe(204);
    expect(res.text).toBe('');
    expect(await api.state()).toEqual(before);
    expect((await validate({ locale: 'eng_us', completes_goal: 200, profiling: percentage(genderShares()) })).status).toBe(204);
  });

  it('rejects duplicate selection or range conditions with 422 in the reference\'s validation-error shape', async () => {
    const duplicate = gender();
    duplicate.targets[1].conditions = [{ object: 'selection', question_id: 43, option: '1' }];
    const res = await validate({ locale: 'eng_us', completes_goal: 200, profiling: nominal(duplicate) });
    expectDemographics(res, ['duplicate_condition_039']);
    expect(res.body.invalid_params[0]).toMatchObject({ error_type: 'data_validation_error', name: 'profile_validation_error_039' });
    expect(res.body.invalid_params[0].detail).toMatch(/^profiles\[0\]\.targets\[1\]\.conditions\[0\]/);
    const ranges = { object: 'regular', name: 'Age', quotas_enabled: false, targets: [{ object: 'nominal', conditions: [{ object: 'range', question_id: 42, min: 18, max: 30 }, { object: 'range', question_id: 42, min: 18, max: 30 }] }] };
    expectDemographics(await validate({ locale: 'eng_us', completes_goal: 200, profiling: percentage(ranges) }), ['duplicate_condition_039']);
  });

  it('accepts duplicate zip codes (open-ended values, removed silently); there is no zip_code condition kind', async () => {
    const zip = { object: 'regular', name: 'Zip', quotas_enabled: false, targets: [{ conditions: [zipCodes(['10001', '10001', '10002'])] }] };
    expect((await validate({ locale: 'eng_us', completes_goal: 200, profiling: percentage(zip) })).status).toBe(204);
    const all = { ...zip, targets: [{ conditions: [{ object: 'open_ended', question_id: 45, allow_all_values: true, open_ended_values: null }] }] };
    expect((await validate({ locale: 'eng_us', completes_goal: 200, profiling: percentage(all) })).status).toBe(204);
    const old = { ...zip, targets: [{ conditions: [{ object: 'zip_code', question_id: 45, zip_codes: ['10001'] }] }] };
    const refused = await validate({ locale: 'eng_us', completes_goal: 200, profiling: percentage(old) });
    expect(refused.status).toBe(400);
    expect(paramNames(refused)).toEqual(['object']);
    const mismatched = { ...zip, targets: [{ conditions: [{ object: 'open_ended', question_id: 45, allow_all_values: true, open_ended_values: ['10001'] }] }] };
    expect(paramNames(await validate({ locale: 'eng_us', completes_goal: 200, profiling: percentage(mismatched) }))).toEqual(['open_ended_values']);
  });

  it('refuses nominal and percentage quotas mixed, and quotas that do not match the adjustment type (422)', async () => {
    const mixed = gender({ targets: [gender().targets[0], { ...gender().targets[1], quota: { completes_goal_percentage: 50 } }] });
    expectDemographics(await validate({ locale: 'eng_us', completes_goal: 200, profiling: nominal(mixed) }), ['nominal_adjustment_cannot_have_percentage_042']);
    expectDemographics(await validate({ locale: 'eng_us', completes_goal: 200, profiling: percentage(gender()) }), ['percentage_adjustment_cannot_have_nominal_043', 'percentage_adjustment_cannot_have_nominal_043']);
  });

  it('answers 400 naming the new field for a renamed-away field in 2025-12-18, and accepts the old body before', async () => {
    const res = await validate({ locale: 'eng_us', completes_goal: 200, profiling: percentage(legacyGender()) });
    expect(res.status).toBe(400);
    expect(res.body.invalid_params).toContainEqual({ name: 'ungrouped', reason: 'renamed to target in 2025-12-18' });
    const quota = genderShares();
    (quota.targets[0].quota as Record<string, unknown>) = { quota_percentage: 50 };
    expect((await validate({ locale: 'eng_us', completes_goal: 200, profiling: percentage(quota) })).body.invalid_params).toEqual([{ name: 'quota_percentage', reason: 'renamed to completes_goal_percentage in 2025-12-18' }]);
    expect(paramNames(await validate({ locale: 'eng_us', filling_goal: 200, profiles: [gender()] }))).toEqual(['filling_goal', 'profiles', 'completes_goal', 'profiling']);
    expect((await validate({ locale: 'eng_us', filling_goal: 200, profiles: [legacyGender()] }, V_MID)).status).toBe(204);
    expect((await validate({ locale: 'eng_us', filling_goal: 200, profiles: [gender()] }, V_OLD)).status).toBe(400);
  });

  it('needs locale, completes_goal and profiling; takes no template', async () => {
    expect(paramNames(await validate({ profiling: nominal(gender()) }))).toEqual(['locale', 'completes_goal']);
    expect(paramNames(await validate({ locale: 'eng_us', completes_goal: 200, profiling: { ...percentage(kids()), template_id: TEMPLATE } }))).toEqual(['profiling.template_id']);
    const short = gender({ targets: gender().targets.map((t) => ({ ...t, quota: { completes_goal: 50 } })) });
    expectDemographics(await validate({ locale: 'eng_us', completes_goal: 200, profiling: nominal(short) }), ['incorrect_sum_of_nominal_010']);
  });
});

describe('Profiles › a draft\'s profiling (create and update carry it)', () => {
  it('a draft with profiles is one create call; GET shows its profiling in the reference\'s shape', async () => {
    const { tgPath, tg } = await draft(V_NEW, { profiling: nominal(gender(), kids()) });
    expect(tg.profiling.profile_adjustment_type).toBe('nominal');
    expect(tg.profiling.profiles.map((p: { id: string }) => p.id)).toEqual(['gender', 'kids']);
    // A draft's quota is the reference's DraftQuotaDetailsV3 quota: goals, no completes/prescreens counters.
    expect(tg.profiling.profiles[0].targets[0].quota).toEqual({ name: 'Male', completes_goal_percentage: 50, completes_goal: 100, quota_nominal: 100 });
    expect(tg).not.toHaveProperty('profiles');
    expect(tg.profiling.profiles[0]).not.toHaveProperty('open_ended_group');
    expect((await setProfiling(tgPath, nominal(kids()))).status).toBe(204);
    expect((await profilingOf(tgPath)).profiles.map((p: { id: string }) => p.id)).toEqual(['kids']);
    // An update without profiling keeps it; null removes it.
    expect((await api.req('PUT', tgPath, { body: draftBody({ name: 'Adults renamed' }) })).status).toBe(204);
    expect((await profilingOf(tgPath)).profiles).toHaveLength(1);
    expect((await setProfiling(tgPath, null)).status).toBe(204);
    // A draft without profiles answers without `profiling` (fields without a value are left out).
    expect(await profilingOf(tgPath)).toBeUndefined();
  });

  it('stores zip codes (open-ended values of the postal-code question) without duplicates, and every answer with allow_all_values', async () => {
    const { tgPath } = await draft();
    const zip = { object: 'regular', name: 'Zip', quotas_enabled: false, targets: [{ object: 'nominal', conditions: [zipCodes(['10001', '10001', '10002'])] }] };
    expect((await setProfiling(tgPath, percentage(zip))).status).toBe(204);
    expect((await profilingOf(tgPath)).profiles[0].targets[0].conditions[0]).toEqual({ object: 'open_ended', question_id: 45, allow_all_values: false, open_ended_values: ['10001', '10002'] });
    // Exact repeats only: values that differ in case are kept, each as sent (a UK code checked against the
    // market's pattern once upper-cased), so the draft read back equals what was sent.
    const { tgPath: gbPath } = await draft(V_NEW, { locale: 'en_GB' });
    const postcodes = { ...zip, targets: [{ object: 'nominal', conditions: [zipCodes(['sw1a 1aa', 'SW1A 1AA', 'sw1a 1aa'])] }] };
    expect((await setProfiling(gbPath, percentage(postcodes), { locale: 'en_GB' })).status).toBe(204);
    expect((await profilingOf(gbPath)).profiles[0].targets[0].conditions[0].open_ended_values).toEqual(['sw1a 1aa', 'SW1A 1AA']);
    const brandsCased = { object: 'regular', name: 'Brand', quotas_enabled: false, targets: [{ conditions: [{ object: 'open_ended', question_id: 9001, allow_all_values: false, open_ended_values: ['Acme', 'acme', 'Acme'] }] }] };
    expect((await setProfiling(tgPath, percentage(brandsCased))).status).toBe(204);
    expect((await profilingOf(tgPath)).profiles[0].targets[0].conditions[0].open_ended_values).toEqual(['Acme', 'acme']);
    const brands = { object: 'regular', name: 'Brand', quotas_enabled: false, targets: [{ conditions: [{ object: 'open_ended', question_id: 9001, allow_all_values: true, open_ended_values: [] }] }] };
    expect((await setProfiling(tgPath, percentage(brands))).status).toBe(204);
    expect((await profilingOf(tgPath)).profiles[0].targets[0].conditions[0]).toEqual({ object: 'open_ended', question_id: 9001, allow_all_values: true, open_ended_values: [] });
  });

  it('groups several open-ended questions listed in the targets of one regular profile', async () => {
    const { tgPath } = await draft();
    const grouped = {
      object: 'regular', name: 'Brand and occupation', quotas_enabled: false,
      targets: [{ conditions: [{ object: 'open_ended', question_id: 9001, allow_all_values: false, open_ended_values: ['acme'] }, { object: 'open_ended', question_id: 9002, allow_all_values: false, open_ended_values: ['nurse'] }] }],
    };
    const res = await setProfiling(tgPath, percentage(grouped));
    expect(res.status, res.text).toBe(204);
    expect((await profilingOf(tgPath)).profiles[0].description).toBe('Brand and occupation');
    const withGroupField = await setProfiling(tgPath, percentage({ ...grouped, open_ended_group: { name: 'g', question_ids: [9001, 9002] } }));
    expect(paramNames(withGroupField)).toEqual(['open_ended_group']);
  });

  it('a template alone or with own profiles takes percentage only; mixed quotas are refused; a refused body changes nothing', async () => {
    const { tgPath } = await draft();
    expect((await setProfiling(tgPath, { profile_adjustment_type: 'percentage', template_id: TEMPLATE })).status).toBe(204);
    expect((await profilingOf(tgPath))).toMatchObject({ template_id: TEMPLATE, profile_adjustment_type: 'percentage' });
    expect((await setProfiling(tgPath, { ...percentage(kids()), template_id: TEMPLATE }, { filling_goal: 500 })).status).toBe(204);
    expect((await profilingOf(tgPath)).profiles).toHaveLength(3);
    const before = await api.state();
    const nominalTemplate = await setProfiling(tgPath, { ...nominal(gender()), template_id: TEMPLATE });
    expect([nominalTemplate.status, nominalTemplate.body.object]).toEqual([422, 'template_adjustment']);
    expect((await setProfiling(tgPath, { profile_adjustment_type: 'percentage', template_id: '0b7c3f6e-5a41-4c1e-9a6d-1f2e3d4c5b99' })).status).toBe(422);
    const mixed = gender({ targets: [gender().targets[0], { ...gender().targets[1], quota: { completes_goal_percentage: 50 } }] });
    expect((await setProfiling(tgPath, nominal(mixed))).body.object).toBe('nominal_with_percentage');
    const bad = gender();
    bad.targets[0].conditions[0].option = '99';
    expect((await setProfiling(tgPath, nominal(bad))).body.object).toBe('unknown_option');
    expect(await api.state()).toEqual(before);
  });

  it('older versions have no profiling on the draft; recontact studies refuse it; a group without locale cannot be profiled', async () => {
    const old = await draft(V_MID);
    const refused = await setProfiling(old.tgPath, nominal(kids()), {}, V_MID);
    expect(refused.status).toBe(400);
    expect(paramNames(refused)).toEqual(['profiling']);
    const recontact = await draft(V_NEW, { study_type_code: 'recontact', allocations: { template_id: 'recontact-global' } });
    const noProfiling = await setProfiling(recontact.tgPath, nominal(kids()), { study_type_code: 'recontact', allocations: { template_id: 'recontact-global' } });
    expect([noProfiling.status, noProfiling.body.object]).toEqual([422, 'profiling_not_supported']);
    // From 2025-12-18 a draft always has a locale (the reference requires it); an older version's may not.
    const noLocale = await draft(V_MID, { locale: null });
    expect((await api.req('POST', `${noLocale.tgPath}/profiles/apply-profiles`, { body: { profiles: [] }, version: V_MID })).body.object).toBe('locale_required');
  });

  it('a new filling goal keeps the quota percentages and recomputes the goals', async () => {
    const { tgPath } = await draft();
    expect((await setProfiling(tgPath, percentage(genderShares()))).status).toBe(204);
    const res = await api.req('PUT', tgPath, { body: draftBody({ filling_goal: 400 }) });
    expect(res.status, res.text).toBe(204);
    await sb.events.idle();
    const quotas = (await profilingOf(tgPath)).profiles[0].targets.map((t: { quota: { completes_goal: number } }) => t.quota.completes_goal);
    expect(quotas).toEqual([200, 200]);
  });
});

describe('Profiles › manage-profiles (launched target groups; apply-profiles before 2025-12-18)', () => {
  const manage = (tgPath: string, body: unknown, version = V_NEW) => api.req('POST', `${tgPath}/profiles/manage-profiles`, { body, version });

  it('replaces every profile of a launched target group with {completes_goal, profiling} and answers 201 ProfilesResponseV3', async () => {
    const { tgPath, tg } = await draft(V_NEW, { live_url: 'https://s.example/x', profiling: nominal(gender()) });
    await launch(tgPath);
    const res = await manage(tgPath, { completes_goal: 300, profiling: percentage(genderShares(), kids()) });
    expect(res.status, res.text).toBe(201);
    expect(res.body.locale).toBe('eng_us');
    expect(res.body.completes_goal).toBe(300);
    expect(res.body.profiles.map((p: { id: string }) => p.id)).toEqual(['gender', 'kids']);
    expect(res.body.profiles[0].targets[0].quota).toMatchObject({ completes_goal_percentage: 50, completes_goal: 150 });
    const stored = sb.services.store.data.target_groups[tg.id] as any;
    expect(stored.profiles.map((p: { id: string }) => p.id)).toEqual(['gender', 'kids']);
    expect(stored.filling_goal).toBe(300);
  });

  it('a draft is refused (its profiles travel in its profiling); a rejected set changes nothing', async () => {
    const { tgPath } = await draft();
    const refused = await manage(tgPath, { completes_goal: 200, profiling: nominal(gender()) });
    expect([refused.status, refused.body.object]).toEqual([422, 'invalid_state_error']);
    const launched = await draft(V_NEW, { live_url: 'https://s.example/x', profiling: percentage(kids()) });
    await launch(launched.tgPath);
    const before = await api.state();
    const bad = gender();
    bad.targets[0].conditions[0].option = '99';
    expectDemographics(await manage(launched.tgPath, { completes_goal: 200, profiling: nominal(bad) }), ['not_supported_question_option_020']);
    expect(paramNames(await manage(launched.tgPath, { profiles: [kids()] }))).toEqual(['profiles', 'completes_goal', 'profiling']);
    expect(await api.state()).toEqual(before);
  });

  it('is 404 under the old name in 2025-12-18 and under the new name before; the old name works on drafts in older versions', async () => {
    const { tgPath } = await draft(V_MID);
    expect((await api.req('POST', `${tgPath}/profiles/apply-profiles`, { body: { profiles: [] } })).status).toBe(404);
    expect((await manage(tgPath, { profiles: [] }, V_MID)).status).toBe(404);
    const res = await api.req('POST', `${tgPath}/profiles/apply-profiles`, { body: { profiles: [legacyGender()] }, version: V_MID });
    expect(res.status, res.text).toBe(200);
    expect(res.body.profiles[0].ungrouped[0].quota).toEqual({ name: 'Male', quota_percentage: 50, filling_goal: 100, quota_nominal: 100, completes: 0, prescreens: 0 });
    expect(res.body.interlocked_profiles).toEqual([]);
    // The same profiles read with 2025-12-18 are the draft's profiling, in the new names.
    const current = (await profilingOf(tgPath)).profiles[0];
    expect(current.object).toBe('regular');
    expect(current.targets.map((t: { id: string }) => t.id)).toEqual(['m', 'f']);
    // Old-version reads of the target group show the old shape.
    expect((await api.req('GET', tgPath, { version: V_OLD })).body.profiles[0]).toHaveProperty('ungrouped');
  });

  it('forward-only: once the draft is written with 2025-12-18, older versions may not write the profiling', async () => {
    const { tgPath } = await draft(V_MID);
    expect((await setProfiling(tgPath, percentage(kids()))).status).toBe(204);
    const res = await api.req('POST', `${tgPath}/profiles/apply-profiles`, { body: { profiles: [] }, version: V_MID });
    expect(res.status).toBe(400);
    expect(res.body.object).toBe('version_downgrade_not_allowed');
  });

  it('404 for a missing target group or project', async () => {
    const { project } = await draft();
    expect((await api.req('POST', `${P()}/projects/${project.id}/target-groups/tg_nope/profiles/manage-profiles`, { body: { completes_goal: 1, profiling: percentage(kids()) } })).status).toBe(404);
    expect((await api.req('POST', `${P()}/projects/prj_nope/target-groups/tg_nope/profiles/manage-profiles`, { body: { completes_goal: 1, profiling: percentage(kids()) } })).status).toBe(404);
  });
});

describe('Profiles › blended profiles', () => {
  const window = { start_at: '2027-01-04T00:00:00Z', end_at: '2027-02-01T00:00:00Z' };
  const noIds = <T extends { id?: string; targets: { id?: string }[] }>(profile: T) => {
    const { id: _id, ...rest } = profile;
    return { ...rest, targets: profile.targets.map(({ id: _t, ...target }) => target) };
  };
  const generate = (profiles: unknown[], overrides: Record<string, unknown> = {}) =>
    api.req('POST', `${P()}/drafts/generate-blended-profile`, { body: { locale: 'eng_us', completes_goal: 200, ...window, collects_pii: false, profiling: { profile_adjustment_type: 'percentage', profiles }, ...overrides } });

  it('generate-blended-profile blends two or three regular profiles into one (201 CompositeDraftRegularProfileV3) and saves nothing', async () => {
    const before = await api.state();
    const res = await generate([noIds(genderShares()), noIds(kids())]);
    expect(res.status, res.text).toBe(201);
    const blended = res.body;
    expect(blended).toMatchObject({ object: 'blended', quotas_enabled: true, name: 'Gender × Kids', description: expect.any(String) });
    expect(blended).not.toHaveProperty('profile_ids');
    expect(blended.targets).toHaveLength(4);
    expect(blended.targets[0]).toMatchObject({ id: expect.any(String), text: expect.any(String), conditions: [{ object: 'selection', question_id: 43, option: '1' }, { object: 'selection', question_id: 7064, option: '1' }] });
    expect(blended.targets[0]).not.toHaveProperty('source_target_ids');
    expect(blended.targets.reduce((sum: number, t: { quota: { completes_goal: number } }) => sum + t.quota.completes_goal, 0)).toBe(200);
    expect(blended.targets[0].quota).toMatchObject({ completes_goal: 50, quota_nominal: 50, completes_goal_percentage: 25 });
    expect(await api.state()).toEqual(before);
  });

  it('generate-blended-profile takes two or three regular profiles in the request\'s shape only (400), and refuses a broken profile rule (422)', async () => {
    const age = { object: 'regular', name: 'Age', quotas_enabled: false, targets: [{ object: 'nominal', conditions: [{ object: 'range', question_id: 42, min: 18, max: 34 }] }] };
    const education = { object: 'regular', name: 'Education', quotas_enabled: false, targets: [{ object: 'nominal', conditions: [{ object: 'selection', question_id: 633, option: '1' }] }] };
    expect((await generate([noIds(genderShares()), noIds(kids()), age])).status).toBe(201);
    expect(paramNames(await generate([noIds(genderShares())]))).toEqual(['profiling.profiles']);
    expect(paramNames(await generate([noIds(genderShares()), noIds(kids()), age, education]))).toEqual(['profiling.profiles']);
    const blendedSource = { object: 'blended', name: 'B', quotas_enabled: false, targets: [{ object: 'nominal', conditions: [{ object: 'selection', question_id: 43, option: '1' }] }] };
    expect(paramNames(await generate([noIds(genderShares()), blendedSource]))).toEqual(['profiling.profiles[1].object']);
    // The earlier sandbox body (filling_goal, profiles, profile_ids) names each field it no longer takes.
    const old = await api.req('POST', `${P()}/drafts/generate-blended-profile`, { body: { locale: 'eng_us', filling_goal: 200, profiles: [genderShares(), kids()], profile_ids: ['gender', 'kids'] } });
    expect(paramNames(old)).toEqual(['filling_goal', 'profiles', 'profile_ids', 'completes_goal', 'start_at', 'end_at', 'collects_pii', 'profiling']);
    const duplicate = noIds(genderShares());
    duplicate.targets[1] = { ...duplicate.targets[1], conditions: [{ object: 'selection', question_id: 43, option: '1' }] };
    const refused = await generate([duplicate, noIds(kids())]);
    expect(refused.status).toBe(422);
    expect(refused.body).toMatchObject({ object: 'unprocessable_entity_error', invalid_params: [expect.objectContaining({ reason: 'duplicate_condition_039' })] });
    // Blending gives at most as many targets as a profile may have (200).
    const wide = (name: string, questionId: number, options: number) => ({ object: 'regular', name, quotas_enabled: false, targets: Array.from({ length: options }, (_, i) => ({ object: 'nominal', conditions: [{ object: 'range', question_id: questionId, min: 18 + i, max: 18 + i }] })) });
    const tooMany = await generate([wide('Age', 42, 60), noIds(genderShares()), { ...noIds(kids()), quotas_enabled: false, targets: kids().targets.map(({ id: _id, ...t }) => ({ object: 'nominal', ...t })) }]);
    expect(tooMany.status, tooMany.text).toBe(422);
    expect(tooMany.body.invalid_params[0]).toMatchObject({ reason: 'too_many_targets' });
    // The old path and body live on before 2025-12-18 only.
    const legacy = await api.req('POST', `${P()}/drafts/generate-interlocked-profile`, { body: { locale: 'eng_us', filling_goal: 200, profiles: [legacyGender(), { id: 'kids', name: 'Kids', quotas_enabled: false, ungrouped: [{ id: 'y', index: { object: 'selection', question_id: 7064, option: '1' } }] }], profile_ids: ['gender', 'kids'] }, version: V_OLD });
    expect(legacy.status, legacy.text).toBe(200);
    expect(legacy.body.interlocked_profiles[0].grouped).toHaveLength(2);
    expect((await api.req('POST', `${P()}/drafts/generate-interlocked-profile`, { body: {} })).status).toBe(404);
    expect((await api.req('POST', `${P()}/drafts/generate-blended-profile`, { body: {}, version: V_MID })).status).toBe(404);
  });

  it('create-blended-profile (the spec\'s operation) adds a blended profile in the reference\'s vocabulary to a draft (201); the combining form and a broken rule are refused, state unchanged', async () => {
    const { tgPath } = await draft(V_NEW, { profiling: nominal(gender(), kids()) });
    const blend = {
      object: 'blended', blended_type: 'interlock', name: 'Gender x Kids', quotas_enabled: false,
      targets: [{ object: 'nominal', conditions: [{ object: 'selection', question_id: 43, option: '1' }, { object: 'selection', question_id: 7064, option: '1' }] }],
    };
    const res = await api.req('POST', `${tgPath}/profiles/create-blended-profile`, { body: blend });
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({ locale: 'eng_us', completes_goal: 200 });
    expect(res.body.profiles.map((p: { object: string }) => p.object)).toEqual(['regular', 'regular', 'blended']);
    expect((await profilingOf(tgPath)).profiles[2]).toMatchObject({ object: 'blended', blended_type: 'interlock', name: 'Gender x Kids' });
    const before = await api.state();
    const combining = await api.req('POST', `${tgPath}/profiles/create-blended-profile`, { body: { profile_ids: ['gender', 'kids'] } });
    expect([combining.status, paramNames(combining)]).toEqual([400, ['object']]);
    expect(paramNames(await api.req('POST', `${tgPath}/profiles/create-blended-profile`, { body: { ...blend, profile_ids: ['gender', 'kids'] } }))).toEqual(['profile_ids']);
    const twice = { ...blend, targets: [blend.targets[0], blend.targets[0]] };
    const refused = await api.req('POST', `${tgPath}/profiles/create-blended-profile`, { body: twice });
    expect(refused.status).toBe(422);
    expect(refused.body.invalid_params[0]).toMatchObject({ reason: 'duplicate_condition_039' });
    expect(await api.state()).toEqual(before);
  });
});

describe('Profiles › supplier-quota-distribution (get_panel_distribution_draft; panel-distribution before 2025-12-18)', () => {
  const DRAFT = '/supplier-quota-distribution/draft';
  const window = { start_at: '2027-01-04T00:00:00Z', end_at: '2027-02-01T00:00:00Z' };
  const request = (overrides: Record<string, unknown> = {}) => ({ locale: 'eng_us', completes_goal: 300, profile_adjustment_type: 'percentage', ...window, profile: genderShares(), ...overrides });

  it('answers the one profile with each quota target\'s projected goal (nominal quotas), adding up to the completes goal, and saves nothing', async () => {
    const before = await api.state();
    const [male, female] = genderShares().targets;
    const shares = { ...genderShares(), targets: [{ ...male, name: 'Target-Male', quota: { name: 'men', completes_goal_percentage: 33.33 } }, { ...female, quota: { completes_goal_percentage: 66.67 } }] };
    const res = await api.req('POST', `${P()}${DRAFT}`, { body: request({ profile: shares, collects_pii: false }) });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({
      object: 'regular', name: 'Gender', quotas_enabled: true,
      targets: [
        { name: 'Target-Male', conditions: [{ object: 'selection', question_id: 43, option: '1' }], quota: { name: 'men', completes_goal: 100 } },
        { conditions: [{ object: 'selection', question_id: 43, option: '2' }], quota: expect.objectContaining({ completes_goal: 200 }) },
      ],
    });
    const nominalGoals = await api.req('POST', `${P()}${DRAFT}`, { body: request({ profile_adjustment_type: 'nominal', profile: gender({ targets: gender().targets.map((t) => ({ ...t, quota: { completes_goal: 150 } })) }) }) });
    expect(nominalGoals.body.targets.map((t: { quota: { completes_goal: number } }) => t.quota.completes_goal)).toEqual([150, 150]);
    // A profile without quotas: its targets carry none (nothing to project); duplicate open-ended values go, exact repeats only.
    const zips = await api.req('POST', `${P()}${DRAFT}`, { body: request({ profile: { object: 'regular', name: 'Zip', quotas_enabled: false, targets: [{ object: 'nominal', conditions: [zipCodes(['10001', '10001', '10002'])] }] } }) });
    expect(zips.body.targets).toEqual([{ object: 'nominal', conditions: [zipCodes(['10001', '10002'])] }]);
    expect(await api.state()).toEqual(before);
  });

  it('refuses what the reference would, with its 400 error object: missing fields, the old shape, supplier ids, quotas of the other adjustment type, a broken profile rule', async () => {
    const refused = async (body: unknown) => {
      const res = await api.req('POST', `${P()}${DRAFT}`, { body });
      expect(res.status, res.text).toBe(400);
      expect(res.body).toMatchObject({ object: 'bad_request_error', detail: expect.any(String) });
      return paramNames(res);
    };
    expect(await refused({ locale: 'eng_us', completes_goal: 300 })).toEqual(['profile_adjustment_type', 'start_at', 'end_at', 'profile']);
    expect(await refused({ locale: 'eng_us', filling_goal: 300, supplier_ids: [11], profiles: [genderShares()] })).toEqual(['filling_goal', 'supplier_ids', 'profiles', 'completes_goal', 'profile_adjustment_type', 'start_at', 'end_at', 'profile']);
    expect(await refused(request({ end_at: window.start_at }))).toEqual(['end_at']);
    expect(await refused(request({ profile_adjustment_type: 'nominal' }))).toEqual(['profile.targets[0].quota.completes_goal_percentage', 'profile.targets[1].quota.completes_goal_percentage']);
    const duplicate = genderShares();
    duplicate.targets[1].conditions = [{ object: 'selection', question_id: 43, option: '1' }];
    expect(await refused(request({ profile: duplicate }))).toEqual(['profile.targets[1].conditions[0]']);
  });

  it('is the old path (the old shape: suppliers) before 2025-12-18 only', async () => {
    expect((await api.req('POST', `${P()}/panel-distribution/draft`, { body: { locale: 'eng_us', filling_goal: 300, supplier_ids: [1] }, version: V_MID })).status).toBe(200);
    expect((await api.req('POST', `${P()}/panel-distribution/draft`, { body: { locale: 'eng_us', filling_goal: 300, supplier_ids: [1] } })).status).toBe(404);
    expect((await api.req('POST', `${P()}${DRAFT}`, { body: request(), version: V_MID })).status).toBe(404);
  });
});

describe('Profiles › update quotas (PUT TG/profiles/completes-goal)', () => {
  const path = (tgPath: string) => `${tgPath}/profiles/completes-goal`;

  it('200 ProfilesResponseV3 on success: a quota\'s goal (its percentage follows), a new total (the goals follow their percentages), or both', async () => {
    const { tgPath } = await draft(V_NEW, { profiling: nominal(gender()) });
    const quotas = (res: { body: { profiles: { targets: { quota: Record<string, number> }[] }[] } }) => res.body.profiles[0].targets.map((t) => t.quota);
    const one = await api.req('PUT', path(tgPath), { body: { profiles: [{ profile_id: 'gender', targets: [{ id: 'm', quota: { completes_goal: 120 } }, { id: 'f', quota: { completes_goal: 80 } }] }] } });
    expect(one.status, one.text).toBe(200);
    expect(one.body).toMatchObject({ locale: 'eng_us', completes_goal: 200 });
    expect(quotas(one)).toEqual([expect.objectContaining({ completes_goal: 120, completes_goal_percentage: 60, quota_nominal: 120 }), expect.objectContaining({ completes_goal: 80, completes_goal_percentage: 40 })]);
    const total = await api.req('PUT', path(tgPath), { body: { completes_goal: 300 } });
    expect(total.status, total.text).toBe(200);
    expect(total.body.completes_goal).toBe(300);
    expect(quotas(total).map((q) => q.completes_goal)).toEqual([180, 120]);
    expect((await api.req('GET', tgPath)).body.completes_goal).toBe(300);
    const both = await api.req('PUT', path(tgPath), { body: { completes_goal: 100, profiles: [{ profile_id: 'gender', targets: [{ id: 'm', quota: { completes_goal: 50 } }, { id: 'f', quota: { completes_goal: 50 } }] }] } });
    expect([both.body.completes_goal, quotas(both).map((q) => q.completes_goal)]).toEqual([100, [50, 50]]);
  });

  it('422 for an invalid body (spec Errors: update quotas, invalid request; the earlier shape among them), unknown profiles or targets and broken quota rules, in the reference\'s 422 shape; state unchanged', async () => {
    const { tgPath } = await draft(V_NEW, { profiling: nominal(gender()) });
    const before = await api.state();
    for (const [body, names] of [
      [{ completes_goal: -5 }, ['completes_goal']],
      [{ completes_goal: 'many' }, ['completes_goal']],
      [{ profiles: [{ id: 'gender', targets: [{ id: 'm', quota: { completes_goal: 120 } }] }] }, ['profiles[0].id', 'profiles[0].profile_id']],
      [{ profiles: [{ profile_id: 'gender', targets: [{ id: 'm', quota: { completes_goal_percentage: 60 } }] }] }, ['profiles[0].targets[0].quota.completes_goal_percentage', 'profiles[0].targets[0].quota.completes_goal']],
      [{ profiles: [{ profile_id: 'gender', targets: [{ id: 'm', quota: { completes_goal: 'many' } }] }] }, ['profiles[0].targets[0].quota.completes_goal']],
      [{ profiles: [{ profile_id: 'gender', targets: [] }] }, ['profiles[0].targets']],
      [{ profiles: [] }, ['completes_goal']],
      [{ something: 1 }, ['something', 'completes_goal']],
    ] as const) {
      const res = await api.req('PUT', path(tgPath), { body });
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body).toMatchObject({ object: 'unprocessable_entity_error', title: 'profile request validation', detail: expect.stringMatching(/^Validation error/) });
      expect(res.body.invalid_params.map((p: { name: string; error_type: string }) => [p.error_type, p.name]), JSON.stringify(body)).toEqual(names.map((name) => ['structural_error', name]));
    }
    // Only a body that is not a JSON object stays 400.
    expect((await api.req('PUT', path(tgPath), { body: [1] })).status).toBe(400);
    for (const body of [
      { profiles: [{ profile_id: 'gender', targets: [{ id: 'm', quota: { completes_goal: 10 } }] }] },
      { profiles: [{ profile_id: 'gender', targets: [{ id: 'zz', quota: { completes_goal: 10 } }] }] },
      { profiles: [{ profile_id: 'nope', targets: [{ id: 'm', quota: { completes_goal: 10 } }] }] },
    ]) {
      const res = await api.req('PUT', path(tgPath), { body });
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body).toMatchObject({ object: 'unprocessable_entity_error', title: 'profile request validation', detail: expect.stringMatching(/^Validation error/) });
    }
    expect(await api.state()).toEqual(before);
  });

  it('404 when the project or target group does not exist', async () => {
    const { project } = await draft();
    const body = { profiles: [{ profile_id: 'gender', targets: [{ id: 'm', quota: { completes_goal: 100 } }] }] };
    expect((await api.req('PUT', `${P()}/projects/${project.id}/target-groups/tg_nope/profiles/completes-goal`, { body })).status).toBe(404);
    expect((await api.req('PUT', `${P()}/projects/prj_nope/target-groups/tg_nope/profiles/completes-goal`, { body })).status).toBe(404);
  });

  it('works on a live target group; old names before 2025-12-18; a renamed field in 2025-12-18 stays 400', async () => {
    const { tgPath } = await draft(V_MID, { live_url: 'https://s.example/x' });
    await api.req('POST', `${tgPath}/profiles/apply-profiles`, { body: { profiles: [legacyGender()] }, version: V_MID });
    const legacy = await api.req('PUT', path(tgPath), { body: { profiles: [{ id: 'gender', ungrouped: [{ id: 'm', quota: { quota_percentage: 70 } }] }] }, version: V_MID });
    expect(legacy.status, legacy.text).toBe(200);
    expect(legacy.body.profiles[0].ungrouped[0].quota).toMatchObject({ quota_percentage: 70, filling_goal: 140 });
    const renamed = await api.req('PUT', path(tgPath), { body: { profiles: [{ profile_id: 'gender', targets: [{ id: 'm', quota: { quota_percentage: 70 } }] }] } });
    expect(renamed.status).toBe(400);
    expect(renamed.body.invalid_params).toContainEqual({ name: 'profiles[0].targets[0].quota.quota_percentage', reason: 'renamed to completes_goal_percentage in 2025-12-18; only completes_goal is updated here' });
    // A launched target group takes the 2025-12-18 update.
    const { tgPath: newPath } = await draft(V_NEW, { live_url: 'https://s.example/x', profiling: nominal(gender()) });
    const launch = await api.req('POST', `${newPath}/fielding-run-jobs/launch-from-draft`, { body: { end_fielding_at: '2099-01-01T00:00:00Z' } });
    await api.waitForJob(launch.headers.get('location')!);
    const live = await api.req('PUT', path(newPath), { body: { completes_goal: 400 } });
    expect([live.status, live.body.profiles[0].targets.map((t: { quota: { completes_goal: number } }) => t.quota.completes_goal)]).toEqual([200, [200, 200]]);
  });
});

describe('Profiles › create profile and update profile conditions', () => {
  it('POST TG/profiles adds one regular profile (201); PUT …/{profile_id}/conditions replaces its targets', async () => {
    const { tgPath } = await draft();
    const create = await api.req('POST', `${tgPath}/profiles`, { body: kids() });
    expect(create.status, create.text).toBe(201);
    expect(create.body).toMatchObject({ object: 'regular', id: 'kids' });
    const update = await api.req('PUT', `${tgPath}/profiles/kids/conditions`, { body: { targets: [{ id: 'yes', conditions: [{ object: 'selection', question_id: 7064, option: '1' }] }] } });
    expect(update.status, update.text).toBe(200);
    expect(update.body.targets.map((t: { id: string }) => t.id)).toEqual(['yes']);
    expect((await api.req('PUT', `${tgPath}/profiles/nope/conditions`, { body: { targets: [] } })).status).toBe(404);
    const dup = await api.req('POST', `${tgPath}/profiles`, { body: { ...kids(), id: 'kids2' } });
    expect([dup.status, dup.body.object]).toEqual([422, 'duplicate_question']);
    const renamed = await api.req('PUT', `${tgPath}/profiles/kids/conditions`, { body: { ungrouped: [] } });
    expect(renamed.body.invalid_params).toEqual([{ name: 'ungrouped', reason: 'renamed to target in 2025-12-18' }]);
  });
});

describe('Profiles › endpoints removed in 2025-12-18', () => {
  it('404 in 2025-12-18 for disable-quotas, list, convert-to-regular-profile and group-quotas', async () => {
    const { tgPath } = await draft(V_MID);
    expect((await api.req('PUT', `${tgPath}/profiles/disable-quotas`)).status).toBe(404);
    expect((await api.req('GET', `${tgPath}/profiles`)).status).toBe(404);
    expect((await api.req('POST', `${tgPath}/profiles/convert-to-regular-profile`, { body: { profile_id: 'x' } })).status).toBe(404);
    expect((await api.req('POST', `${tgPath}/profiles/group-quotas`, { body: { profile_id: 'x', target_ids: ['a', 'b'] } })).status).toBe(404);
  });

  it('answer in older versions', async () => {
    const { tgPath } = await draft(V_OLD);
    const kidsLegacy = { id: 'kids', name: 'Kids', quotas_enabled: false, ungrouped: [{ id: 'yes', index: { object: 'selection', question_id: 7064, option: '1' } }, { id: 'no', index: { object: 'selection', question_id: 7064, option: '2' } }] };
    await api.req('POST', `${tgPath}/profiles/apply-profiles`, { body: { profiles: [legacyGender(), kidsLegacy] }, version: V_OLD });
    const list = await api.req('GET', `${tgPath}/profiles`, { version: V_OLD });
    expect(list.status).toBe(200);
    expect(list.body.profiles.map((p: { id: string }) => p.id)).toEqual(['gender', 'kids']);
    const disabled = await api.req('PUT', `${tgPath}/profiles/disable-quotas`, { version: V_OLD });
    expect(disabled.status, disabled.text).toBe(200);
    expect(disabled.body.profiles.every((p: { quotas_enabled: boolean }) => !p.quotas_enabled)).toBe(true);
    const grouped = await api.req('POST', `${tgPath}/profiles/group-quotas`, { body: { profile_id: 'kids', target_ids: ['yes', 'no'], name: 'Any' }, version: V_OLD });
    expect(grouped.status, grouped.text).toBe(200);
    expect(grouped.body.profiles[1].grouped[0]).toMatchObject({ id: 'yes', text: 'Any' });
    expect(grouped.body.profiles[1].grouped[0].indexes).toHaveLength(2);
    const blend = await api.req('POST', `${tgPath}/profiles/create_interlocked_profile`, { body: { profile_ids: ['gender', 'kids'] }, version: V_OLD });
    expect(blend.status, blend.text).toBe(201);
    const blendedId = blend.body.interlocked_profiles[0].id;
    const converted = await api.req('POST', `${tgPath}/profiles/convert-to-regular-profile`, { body: { profile_id: blendedId }, version: V_OLD });
    expect(converted.status, converted.text).toBe(200);
    expect(converted.body.interlocked_profiles).toEqual([]);
    expect(converted.body.profiles).toHaveLength(2);
    expect((await api.req('POST', `${tgPath}/profiles/convert-to-regular-profile`, { body: { profile_id: 'kids' }, version: V_OLD })).status).toBe(422);
  });
});

describe('Profiles › templates', () => {
  it('lists the seeded templates and shows one in the request version', async () => {
    const list = await api.req('GET', `${P()}/profiles/templates`);
    expect(list.body.data.map((t: { id: string }) => t.id)).toContain('0b7c3f6e-5a41-4c1e-9a6d-1f2e3d4c5b01');
    const one = await api.req('GET', `${P()}/profiles/templates/0b7c3f6e-5a41-4c1e-9a6d-1f2e3d4c5b01`);
    expect(one.body.profiles).toHaveLength(2);
    expect((await api.req('GET', `${P()}/profiles/templates/0b7c3f6e-5a41-4c1e-9a6d-1f2e3d4c5b01`, { version: V_MID })).body.profiles[0]).toHaveProperty('ungrouped');
    expect((await api.req('GET', `${P()}/profiles/templates/nope`)).status).toBe(404);
  });

  it('applies a template to a draft in its profiling, alone or with own profiles (the template\'s come first)', async () => {
    const { tgPath, tg } = await draft(V_NEW, { filling_goal: 500, profiling: { ...percentage(kids()), template_id: TEMPLATE } });
    expect(tg.profiling.template_id).toBe(TEMPLATE);
    const stored = (sb.services.store.data.target_groups[tg.id] as any).profiles;
    expect(stored.map((p: { template_id: string | null }) => p.template_id)).toEqual([TEMPLATE, TEMPLATE, null]);
    expect((await setProfiling(tgPath, { profile_adjustment_type: 'percentage', template_id: '0b7c3f6e-5a41-4c1e-9a6d-1f2e3d4c5b02' })).status).toBe(204);
    expect((await profilingOf(tgPath)).profiles).toHaveLength(1);
  });
});
