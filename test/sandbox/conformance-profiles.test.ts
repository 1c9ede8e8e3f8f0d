// Spec: Resources › Profile (2025-12-18 shape), Endpoints › profile operations, Errors (update quotas,
// duplicate conditions), Versioning (renames, removed endpoints, forward-only). Sandbox choices: docs/sandbox.md.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../sandbox/index';
import { P, SandboxTestClient, V_MID, V_NEW, V_OLD, paramNames, startTestSandbox } from './sandbox-test-client';

let sb: RunningSandbox;
let api: SandboxTestClient;
beforeAll(async () => {
  ({ sb, api } = await startTestSandbox());
});
beforeEach(() => {
  sb.reset();
  sb.setFaults({ job_duration_ms: 20 });
});
afterAll(() => sb.close());

const gender = (overrides: Record<string, unknown> = {}) => ({
  object: 'regular',
  id: 'gender',
  name: 'Gender',
  quotas_enabled: true,
  targets: [
    { id: 'm', conditions: [{ object: 'selection', question_id: 43, option: '1' }], quota: { completes_goal_percentage: 50 } },
    { id: 'f', conditions: [{ object: 'selection', question_id: 43, option: '2' }], quota: { completes_goal: 100 } },
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
const legacyGender = () => ({
  id: 'gender', name: 'Gender', quotas_enabled: true,
  ungrouped: [
    { id: 'm', index: { object: 'selection', question_id: 43, option: '1' }, quota: { quota_percentage: 50 } },
    { id: 'f', index: { object: 'selection', question_id: 43, option: '2' }, quota: { filling_goal: 100, quota_nominal: 100 } },
  ],
  grouped: [],
});

async function draft(version = V_NEW, overrides: Record<string, unknown> = {}) {
  return api.projectWithTargetGroup(overrides, { version });
}

async function launch(tgPath: string) {
  const update = await api.req('GET', tgPath);
  const body = { ...update.body };
  const res = await api.req('POST', `${tgPath}/fielding-run-jobs/launch-from-draft`, { body: { end_fielding_at: '2099-01-01T00:00:00Z' } });
  expect(res.status, res.text).toBe(201);
  await api.waitForJob(res.headers.get('location')!);
  return body;
}

describe('Profiles › validate (POST P/profiles/validate)', () => {
  const validate = (body: unknown, version = V_NEW) => api.req('POST', `${P()}/profiles/validate`, { body, version });

  it('answers 204 for a valid set and changes nothing', async () => {
    const before = await api.state();
    const res = await validate({ locale: 'eng_us', filling_goal: 200, profiles: [gender(), kids()] });
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expect(await api.state()).toEqual(before);
  });

  it('rejects duplicate selection or range conditions with 422 duplicate_condition', async () => {
    const duplicate = gender();
    duplicate.targets[1].conditions = [{ object: 'selection', question_id: 43, option: '1' }];
    const res = await validate({ locale: 'eng_us', filling_goal: 200, profiles: [duplicate] });
    expect(res.status).toBe(422);
    expect(res.body.object).toBe('duplicate_condition');
    expect(paramNames(res)).toEqual(['profiles[0].targets[1].conditions[0]']);
    const ranges = { object: 'regular', name: 'Age', quotas_enabled: false, targets: [{ conditions: [{ object: 'range', question_id: 42, min: 18, max: 30 }, { object: 'range', question_id: 42, min: 18, max: 30 }] }] };
    expect((await validate({ locale: 'eng_us', profiles: [ranges] })).body.object).toBe('duplicate_condition');
  });

  it('accepts duplicate zip codes (they are removed silently)', async () => {
    const zip = { object: 'regular', name: 'Zip', quotas_enabled: false, targets: [{ conditions: [{ object: 'zip_code', question_id: 45, zip_codes: ['10001', '10001', '10002'] }] }] };
    expect((await validate({ locale: 'eng_us', profiles: [zip] })).status).toBe(204);
  });

  it('answers 400 naming the new field for a renamed-away field in 2025-12-18, and accepts the old names before', async () => {
    const res = await validate({ locale: 'eng_us', filling_goal: 200, profiles: [legacyGender()] });
    expect(res.status).toBe(400);
    expect(res.body.object).toBe('bad_request');
    expect(res.body.invalid_params).toContainEqual({ name: 'ungrouped', reason: 'renamed to target in 2025-12-18' });
    const quota = gender();
    (quota.targets[0].quota as Record<string, unknown>) = { quota_percentage: 50 };
    expect((await validate({ locale: 'eng_us', filling_goal: 200, profiles: [quota] })).body.invalid_params).toEqual([{ name: 'quota_percentage', reason: 'renamed to completes_goal_percentage in 2025-12-18' }]);
    expect((await validate({ locale: 'eng_us', filling_goal: 200, profiles: [], interlocked_profiles: [] })).body.invalid_params[0].name).toBe('interlocked_profiles');
    expect((await validate({ locale: 'eng_us', filling_goal: 200, profiles: [legacyGender()] }, V_MID)).status).toBe(204);
    expect((await validate({ locale: 'eng_us', filling_goal: 200, profiles: [gender()] }, V_OLD)).status).toBe(400);
  });

  it('needs a locale (or a target group), takes the target group\'s locale and filling goal, and applies templates', async () => {
    expect(paramNames(await validate({ profiles: [gender()] }))).toEqual(['locale']);
    const { tg } = await draft();
    const viaGroup = await validate({ target_group_id: tg.id, profiles: [gender({ targets: gender().targets.map((t) => ({ ...t, quota: { completes_goal: 50 } })) })] });
    expect(viaGroup.status).toBe(422);
    expect(viaGroup.body.object).toBe('quota_sum_below_filling_goal');
    expect((await validate({ target_group_id: 'tg_missing', profiles: [] })).status).toBe(404);
    expect((await validate({ locale: 'eng_us', filling_goal: 500, profiles: [kids()], profile_template_ids: ['tpl_gen_pop_age_gender'] })).status).toBe(204);
    expect((await validate({ locale: 'eng_us', profiles: [], profile_template_ids: ['nope'] })).body.object).toBe('unknown_profile_template');
  });
});

describe('Profiles › manage-profiles (apply-profiles before 2025-12-18)', () => {
  it('replaces every profile of a draft and shows them on the target group', async () => {
    const { tgPath } = await draft();
    const first = await api.req('POST', `${tgPath}/profiles/manage-profiles`, { body: { profiles: [gender(), kids()] } });
    expect(first.status, first.text).toBe(200);
    expect(first.body.profiles.map((p: { id: string }) => p.id)).toEqual(['gender', 'kids']);
    expect(first.body.profiles[0].targets[0].quota).toEqual({ name: 'Male', completes_goal_percentage: 50, completes_goal: 100, quota_nominal: 100, completes: 0, prescreens: 0 });
    const second = await api.req('POST', `${tgPath}/profiles/manage-profiles`, { body: { profiles: [kids()] } });
    expect(second.body.profiles.map((p: { id: string }) => p.id)).toEqual(['kids']);
    expect((await api.req('GET', tgPath)).body.profiles.map((p: { id: string }) => p.id)).toEqual(['kids']);
  });

  it('stores zip codes without duplicates', async () => {
    const { tgPath } = await draft();
    const zip = { object: 'regular', name: 'Zip', quotas_enabled: false, targets: [{ conditions: [{ object: 'zip_code', question_id: 45, zip_codes: ['10001', '10001', ' 10002'] }] }] };
    const res = await api.req('POST', `${tgPath}/profiles/manage-profiles`, { body: { profiles: [zip] } });
    expect(res.body.profiles[0].targets[0].conditions[0].zip_codes).toEqual(['10001', '10002']);
  });

  it('a rejected set changes nothing', async () => {
    const { tgPath } = await draft();
    await api.req('POST', `${tgPath}/profiles/manage-profiles`, { body: { profiles: [kids()] } });
    const before = await api.state();
    const bad = gender();
    bad.targets[0].conditions[0].option = '99';
    const res = await api.req('POST', `${tgPath}/profiles/manage-profiles`, { body: { profiles: [bad] } });
    expect(res.status).toBe(422);
    expect(res.body.object).toBe('unknown_option');
    expect(await api.state()).toEqual(before);
  });

  it('is 404 under the old name in 2025-12-18 and under the new name before; the old name works in older versions', async () => {
    const { tgPath } = await draft(V_MID);
    expect((await api.req('POST', `${tgPath}/profiles/apply-profiles`, { body: { profiles: [] } })).status).toBe(404);
    expect((await api.req('POST', `${tgPath}/profiles/manage-profiles`, { body: { profiles: [] }, version: V_MID })).status).toBe(404);
    const res = await api.req('POST', `${tgPath}/profiles/apply-profiles`, { body: { profiles: [legacyGender()] }, version: V_MID });
    expect(res.status, res.text).toBe(200);
    expect(res.body.profiles[0].ungrouped[0].quota).toEqual({ name: 'Male', quota_percentage: 50, filling_goal: 100, quota_nominal: 100, completes: 0, prescreens: 0 });
    expect(res.body.interlocked_profiles).toEqual([]);
    // The same profiles read with 2025-12-18 use the new names.
    const current = (await api.req('GET', tgPath)).body.profiles[0];
    expect(current.object).toBe('regular');
    expect(current.targets.map((t: { id: string }) => t.id)).toEqual(['m', 'f']);
    // Old-version reads of the target group show the old shape.
    expect((await api.req('GET', tgPath, { version: V_OLD })).body.profiles[0]).toHaveProperty('ungrouped');
  });

  it('forward-only: once written with 2025-12-18, older versions may not write the profiling', async () => {
    const { tgPath } = await draft(V_MID);
    await api.req('POST', `${tgPath}/profiles/manage-profiles`, { body: { profiles: [kids()] } });
    const res = await api.req('POST', `${tgPath}/profiles/apply-profiles`, { body: { profiles: [] }, version: V_MID });
    expect(res.status).toBe(400);
    expect(res.body.object).toBe('version_downgrade_not_allowed');
  });

  it('only drafts; recontact studies refuse profiling; a group without locale cannot be profiled', async () => {
    const { tgPath } = await draft(V_NEW, { live_url: 'https://s.example/x' });
    await launch(tgPath);
    const live = await api.req('POST', `${tgPath}/profiles/manage-profiles`, { body: { profiles: [kids()] } });
    expect([live.status, live.body.object]).toEqual([422, 'invalid_state_error']);
    const recontact = await draft(V_NEW, { study_type_code: 'recontact', allocations: { template_id: 'recontact-global' } });
    const refused = await api.req('POST', `${recontact.tgPath}/profiles/manage-profiles`, { body: { profiles: [kids()] } });
    expect([refused.status, refused.body.object]).toEqual([422, 'profiling_not_supported']);
    // From 2025-12-18 a draft always has a locale (the reference requires it); an older version's may not.
    const noLocale = await draft(V_MID, { locale: null });
    expect((await api.req('POST', `${noLocale.tgPath}/profiles/apply-profiles`, { body: { profiles: [] }, version: V_MID })).body.object).toBe('locale_required');
  });

  it('404 for a missing target group or project', async () => {
    const { project } = await draft();
    expect((await api.req('POST', `${P()}/projects/${project.id}/target-groups/tg_nope/profiles/manage-profiles`, { body: { profiles: [] } })).status).toBe(404);
    expect((await api.req('POST', `${P()}/projects/prj_nope/target-groups/tg_nope/profiles/manage-profiles`, { body: { profiles: [] } })).status).toBe(404);
  });

  it('a new filling goal keeps the quota percentages and recomputes the goals', async () => {
    const { tgPath, tg } = await draft();
    await api.req('POST', `${tgPath}/profiles/manage-profiles`, { body: { profiles: [gender()] } });
    const { id: _id, project_id: _p, status: _s, fielding_run_id: _f, end_fielding_at: _e, created_at: _c, updated_at: _u, profiles: _pr, pricing_model: _pm, type: _ty, ...rest } = (await api.req('GET', tgPath)).body;
    expect(tg.filling_goal).toBe(200);
    const res = await api.req('PUT', tgPath, { body: { ...rest, filling_goal: 400 } });
    expect(res.status, res.text).toBe(204);
    await sb.events.idle();
    const quotas = (await api.req('GET', tgPath)).body.profiles[0].targets.map((t: { quota: { completes_goal: number } }) => t.quota.completes_goal);
    expect(quotas).toEqual([200, 200]);
  });
});

describe('Profiles › blended profiles', () => {
  it('generate-blended-profile answers the set with the blended profile and saves nothing', async () => {
    const before = await api.state();
    const res = await api.req('POST', `${P()}/drafts/generate-blended-profile`, { body: { locale: 'eng_us', filling_goal: 200, profiles: [gender(), kids()], profile_ids: ['gender', 'kids'] } });
    expect(res.status, res.text).toBe(200);
    const blended = res.body.profiles[2];
    expect(blended).toMatchObject({ object: 'blended', profile_ids: ['gender', 'kids'], quotas_enabled: true });
    expect(blended.targets).toHaveLength(4);
    expect(blended.targets.reduce((sum: number, t: { quota: { completes_goal: number } }) => sum + t.quota.completes_goal, 0)).toBe(200);
    expect(await api.state()).toEqual(before);
    const legacy = await api.req('POST', `${P()}/drafts/generate-interlocked-profile`, { body: { locale: 'eng_us', filling_goal: 200, profiles: [legacyGender(), { id: 'kids', name: 'Kids', quotas_enabled: false, ungrouped: [{ id: 'y', index: { object: 'selection', question_id: 7064, option: '1' } }] }], profile_ids: ['gender', 'kids'] }, version: V_OLD });
    expect(legacy.status, legacy.text).toBe(200);
    expect(legacy.body.interlocked_profiles[0].grouped).toHaveLength(2);
    expect((await api.req('POST', `${P()}/drafts/generate-interlocked-profile`, { body: {} })).status).toBe(404);
    expect((await api.req('POST', `${P()}/drafts/generate-blended-profile`, { body: {}, version: V_MID })).status).toBe(404);
  });

  it('create-blended-profile adds it to the draft (201); unknown sources are 422', async () => {
    const { tgPath } = await draft();
    await api.req('POST', `${tgPath}/profiles/manage-profiles`, { body: { profiles: [gender(), kids()] } });
    const res = await api.req('POST', `${tgPath}/profiles/create-blended-profile`, { body: { profile_ids: ['gender', 'kids'], name: 'G×K', quotas_enabled: false } });
    expect(res.status, res.text).toBe(201);
    expect(res.body.profiles.map((p: { object: string }) => p.object)).toEqual(['regular', 'regular', 'blended']);
    expect((await api.req('GET', tgPath)).body.profiles).toHaveLength(3);
    const before = await api.state();
    const bad = await api.req('POST', `${tgPath}/profiles/create-blended-profile`, { body: { profile_ids: ['gender', 'nope'] } });
    expect([bad.status, bad.body.object]).toEqual([422, 'invalid_blended_profile']);
    expect(await api.state()).toEqual(before);
  });
});

describe('Profiles › supplier-quota-distribution (panel-distribution before 2025-12-18)', () => {
  it('splits the filling goal over the suppliers; old path only in older versions', async () => {
    const res = await api.req('POST', `${P()}/supplier-quota-distribution/draft`, { body: { locale: 'eng_us', filling_goal: 300, supplier_ids: [11, 12, 13], profiles: [gender({ targets: gender().targets.map((t) => ({ ...t, quota: { completes_goal: 150 } })) })] } });
    expect(res.status, res.text).toBe(200);
    expect(res.body.suppliers.reduce((sum: number, s: { completes_goal: number }) => sum + s.completes_goal, 0)).toBe(300);
    expect(res.body.suppliers[0].targets).toHaveLength(2);
    expect((await api.req('POST', `${P()}/supplier-quota-distribution/draft`, { body: { locale: 'eng_us', filling_goal: 300, supplier_ids: [] } })).status).toBe(400);
    expect((await api.req('POST', `${P()}/panel-distribution/draft`, { body: { locale: 'eng_us', filling_goal: 300, supplier_ids: [1] }, version: V_MID })).status).toBe(200);
    expect((await api.req('POST', `${P()}/panel-distribution/draft`, { body: { locale: 'eng_us', filling_goal: 300, supplier_ids: [1] } })).status).toBe(404);
  });
});

describe('Profiles › update quotas (PUT TG/profiles/completes-goal)', () => {
  const path = (tgPath: string) => `${tgPath}/profiles/completes-goal`;

  it('200 on success; the other half of the quota follows', async () => {
    const { tgPath } = await draft();
    await api.req('POST', `${tgPath}/profiles/manage-profiles`, { body: { profiles: [gender()] } });
    const res = await api.req('PUT', path(tgPath), { body: { profiles: [{ id: 'gender', targets: [{ id: 'm', quota: { completes_goal: 120 } }] }] } });
    expect(res.status, res.text).toBe(200);
    expect(res.body.profiles[0].targets[0].quota).toMatchObject({ completes_goal: 120, completes_goal_percentage: 60, quota_nominal: 120 });
  });

  it('422 for invalid updates (goals short of the filling goal, unknown targets, bad values, malformed bodies), state unchanged', async () => {
    const { tgPath } = await draft();
    await api.req('POST', `${tgPath}/profiles/manage-profiles`, { body: { profiles: [gender()] } });
    const before = await api.state();
    for (const body of [
      { profiles: [{ id: 'gender', targets: [{ id: 'm', quota: { completes_goal: 10 } }] }] },
      { profiles: [{ id: 'gender', targets: [{ id: 'zz', quota: { completes_goal: 10 } }] }] },
      { profiles: [{ id: 'nope', targets: [] }] },
      { profiles: [{ id: 'gender', targets: [{ id: 'm', quota: { completes_goal: 'many' } }] }] },
      { profiles: [] },
      { something: 1 },
    ]) {
      const res = await api.req('PUT', path(tgPath), { body });
      expect(res.status, JSON.stringify(body)).toBe(422);
    }
    expect(await api.state()).toEqual(before);
  });

  it('404 when the project or target group does not exist', async () => {
    const { project } = await draft();
    const body = { profiles: [{ id: 'gender', targets: [{ id: 'm', quota: { completes_goal: 100 } }] }] };
    expect((await api.req('PUT', `${P()}/projects/${project.id}/target-groups/tg_nope/profiles/completes-goal`, { body })).status).toBe(404);
    expect((await api.req('PUT', `${P()}/projects/prj_nope/target-groups/tg_nope/profiles/completes-goal`, { body })).status).toBe(404);
  });

  it('works on a live target group; old names before 2025-12-18; a renamed field in 2025-12-18 stays 400', async () => {
    const { tgPath } = await draft(V_MID, { live_url: 'https://s.example/x' });
    await api.req('POST', `${tgPath}/profiles/apply-profiles`, { body: { profiles: [legacyGender()] }, version: V_MID });
    const legacy = await api.req('PUT', path(tgPath), { body: { profiles: [{ id: 'gender', ungrouped: [{ id: 'm', quota: { quota_percentage: 70 } }] }] }, version: V_MID });
    expect(legacy.status, legacy.text).toBe(200);
    expect(legacy.body.profiles[0].ungrouped[0].quota).toMatchObject({ quota_percentage: 70, filling_goal: 140 });
    const renamed = await api.req('PUT', path(tgPath), { body: { profiles: [{ id: 'gender', targets: [{ id: 'm', quota: { quota_percentage: 70 } }] }] } });
    expect(renamed.status).toBe(400);
    expect(renamed.body.invalid_params).toEqual([{ name: 'quota_percentage', reason: 'renamed to completes_goal_percentage in 2025-12-18' }]);
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
    expect(list.body.data.map((t: { id: string }) => t.id)).toContain('tpl_gen_pop_age_gender');
    const one = await api.req('GET', `${P()}/profiles/templates/tpl_gen_pop_age_gender`);
    expect(one.body.profiles).toHaveLength(2);
    expect((await api.req('GET', `${P()}/profiles/templates/tpl_gen_pop_age_gender`, { version: V_MID })).body.profiles[0]).toHaveProperty('ungrouped');
    expect((await api.req('GET', `${P()}/profiles/templates/nope`)).status).toBe(404);
  });

  it('applies a template to a target group, alone or with own profiles', async () => {
    const { tgPath } = await draft();
    const res = await api.req('POST', `${tgPath}/profiles/manage-profiles`, { body: { profiles: [kids()], profile_template_ids: ['tpl_gen_pop_age_gender'] } });
    expect(res.status, res.text).toBe(200);
    expect(res.body.profiles.map((p: { template_id: string | null }) => p.template_id)).toEqual(['tpl_gen_pop_age_gender', 'tpl_gen_pop_age_gender', null]);
    const alone = await api.req('POST', `${tgPath}/profiles/manage-profiles`, { body: { profiles: [], profile_template_ids: ['tpl_parents'] } });
    expect(alone.body.profiles).toHaveLength(1);
  });
});
