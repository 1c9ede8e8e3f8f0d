// Spec: "Resources and their fields › Target group", "Endpoints › Target groups", recontact rules.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../sandbox/index';
import { OPEN_EXCHANGE, P, SandboxTestClient, V_MID, draftBody, paramNames, startTestSandbox } from './sandbox-test-client';

let sb: RunningSandbox;
let api: SandboxTestClient;
let projectId: string;
let tgs: string;
beforeAll(async () => {
  ({ sb, api } = await startTestSandbox());
});
beforeEach(async () => {
  sb.reset();
  projectId = (await api.createProject()).id;
  tgs = `${P()}/projects/${projectId}/target-groups`;
});
afterAll(() => sb.close());

const REQUIRED = ['expected_incidence_rate', 'expected_length_of_interview_minutes', 'filling_goal', 'project_manager_id', 'collects_pii'];
const RECONTACT = { study_type_code: 'recontact', allocations: { template_id: 'recontact-global' } };

describe('Resources and their fields › Target group', () => {
  it('creates a draft: 201 {id} (a ULID, reference: CreatedDraftTargetGroupResponse); the get carries every documented field', async () => {
    const window = { start_at: '2027-01-04T00:00:00.000Z', end_at: '2027-02-01T00:00:00.000Z' };
    const res = await api.req('POST', tgs, { body: draftBody({ target_group_customer_reference_number: 'TG-1', business_unit_id: '2001', fielding_specification: window }) });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ id: expect.stringMatching(/^[0-9A-Z]{26}$/) });
    expect(res.headers.get('location')).toBe(`${tgs}/${res.body.id}`);
    const read = (await api.req('GET', `${tgs}/${res.body.id}`)).body;
    expect(read).toMatchObject({
      project_id: projectId, status: 'draft', live_url: null, test_url: null, fielding_run_id: null, filling_goal: 200, study_type_code: 'adhoc',
      business_unit_id: 2001, fielding_specification: window,
    });
    for (const field of ['id', 'pricing_model', 'type', 'client_cost_per_interview_note', 'respondent_activity_exclusions', 'profiling', 'end_fielding_at', 'created_at', 'updated_at']) {
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

  it('answers 422 for a project manager who is not in the account', async () => {
    const res = await api.req('POST', tgs, { body: draftBody({ project_manager_id: '6f1c2a4e-3101-4c8e-9d2b-000000003101' }) });
    expect(res.status).toBe(422);
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
    expect((await api.req('GET', `${tgs}/${tg.id}`)).body).toMatchObject({ filling_goal: 300, live_url: null, status: 'draft' });
  });

  it('allows draft update only while the target group is a draft (422 afterwards)', async () => {
    const tg = await api.createTargetGroup(projectId, { live_url: 'https://s.example/a' });
    const launch = await api.req('POST', `${tgs}/${tg.id}/fielding-run-jobs/launch-from-draft`, { body: { end_fielding_at: '2099-01-01T00:00:00Z' } });
    await api.waitForJob(launch.headers.get('location')!);
    const res = await api.req('PUT', `${tgs}/${tg.id}`, { body: draftBody() });
    expect(res.status).toBe(422);
    expect(res.body.object).toBe('invalid_state_error');
  });

  it('gets a target group and answers 404 under another project', async () => {
    const tg = await api.createTargetGroup(projectId);
    expect((await api.req('GET', `${tgs}/${tg.id}`)).body).toEqual(tg);
    const other = await api.createProject();
    expect((await api.req('GET', `${P()}/projects/${other.id}/target-groups/${tg.id}`)).status).toBe(404);
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

  it('serves an overview with status, goal, completes and the pricing fields', async () => {
    const note = { value: '2.50', currency_code: 'USD' };
    const tg = await api.createTargetGroup(projectId, { client_cost_per_interview_note: note });
    const res = await api.req('GET', `${tgs}/${tg.id}/overview`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: tg.id, status: 'draft', filling_goal: 200, completes: 0, pricing_model: 'rate_card', type: 'rate_card', client_cost_per_interview_note: note });
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
    const refused = await api.upload(`${tgs}/${adhoc.id}/recontacts/jobs/upload-respondents-by-file`, 'r1\n', 'RSID');
    expect(refused.status).toBe(422);
    expect(refused.body.object).toBe('study_type_not_recontact');
    const tg = await api.createTargetGroup(projectId, RECONTACT);
    const path = `${tgs}/${tg.id}/recontacts/jobs/upload-respondents-by-file`;
    const up = await api.upload(path, 'r1\nr2\n', 'RSID');
    expect(up.status).toBe(201);
    expect((await api.req('GET', `${path}/${up.body.job_id}`)).body.status).toBe('Processing');
    const done = await api.waitForJob(`${path}/${up.body.job_id}`);
    expect(done.body).toMatchObject({ status: 'Completed', ids_added: 2 });
    expect(sb.state().recontact_respondents[tg.id].rsid).toEqual(['r1', 'r2']);
  });

  it('fails a recontact upload job with a bad line, naming the line', async () => {
    const tg = await api.createTargetGroup(projectId, RECONTACT);
    const path = `${tgs}/${tg.id}/recontacts/jobs/upload-respondents-by-file`;
    const up = await api.upload(path, 'ok\nnot ok\n', 'RSID');
    const done = await api.waitForJob(`${path}/${up.body.job_id}`);
    expect(done.body.status).toBe('Failed');
    expect(done.body.failure_reason.description).toContain('line 2');
  });

  it('refuses to launch a recontact study before respondents are uploaded', async () => {
    const tg = await api.createTargetGroup(projectId, { ...RECONTACT, live_url: 'https://s.example/r?id=[%RECONTACT_RSID%]' });
    const launch = `${tgs}/${tg.id}/fielding-run-jobs/launch-from-draft`;
    const res = await api.req('POST', launch, { body: { end_fielding_at: '2099-01-01T00:00:00Z' } });
    expect(res.status).toBe(422);
    expect(res.body.object).toBe('recontact_respondents_required');
    const up = await api.upload(`${tgs}/${tg.id}/recontacts/jobs/upload-respondents-by-file`, 'r1\n', 'RSID');
    await api.waitForJob(`${tgs}/${tg.id}/recontacts/jobs/upload-respondents-by-file/${up.body.job_id}`);
    expect((await api.req('POST', launch, { body: { end_fielding_at: '2099-01-01T00:00:00Z' } })).status).toBe(201);
  });

  it('accepts the old-version shape of a recontact draft too', async () => {
    const res = await api.req('POST', tgs, { version: V_MID, body: draftBody(RECONTACT) });
    expect(res.status).toBe(201);
  });
});
