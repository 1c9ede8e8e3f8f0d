// The sandbox's two dialects against the published reference, operation by operation (docs/sandbox.md, "Dialects"):
// every answer is checked strictly (a field the reference does not declare fails, apart from the spec's stated
// fields in the spec dialect), each deviation of the dialect table is shown in both dialects, and the cint dialect
// refuses the spec's forms as the reference's validation would (and the spec dialect the reference's where the
// spec says otherwise). The requests the cint dialect accepts are checked against the reference's request schemas.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { RunningSandbox, SandboxDialectName } from '../../sandbox/index';
import { verifySignatureHeader } from '../../sandbox/model/webhook-signature';
import { OPEN_EXCHANGE, P, SandboxTestClient, paramNames, projectManager, startTestSandbox, type ApiResponse } from '../sandbox/sandbox-test-client';
import { answerProblems, referenceAvailable, requestProblems } from './reference-openapi';

const RANGE = '/v1/demand/intelligent-calendar/suggest-time-range';
const rsid = (i: number) => `0f1ce179-a917-49ff-9d50-${String(i).padStart(12, '0')}`;

describe.each(['spec', 'cint'] as const)('the sandbox in the %s dialect', (dialect: SandboxDialectName) => {
  const cint = dialect === 'cint';
  const goal = cint ? 'completes_goal' : 'filling_goal';
  const other = cint ? 'filling_goal' : 'completes_goal';
  let sb: RunningSandbox;
  let api: SandboxTestClient;
  let receiver: Server;
  let receiverUrl: string;
  let received: Array<{ headers: IncomingHttpHeaders; json: string; event: { type: string } }> = [];

  beforeAll(async () => {
    ({ sb, api } = await startTestSandbox({ dialect }));
    receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const json = Buffer.concat(chunks).toString('utf8');
        received.push({ headers: req.headers, json, event: JSON.parse(json) });
        res.statusCode = 204;
        res.end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  });
  beforeEach(() => {
    sb.reset();
    sb.setFaults({ job_duration_ms: 20 });
    received = [];
  });
  afterAll(async () => {
    await sb?.close();
    await new Promise((resolve) => receiver?.close(resolve));
  });

  /** The answer fits the reference strictly (in this dialect), with the status the test expects. */
  function fits(operation: string, res: ApiResponse, status: number): void {
    expect(res.status, `${operation}: ${res.text}`).toBe(status);
    if (referenceAvailable) expect(answerProblems(operation, res.status, res.body, dialect), operation).toEqual([]);
  }
  /** A request the cint dialect accepts is the reference's (the spec dialect's deviates by design). */
  function referenceRequest(operation: string, body: unknown): void {
    if (cint && referenceAvailable) expect(requestProblems(operation, body), operation).toEqual([]);
  }

  const window = { start_at: '2027-01-04T00:00:00.000Z', end_at: '2027-02-01T00:00:00.000Z' };
  const gender = {
    object: 'regular', name: 'Gender', quotas_enabled: true,
    targets: [
      { conditions: [{ object: 'selection', question_id: 43, option: '1' }], quota: { completes_goal: 100 } },
      { conditions: [{ object: 'selection', question_id: 43, option: '2' }], quota: { completes_goal: 100 } },
    ],
  };
  const draft = (overrides: Record<string, unknown> = {}) => ({
    name: 'Adults 18-65', business_unit_id: '2001', locale: 'eng_us', fielding_specification: window, fielding_assistant_assignment: {},
    allocations: OPEN_EXCHANGE, expected_incidence_rate: 0.5, expected_length_of_interview_minutes: 10, [goal]: 200,
    project_manager_id: projectManager(), collects_pii: false, ...overrides,
  });

  async function project(): Promise<string> {
    return (await api.createProject()).id as string;
  }
  async function createDraft(projectId: string, overrides: Record<string, unknown> = {}): Promise<{ id: string; path: string }> {
    const body = draft(overrides);
    // The reference's ProfilingRequest cannot be met strictly (its "No profiling" branch matches every profiling,
    // a listed gap of the profiles contract test), so a draft with profiling is not checked here.
    if (!('profiling' in overrides)) referenceRequest('create_target_group', body);
    const res = await api.req('POST', `${P()}/projects/${projectId}/target-groups`, { body });
    fits('create_target_group', res, 201);
    return { id: res.body.id, path: `${P()}/projects/${projectId}/target-groups/${res.body.id}` };
  }

  it(`draft create and update take ${goal} and refuse ${other} by name (400); the get and list answer the reference's fields`, async () => {
    const projectId = await project();
    const refused = await api.req('POST', `${P()}/projects/${projectId}/target-groups`, { body: { ...draft(), [goal]: undefined, [other]: 200 } });
    fits('create_target_group', refused, 400);
    expect(paramNames(refused).sort()).toEqual([goal, other].sort());
    const tg = await createDraft(projectId, { profiling: { profile_adjustment_type: 'nominal', profiles: [gender] } });
    const update = draft({ [goal]: 300 });
    referenceRequest('update_target_group', update);
    fits('update_target_group', await api.req('PUT', tg.path, { body: update }), 204);
    fits('update_target_group', await api.req('PUT', tg.path, { body: { ...update, [goal]: undefined, [other]: 300 } }), 400);

    const got = await api.req('GET', tg.path);
    fits('get_target_group', got, 200);
    expect(got.body.completes_goal).toBe(300);
    // `type` beyond the reference is the spec's (line 205), in its dialect only.
    expect('type' in got.body).toBe(!cint);
    // A draft's quotas carry goals only (the reference's DraftQuotaDetailsV3), no completes/prescreens counters.
    const quota = got.body.profiling.profiles[0].targets[0].quota as Record<string, unknown>;
    expect(quota).not.toHaveProperty('completes');
    expect(quota).not.toHaveProperty('prescreens');
    expect(quota.completes_goal).toBe(150);

    const list = await api.req('GET', `${P()}/projects/${projectId}/target-groups`);
    fits('get_list_target_groups', list, 200);
    // The spec removes name from the list in 2025-12-18 (line 52); the reference requires it.
    expect(list.body.target_groups[0].name).toBe(cint ? 'Adults 18-65' : undefined);
  });

  it('a draft naming an unknown project or target group in its activity exclusions answers 400 (the reference documents no 422)', async () => {
    const projectId = await project();
    const res = await api.req('POST', `${P()}/projects/${projectId}/target-groups`, {
      body: draft({ respondent_activity_exclusions: [{ type: 'project', id: '01ARZ3NDEKTSV4RRFFQ69G5FAV' }, { type: 'target-group', id: '01ARZ3NDEKTSV4RRFFQ69G5FAW' }] }),
    });
    fits('create_target_group', res, 400);
    expect(res.body.object).toBe('bad_request_error');
    expect(paramNames(res)).toEqual(['respondent_activity_exclusions[0].id', 'respondent_activity_exclusions[1].id']);
  });

  it(`activity exclusions: the list has no top-level duration nor duration_days; respondent_statuses ${cint ? 'is refused (the reference has none)' : 'is the spec\'s'}`, async () => {
    const projectId = await project();
    const tg = await createDraft(projectId);
    const path = `${tg.path}/respondent-activity-exclusions`;
    const body = { duration: 'P2W', respondent_activity_exclusions: [{ type: 'project', id: projectId }, { type: 'target-group', id: tg.id, duration: 'P10D' }] };
    referenceRequest('set_target_group_respondent_activity_exclusions', body);
    fits('set_target_group_respondent_activity_exclusions', await api.req('PUT', path, { body }), 204);
    const withStatuses = await api.req('PUT', path, { body: { respondent_activity_exclusions: [{ type: 'project', id: projectId, respondent_statuses: ['Complete'] }] } });
    if (cint) {
      fits('set_target_group_respondent_activity_exclusions', withStatuses, 400);
      expect(paramNames(withStatuses)).toEqual(['respondent_activity_exclusions[0].respondent_statuses']);
    } else fits('set_target_group_respondent_activity_exclusions', withStatuses, 204);
    const got = await api.req('GET', path);
    fits('get_target_group_respondent_activity_exclusions', got, 200);
    const statuses = cint ? {} : { respondent_statuses: ['Complete'] };
    expect(got.body).toEqual({
      respondent_activity_exclusions: cint
        ? [{ type: 'project', id: projectId, duration: 'P2W' }, { type: 'target-group', id: tg.id, duration: 'P10D' }]
        : [{ type: 'project', id: projectId, ...statuses, duration: 'P90D' }],
    });
  });

  it(`calculate-feasibility takes ${goal} and refuses ${other} by name`, async () => {
    const body = { business_unit_id: 2001, locale: 'eng_us', expected_incidence_rate: 0.5, expected_length_of_interview_minutes: 10, [goal]: 500, fielding_specification: window };
    referenceRequest('calculate_target_group_feasibility', body);
    fits('calculate_target_group_feasibility', await api.req('POST', `${P()}/target-groups/calculate-feasibility`, { body }), 200);
    const refused = await api.req('POST', `${P()}/target-groups/calculate-feasibility`, { body: { ...body, [goal]: undefined, [other]: 500 } });
    fits('calculate_target_group_feasibility', refused, 400);
    expect(paramNames(refused).sort()).toEqual([goal, other].sort());
  });

  it(`generate-price-prediction is a ${cint ? 'POST with the reference\'s body' : 'GET with the config as query parameters'} and answers the reference's GeneratePricePredictionResponse`, async () => {
    const path = `${P()}/business-units/2001/generate-price-prediction`;
    const config = { type: 'rate_card', country_code: 'US', expected_incidence_rate: 0.5, expected_length_of_interview_minutes: 10, maximum_cpi: { value: '2.50', currency_code: 'USD' } };
    const query = '?type=rate_card&country_code=US&expected_incidence_rate=0.5&expected_length_of_interview_minutes=10&maximum_cpi[value]=2.50&maximum_cpi[currency_code]=USD';
    referenceRequest('generate_price_prediction', { config });
    const res = cint ? await api.req('POST', path, { body: { config } }) : await api.req('GET', `${path}${query}`);
    fits('generate_price_prediction', res, 200);
    expect(res.body).toMatchObject({ buyer_account_id: 1001, buyer_business_unit_id: '2001', open_exchange_price: { cost_per_interview: { value: '2.50', currency_code: 'USD' } } });
    // The other method is not this dialect's: 405 naming the one it has.
    const wrong = cint ? await api.req('GET', `${path}${query}`) : await api.req('POST', path, { body: { config } });
    expect([wrong.status, wrong.headers.get('allow')]).toEqual([405, cint ? 'POST' : 'GET']);
    // The reference's config requires type.
    const untyped = cint ? await api.req('POST', path, { body: { config: { ...config, type: undefined } } }) : await api.req('GET', `${path}${query.replace('type=rate_card&', '')}`);
    fits('generate_price_prediction', untyped, 400);
    expect(paramNames(untyped)).toEqual([cint ? 'config.type' : 'type']);
  });

  it(`suggest-time-range answers ${cint ? 'start and end' : 'suggested_start and suggested_end'} only; the calendar's error objects are the ${cint ? 'reference\'s' : 'spec\'s'}`, async () => {
    const res = await api.req('GET', `${RANGE}?locale=eng_us&days=3`);
    fits('suggest_time_range', res, 200);
    expect(Object.keys(res.body).sort()).toEqual(cint ? ['end', 'start'] : ['suggested_end', 'suggested_start']);
    const bad = await api.req('GET', `${RANGE}?locale=eng_us&days=3&start=2027-01-04&end=2027-01-10`);
    fits('suggest_time_range', bad, 400);
    expect(bad.body.object).toBe(cint ? 'bad_request_error' : 'bad_request');
    const noRole = await api.req('GET', `${RANGE}?locale=eng_us&days=3`, { token: 'not-a-token' });
    expect([noRole.status, noRole.body.object]).toEqual([401, cint ? 'authorization_error' : 'unauthorized']);
  });

  it('exclusion-group add and remove answer 204 with the application/json type the reference documents, and no body', async () => {
    const projectId = await project();
    const tg = await createDraft(projectId);
    const group = await api.req('POST', `${P()}/exclusion-groups`, { body: { tag: 'Waves', description: 'all waves' }, headers: { 'idempotency-key': 'eg-1' } });
    fits('create_exclusion_group', group, 201);
    for (const op of ['add', 'remove'] as const) {
      const res = await api.req('POST', `${P()}/exclusion-groups/${group.body.exclusion_group_id}/target-groups/${op}`, { body: { data: [tg.id] } });
      fits(`${op}_target_groups_${op === 'add' ? 'to' : 'from'}_exclusion_group`, res, 204);
      expect([res.text, res.headers.get('content-type')]).toEqual(['', 'application/json']);
    }
  });

  it('file jobs: the upload answers {job_id}; its status and the remove-all job carry the reference\'s fields only', async () => {
    const projectId = await project();
    const tg = await createDraft(projectId);
    const upload = `${tg.path}/exclusions/jobs/upload-respondents-by-file`;
    const started = await api.upload(upload, `${rsid(1)}\n${rsid(2)}\n`, 'RSID');
    fits('exclusion_create_upload_rids_by_file_job', started, 201);
    expect(started.body).toEqual({ job_id: expect.any(String) });
    const done = await api.waitForJob(`${upload}/${started.body.job_id}`);
    fits('get_respondent_exclusions_upload_by_file_job', done, 200);
    expect(done.body).not.toHaveProperty('entity_type');
    expect(done.body).not.toHaveProperty('ids_in_file');
    const removal = await api.req('POST', `${tg.path}/exclusions/jobs/remove-all-respondents?entity_type=RSID`);
    fits('exclusion_create_remove_all_respondents_job', removal, 201);
    fits('get_all_respondent_exclusions_removal_job', await api.waitForJob(`${tg.path}/exclusions/jobs/remove-all-respondents/${removal.body.job_id}`), 200);
  });

  it('the launch job carries no completed_at; deliveries are signed with the dialect\'s header under its event names', async () => {
    const sessionEvent = cint ? 'session-updated' : 'com.svc.session.updated';
    const hook = { url: `${receiverUrl}/hook`, events: ['target-group-updated', sessionEvent] };
    referenceRequest('create_webhook', hook);
    const created = await api.req('POST', '/v1/accounts/1001/webhooks', { body: hook, headers: { 'idempotency-key': 'wh-1' } });
    fits('create_webhook', created, 201);
    expect('compression' in created.body).toBe(!cint);
    fits('get_webhooks', await api.req('GET', '/v1/accounts/1001/webhooks'), 200);
    // The other dialect's session event and (under cint) compression are refused by name.
    const otherEvent = await api.req('POST', '/v1/accounts/1001/webhooks', { body: { ...hook, events: [cint ? 'com.svc.session.updated' : 'session-updated'] } });
    fits('create_webhook', otherEvent, 400);
    expect(paramNames(otherEvent)).toEqual(['events[0]']);
    const compressed = await api.req('POST', '/v1/accounts/1001/webhooks', { body: { ...hook, compression: 'gzip' } });
    fits('create_webhook', compressed, cint ? 400 : 201);
    if (cint) expect(paramNames(compressed)).toEqual(['compression']);
    else await api.req('DELETE', `/v1/accounts/1001/webhooks/${compressed.body.id}`);

    const projectId = await project();
    const tg = await createDraft(projectId, { live_url: 'https://survey.example/s', [goal]: 5 });
    await api.admin('PUT', '/fielding/settings', { pool_size: 2000, speed: 1 });
    const launch = await api.req('POST', `${tg.path}/fielding-run-jobs/launch-from-draft`, { body: { end_fielding_at: '2099-01-01T00:00:00Z' } });
    fits('create_launch_fielding_run_from_draft_job', launch, 201);
    const job = await api.waitForJob(launch.headers.get('location')!);
    fits('get_launch_fielding_run_from_draft_job', job, 200);
    expect(job.body).not.toHaveProperty('completed_at');
    expect(job.body.created_fielding_run_id).toMatch(/^[0-9A-Z]{26}$/);
    await api.admin('POST', '/fielding/advance', { minutes: 120 });
    const types = () => new Set(received.map((r) => r.event.type));
    for (let i = 0; i < 300 && types().size < 2; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(types()).toEqual(new Set(['target-group-updated', sessionEvent]));
    const header = cint ? 'cint-signature' : 'svc-signature';
    for (const delivery of received) {
      expect(delivery.headers[cint ? 'svc-signature' : 'cint-signature']).toBeUndefined();
      expect(verifySignatureHeader(String(delivery.headers[header]), created.body.secret, delivery.json, Math.floor(Date.now() / 1000))).toBe(true);
    }
  });

  it('update quotas with an invalid body answers 422 in the reference\'s shape (spec Errors), a good one 200', async () => {
    const projectId = await project();
    const tg = await createDraft(projectId, { profiling: { profile_adjustment_type: 'nominal', profiles: [gender] } });
    const path = `${tg.path}/profiles/completes-goal`;
    const bad = await api.req('PUT', path, { body: { completes_goal: -5 } });
    fits('update_profile_filling_goal', bad, 422);
    expect(bad.body.invalid_params).toEqual([expect.objectContaining({ error_type: 'structural_error', name: 'completes_goal' })]);
    // The 200 (ProfilesResponseV3) cannot fit the reference strictly (QuotaDetailsV3's two branches both match a
    // target with a quota: a listed gap of the profiles contract test); its status and goal are checked.
    const good = await api.req('PUT', path, { body: { completes_goal: 400 } });
    expect([good.status, good.body.completes_goal]).toEqual([200, 400]);
  });

  it(`reads the version from ${cint ? 'Cint-API-Version' : 'Svc-API-Version'} only`, async () => {
    expect(sb.info).toMatchObject({ dialect, version_header: cint ? 'Cint-API-Version' : 'Svc-API-Version' });
    const token = await api.token();
    const res = await fetch(`${sb.baseUrl}${P()}/projects`, { headers: { authorization: `Bearer ${token}`, [cint ? 'Svc-API-Version' : 'Cint-API-Version']: '2025-12-18' } });
    expect([res.status, ((await res.json()) as { object: string }).object]).toEqual([403, 'required_header_missing']);
  });
});
