// Spec: "Resources and their fields › Target group", "Endpoints › Target groups", recontact rules.
import { beforeEach, describe, expect, it } from 'vitest';
import { useTestSandbox } from '../fixtures/sandbox';
import { OPEN_EXCHANGE, P, V_MID, draftBody, paramNames } from './sandbox-test-client';

const { sb, api } = useTestSandbox({ resetBeforeEach: true });
let projectId: string;
let tgs: string;
beforeEach(async () => {
  projectId = (await api.createProject()).id;
  tgs = `${P()}/projects/${projectId}/target-groups`;
});

const REQUIRED = ['expected_incidence_rate', 'expected_length_of_interview_minutes', 'filling_goal', 'project_manager_id', 'collects_pii'];
const RECONTACT = { study_type_code: 'recontact', allocations: { template_id: 'recontact-global' } };
/** RSIDs are UUIDs (the reference). */
const rsid = (i: number) => `0e8b5c1a-1234-4abc-8def-${String(i).padStart(12, '0')}`;

/** A draft launched from draft (its job awaited): the group has left draft. */
async function launched(overrides: Record<string, unknown> = {}) {
  const tg = await api.createTargetGroup(projectId, { live_url: 'https://s.example/a', ...overrides });
  const launch = await api.req('POST', `${tgs}/${tg.id}/fielding-run-jobs/launch-from-draft`, { body: { end_fielding_at: '2099-01-01T00:00:00Z' } });
  await api.waitForJob(launch.headers.get('location')!);
  return tg;
}

describe('Resources and their fields › Target group', () => {
  it('creates a draft: 201 {id} (a ULID, reference: CreatedDraftTargetGroupResponse); the get carries every documented field', async () => {
    const window = { start_at: '2027-01-04T00:00:00.000Z', end_at: '2027-02-01T00:00:00.000Z' };
    const res = await api.req('POST', tgs, { body: draftBody({ target_group_customer_reference_number: 'TG-1', business_unit_id: '2001', fielding_specification: window }) });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ id: expect.stringMatching(/^[0-9A-Z]{26}$/) });
    expect(res.headers.get('location')).toBe(`${tgs}/${res.body.id}`);
    const read = (await api.req('GET', `${tgs}/${res.body.id}`)).body;
    // The reference's FetchTargetGroupResponse: the goal is completes_goal; no id, status or fielding run;
    // fields without a value are left out (none is nullable there).
    expect(read).toMatchObject({ completes_goal: 200, study_type_code: 'adhoc', business_unit_id: 2001, fielding_specification: window, target_group_customer_reference_number: 'TG-1' });
    for (const field of ['id', 'project_id', 'status', 'fielding_run_id', 'end_fielding_at', 'filling_goal', 'live_url', 'test_url', 'updated_at']) expect(read).not.toHaveProperty(field);
    // pricing_model, type and the note as the spec says get returns them.
    for (const field of ['pricing_model', 'type', 'respondent_activity_exclusions', 'allocations', 'fielding_assistant_assignment', 'created_at']) {
      expect(read).toHaveProperty(field);
    }
  });

  it.each([
    [{ business_unit_id: '2101' }, 'business_unit_id'],
    [{ fielding_specification: { start_at: '2027-02-01T00:00:00Z', end_at: '2027-01-01T00:00:00Z' } }, 'fielding_specification.end_at'],
    [{ fielding_specification: { start_at: 'soon', end_at: '2027-01-01T00:00:00Z' } }, 'fielding_specification.start_at'],
    [{ study_type: 'adhoc' }, 'study_type'],
  ])('refuses %j with 400 bad_request_error naming %s', async (patch, field) => {
    const res = await api.req('POST', tgs, { body: draftBody(patch) });
    expect(res.status).toBe(400);
    expect(res.body.object).toBe('bad_request_error');
    expect(paramNames(res)).toEqual([field]);
  });

  it.each(REQUIRED)('requires %s on draft create', async (field) => {
    const body: Record<string, unknown> = draftBody();
    delete body[field];
    const res = await api.req('POST', tgs, { body });
    expect(res.status).toBe(400);
    expect(res.body.invalid_params).toEqual([{ name: field, reason: 'is required' }]);
  });

  it.each(REQUIRED)('refuses null for %s on draft create and update', async (field) => {
    const create = await api.req('POST', tgs, { body: draftBody({ [field]: null }) });
    expect(create.status).toBe(400);
    expect(create.body.invalid_params).toEqual([{ name: field, reason: 'must not be null' }]);
    const tg = await api.createTargetGroup(projectId);
    const update = await api.req('PUT', `${tgs}/${tg.id}`, { body: draftBody({ [field]: null }) });
    expect(update.status).toBe(400);
    expect(paramNames(update)).toEqual([field]);
  });

  it.each([
    ['expected_incidence_rate', 0],
    ['expected_incidence_rate', 1.01],
    ['expected_incidence_rate', '0.5'],
    ['expected_length_of_interview_minutes', 0],
    ['expected_length_of_interview_minutes', 12.5],
    ['filling_goal', 0],
    ['filling_goal', 10_001],
    ['collects_pii', 'yes'],
    ['live_url', 'not a url'],
    ['live_url', 'ftp://x.example/a'],
    ['locale', 'English'],
    ['study_type_code', 'panel'],
  ])('rejects %s = %j with 400 naming it', async (field, value) => {
    const res = await api.req('POST', tgs, { body: draftBody({ [field]: value }) });
    expect(res.status).toBe(400);
    expect(paramNames(res)).toEqual([field]);
  });

  it('accepts the bounds expected_incidence_rate 1 and filling_goal 10000', async () => {
    expect((await api.req('POST', tgs, { body: draftBody({ expected_incidence_rate: 1, filling_goal: 10_000 }) })).status).toBe(201);
  });

  it('answers 400 bad_request_error for a project manager who is not in the account (the reference documents no 422 on create)', async () => {
    const res = await api.req('POST', tgs, { body: draftBody({ project_manager_id: '6f1c2a4e-3101-4c8e-9d2b-000000003101' }) });
    expect([res.status, res.body.object]).toEqual([400, 'bad_request_error']);
    expect(paramNames(res)).toEqual(['project_manager_id']);
  });

  it('answers 404 for an unknown project', async () => {
    expect((await api.req('POST', `${P()}/projects/prj_nope/target-groups`, { body: draftBody() })).status).toBe(404);
  });

  it('refuses profiles and read-only fields in the target group body', async () => {
    const res = await api.req('POST', tgs, { body: draftBody({ profiles: [], status: 'live' }) });
    expect(res.status).toBe(400);
    expect(paramNames(res).sort()).toEqual(['profiles', 'status']);
  });
});

describe('Endpoints › Target groups', () => {
  it('updates a draft with PUT: 204 without a body (same shape; omitted optional fields reset)', async () => {
    const tg = await api.createTargetGroup(projectId, { live_url: 'https://s.example/a', name: 'A' });
    const res = await api.req('PUT', `${tgs}/${tg.id}`, { body: draftBody({ filling_goal: 300 }) });
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    const read = await api.req('GET', `${tgs}/${tg.id}`);
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ completes_goal: 300 });
    expect(read.body).not.toHaveProperty('live_url');
  });

  it('allows draft update only while the target group is a draft (422 afterwards)', async () => {
    const tg = await launched();
    const res = await api.req('PUT', `${tgs}/${tg.id}`, { body: draftBody() });
    expect(res.status).toBe(422);
    expect(res.body.object).toBe('invalid_state_error');
  });

  it('gets a draft target group and answers 404 under another project', async () => {
    const tg = await api.createTargetGroup(projectId);
    expect({ id: tg.id, ...(await api.req('GET', `${tgs}/${tg.id}`)).body }).toEqual(tg);
    const other = await api.createProject();
    expect((await api.req('GET', `${P()}/projects/${other.id}/target-groups/${tg.id}`)).status).toBe(404);
  });

  it('a draft has no details or overview (404) and no fielding run; once launched, GET TG answers 301 to its details', async () => {
    const draft = await api.createTargetGroup(projectId);
    for (const tail of ['details', 'overview']) {
      const res = await api.req('GET', `${tgs}/${draft.id}/${tail}`);
      expect(res.status).toBe(404);
      expect(res.body.object).toBe('not_found_error');
    }
    expect((await api.req('GET', `${tgs}/${draft.id}/fielding-runs`)).body).toEqual({ data: [], has_more: false });
    const tg = await launched({ name: 'Launched group', test_url: 'https://s.example/t', target_group_customer_reference_number: 'TG-L' });
    const moved = await api.req('GET', `${tgs}/${tg.id}`);
    expect(moved.status).toBe(301);
    expect(moved.headers.get('location')).toBe(`${tgs}/${tg.id}/details`);
    expect(moved.text).toBe('');
    const details = await api.req('GET', `${tgs}/${tg.id}/details`);
    expect(details.body).toMatchObject({
      id: tg.id, name: 'Launched group', account_name: 'Sandbox Research Buyer', project_manager_id: tg.project_manager_id, study_type_code: 'adhoc', industry_code: 'other',
      completes_goal: 200, industry_lockout_code: 'no_lock_out', collects_pii: false, live_url: 'https://s.example/a', links: { test_client_survey: 'https://s.example/t' },
      target_group_customer_reference_number: 'TG-L', created_at: tg.created_at,
    });
    for (const field of ['status', 'fielding_run_id', 'allocations', 'filling_goal']) expect(details.body).not.toHaveProperty(field);
    const runs = (await api.req('GET', `${tgs}/${tg.id}/fielding-runs`)).body;
    expect(runs).toMatchObject({ has_more: false, data: [{ status: 'live', version: 1 }] });
    expect(runs.data).toHaveLength(1);
    expect((await api.req('GET', `${tgs}/${tg.id}/fielding-runs/${runs.data[0].id}`)).body).toEqual(runs.data[0]);
  });

  it('lists {target_groups, url, has_more, next_cursor} and filters by the plural target_group_customer_reference_numbers', async () => {
    const a = await api.createTargetGroup(projectId, { target_group_customer_reference_number: 'ref-a' });
    const b = await api.createTargetGroup(projectId, { target_group_customer_reference_number: 'ref-b' });
    const c = await api.createTargetGroup(projectId, { target_group_customer_reference_number: 'ref-c' });
    const page = await api.req('GET', `${tgs}?page_size=1`);
    expect(page.body.target_groups).toHaveLength(1);
    expect(page.body).toMatchObject({ url: tgs, has_more: true });
    expect(page.body.target_groups[0]).toMatchObject({ id: a.id, status: 'draft', statistics: { progress: { issues: [] } } });
    const next = await api.req('GET', `${tgs}?page_size=1&start_after=${page.body.next_cursor}`);
    expect(next.body.target_groups[0].id).toBe(b.id);
    const repeated = await api.req('GET', `${tgs}?target_group_customer_reference_numbers=ref-b&target_group_customer_reference_numbers=ref-c`);
    expect(repeated.body.target_groups.map((t: { id: string }) => t.id)).toEqual([b.id, c.id]);
    const comma = await api.req('GET', `${tgs}?target_group_customer_reference_numbers=ref-c,ref-a`);
    expect(comma.body.target_groups.map((t: { id: string }) => t.id)).toEqual([a.id, c.id]);
    expect(page.body).not.toHaveProperty('data');
  });

  it('serves a launched group\'s overview (TargetGroupOverview): status, progress, money, the pricing fields', async () => {
    const tg = await launched({ locale: 'en_US', name: 'Overview group' });
    const res = await api.req('GET', `${tgs}/${tg.id}/overview`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      target_group_name: 'Overview group', project_name: 'Brand tracker', status: 'live', pricing_model: 'rate_card', type: 'rate_card', is_pricing_restricted: false,
      progress: { current_completes: 0, current_prescreens: 0, filling_goal: 200, filling_strategy: 'completes' },
      current_cost: { value: '0.00', currency_code: 'USD' }, country_code: 'US', language_code: 'EN', conversion_rate: 0, drop_off_rate: 0, incidence_rate: 0,
    });
    expect(res.body).not.toHaveProperty('id');
  });

  it('takes client_cost_per_interview_note as money from 2025-12-18 and refuses text or a bad amount, naming the field', async () => {
    for (const [note, name] of [
      ['about 2 USD', 'client_cost_per_interview_note'],
      [2.5, 'client_cost_per_interview_note'],
      [{ value: 'two', currency_code: 'USD' }, 'client_cost_per_interview_note.value'],
      [{ value: '2.50', currency_code: 'usd' }, 'client_cost_per_interview_note.currency_code'],
      [{ value: '2.50', currency: 'USD' }, 'client_cost_per_interview_note.currency'],
    ] as const) {
      const res = await api.req('POST', tgs, { body: draftBody({ client_cost_per_interview_note: note }) });
      expect([res.status, res.body.object], JSON.stringify(note)).toEqual([400, 'bad_request_error']);
      expect(paramNames(res)).toEqual([name]);
    }
    const made = await api.req('POST', tgs, { body: draftBody({ client_cost_per_interview_note: { value: '2.50' } }) });
    expect(made.status).toBe(201);
  });

  it('requires the reference\'s draft fields from 2025-12-18: name, business unit, locale, fielding window, fielding assistant, allocations', async () => {
    for (const field of ['name', 'business_unit_id', 'locale', 'fielding_specification', 'fielding_assistant_assignment', 'allocations']) {
      const { [field]: _gone, ...body } = draftBody() as Record<string, unknown>;
      const res = await api.req('POST', tgs, { body });
      expect([res.status, paramNames(res)], field).toEqual([400, [field]]);
    }
    const older = await api.req('POST', tgs, { body: { ...draftBody(), business_unit_id: undefined, fielding_specification: undefined, allocations: undefined }, version: V_MID });
    expect(older.status).toBe(201);
  });

  it('emits target_group.created and target_group.updated (with changed fields) on the event bus', async () => {
    const seen: Array<{ name: string; payload: any }> = [];
    const off = sb.events.on('*', (e) => void seen.push(e as { name: string; payload: any }));
    const tg = await api.createTargetGroup(projectId);
    await api.req('PUT', `${tgs}/${tg.id}`, { body: draftBody({ filling_goal: 999 }) });
    await sb.events.idle();
    off();
    expect(seen.map((e) => e.name)).toEqual(['target_group.created', 'target_group.updated']);
    expect(seen[1].payload.changed_fields).toContain('filling_goal');
    expect(seen[1].payload.target_group.filling_goal).toBe(999);
  });
});

describe('Resources and their fields › Target group › recontact study', () => {
  it('requires [%RECONTACT_RSID%] in live_url when live_url is set', async () => {
    const bad = await api.req('POST', tgs, { body: draftBody({ ...RECONTACT, live_url: 'https://s.example/r' }) });
    expect(bad.status).toBe(400);
    expect(paramNames(bad)).toEqual(['live_url']);
    expect((await api.req('POST', tgs, { body: draftBody({ ...RECONTACT, live_url: 'https://s.example/r?id=[%RECONTACT_RSID%]' }) })).status).toBe(201);
    expect((await api.req('POST', tgs, { body: draftBody(RECONTACT) })).status).toBe(201);
  });

  it('requires the recontact global allocations template (template_id recontact-global)', async () => {
    for (const allocations of [{ ...OPEN_EXCHANGE }, { ...OPEN_EXCHANGE, template_id: 'other' }, { ...OPEN_EXCHANGE, template_id: null }]) {
      const res = await api.req('POST', tgs, { body: draftBody({ study_type_code: 'recontact', allocations }) });
      expect(res.status).toBe(400);
      expect(paramNames(res)).toEqual(['allocations.template_id']);
    }
    // From 2025-12-18 allocations are required of every draft (reference: CreateDraftTargetGroupRequest).
    const { allocations: _a, ...without } = draftBody({ study_type_code: 'recontact' });
    expect(paramNames(await api.req('POST', tgs, { body: without }))).toContain('allocations');
  });

  it('keeps recontact-global for recontact studies only', async () => {
    const res = await api.req('POST', tgs, { body: draftBody({ allocations: { template_id: 'recontact-global' } }) });
    expect(res.status).toBe(400);
    expect(paramNames(res)).toEqual(['allocations.template_id']);
  });

  it('uploads the recontact respondent list only for recontact studies (job Processing -> Completed)', async () => {
    const adhoc = await api.createTargetGroup(projectId);
    const refused = await api.upload(`${tgs}/${adhoc.id}/recontacts/jobs/upload-respondents-by-file`, `${rsid(1)}\n`, 'RSID');
    expect(refused.status).toBe(422);
    expect(refused.body.object).toBe('study_type_not_recontact');
    const tg = await api.createTargetGroup(projectId, RECONTACT);
    const path = `${tgs}/${tg.id}/recontacts/jobs/upload-respondents-by-file`;
    const up = await api.upload(path, `${rsid(1)}\n${rsid(2)}\n`, 'RSID');
    expect(up.status).toBe(201);
    expect((await api.req('GET', `${path}/${up.body.job_id}`)).body.status).toBe('Processing');
    expect(Object.keys(up.body)).toEqual(['job_id']);
    const done = await api.waitForJob(`${path}/${up.body.job_id}`);
    expect(Object.keys(done.body).sort()).toEqual(['completed_at', 'created_at', 'created_by', 'job_id', 'status']);
    expect(done.body.status).toBe('Completed');
    expect(sb.state().jobs[up.body.job_id].result).toMatchObject({ ids_added: 2 });
    expect(sb.state().recontact_respondents[tg.id].rsid).toEqual([rsid(1), rsid(2)]);
  });

  it('refuses a recontact upload with an RSID that is not a UUID at once (400), naming the line', async () => {
    const tg = await api.createTargetGroup(projectId, RECONTACT);
    const path = `${tgs}/${tg.id}/recontacts/jobs/upload-respondents-by-file`;
    const up = await api.upload(path, `${rsid(1)}\nnot ok\n`, 'RSID');
    expect(up.status).toBe(400);
    expect(up.body).toMatchObject({ object: 'bad_request_error', invalid_params: [{ name: 'file', reason: 'line 2 is not an RSID (a UUID)' }] });
  });

  it('refuses to launch a recontact study before respondents are uploaded', async () => {
    const tg = await api.createTargetGroup(projectId, { ...RECONTACT, live_url: 'https://s.example/r?id=[%RECONTACT_RSID%]' });
    const launch = `${tgs}/${tg.id}/fielding-run-jobs/launch-from-draft`;
    const res = await api.req('POST', launch, { body: { end_fielding_at: '2099-01-01T00:00:00Z' } });
    expect(res.status).toBe(422);
    expect(res.body.object).toBe('recontact_respondents_required');
    const up = await api.upload(`${tgs}/${tg.id}/recontacts/jobs/upload-respondents-by-file`, `${rsid(1)}\n`, 'RSID');
    await api.waitForJob(`${tgs}/${tg.id}/recontacts/jobs/upload-respondents-by-file/${up.body.job_id}`);
    expect((await api.req('POST', launch, { body: { end_fielding_at: '2099-01-01T00:00:00Z' } })).status).toBe(201);
  });

  it('accepts the old-version shape of a recontact draft too', async () => {
    const res = await api.req('POST', tgs, { version: V_MID, body: draftBody(RECONTACT) });
    expect(res.status).toBe(201);
  });
});
