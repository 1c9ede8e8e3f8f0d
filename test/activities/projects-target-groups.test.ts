// ensureProject / ensureDraftTargetGroup read before they create, and create with the caller's Idempotency-Key.
import { describe, expect, it } from 'vitest';
import { apiError, draftAnswer, movedAnswer, rejectionOf } from './helpers/mock-api';
import { createMockActivities, type MockActivities } from './helpers/mock-activities';
import { MOCK_CTX as ctx, expectMockApiUsedAfterEach } from '../fixtures/activities';

const P = '/v1/demand/accounts/1001';
const desiredProject = { name: 'ACME Q4', project_customer_reference_number: 'PO-42', project_manager_id: '6f1c2a4e-3001-4c8e-9d2b-000000003001' };
/** Project and target group ids as the reference gives them (ULIDs). */
const PA = '01JPR0JECT0000000000000000';
const PB = '01JPR0JECT0000000000000001';
/** get_project_by_id (ProjectDetails): the server's 6-character human_readable_id, the account. */
const project = { id: PA, ...desiredProject, human_readable_id: 'FT354J', account_id: 1001 };
const ETAG = 'W/"7"';
const listed = (id: string, reference: string) => ({ id, name: 'ACME Q4', project_customer_reference_number: reference });
/** list_account_projects: {projects, url, has_more, next_cursor}. */
const projectsPage = (projects: unknown[], next: string | null = null) => ({ status: 200, body: { projects, url: `${P}/projects`, has_more: next !== null, next_cursor: next } });
let m: MockActivities;
expectMockApiUsedAfterEach(() => m);

describe('ensureProject', () => {
  it('returns the project found by knownId without listing or creating', async () => {
    m = createMockActivities();
    m.on('GET', `${P}/projects/${PA}`, () => ({ status: 200, body: project, headers: { etag: ETAG } }));
    const out = await m.activities.ensureProject({ ctx, idempotencyKey: 'k', knownId: PA, desired: desiredProject });
    expect(out).toEqual({ project, created: false });
    expect(m.requests).toHaveLength(1);
  });

  it('falls back to the customer reference number when the known id is gone (404), across pages', async () => {
    m = createMockActivities();
    m.on('GET', `${P}/projects/gone`, () => ({ status: 404, body: apiError('not_found') }));
    // The reference's project list has no reference-number filter: every page is read and matched here.
    m.on('GET', `${P}/projects?page_size=2`, () => projectsPage([listed(PB, 'PO-4')], 'c1'));
    m.on('GET', `${P}/projects?page_size=2&start_after=c1`, () => projectsPage([listed(PA, 'PO-42')]));
    m.on('GET', `${P}/projects/${PA}`, () => ({ status: 200, body: project }));
    const out = await m.activities.ensureProject({ ctx, idempotencyKey: 'k', knownId: 'gone', desired: desiredProject });
    expect(out).toEqual({ project, created: false });
    expect(m.requests.some((r) => r.method === 'POST')).toBe(false);
  });

  it('creates with the Idempotency-Key when nothing matches, sends ProjectInfo only and uses the 202 {id} without reading the project back', async () => {
    m = createMockActivities();
    m.on('GET', /^\/v1\/demand\/accounts\/1001\/projects\?/, () => projectsPage([]));
    m.on('POST', `${P}/projects`, () => ({ status: 202, body: { id: PA }, headers: { etag: ETAG } }));
    const out = await m.activities.ensureProject({ ctx, idempotencyKey: 'study:acme:project', desired: desiredProject });
    expect(out).toEqual({ project: { id: PA, ...desiredProject }, created: true });
    const post = m.requests.find((r) => r.method === 'POST');
    expect(post?.headers['idempotency-key']).toBe('study:acme:project');
    expect(post?.body).toEqual(desiredProject);
    expect(m.requests.filter((r) => r.method === 'GET' && r.path === `${P}/projects/${PA}`)).toEqual([]);
  });

  it('a create answer without a ULID id is a named wire_mismatch, never an undefined id', async () => {
    m = createMockActivities();
    m.on('GET', /^\/v1\/demand\/accounts\/1001\/projects\?/, () => projectsPage([]));
    m.on('POST', `${P}/projects`, () => ({ status: 201, body: { project_id: 'p1' } }));
    const f = await rejectionOf(m.activities.ensureProject({ ctx, idempotencyKey: 'k', desired: desiredProject }));
    expect(f.type).toBe('wire_mismatch');
    expect(f.nonRetryable).toBe(true);
    expect(f.message).toContain('create_project');
  });

  it('refuses a desired project the reference would refuse before sending it (name under 5 characters, manager not a UUID)', async () => {
    m = createMockActivities();
    m.on('GET', /^\/v1\/demand\/accounts\/1001\/projects\?/, () => projectsPage([]), 2);
    for (const desired of [{ ...desiredProject, name: 'ACME' }, { ...desiredProject, project_manager_id: '3001' }]) {
      const f = await rejectionOf(m.activities.ensureProject({ ctx, idempotencyKey: 'k', desired }));
      expect(f.type).toBe('invalid_activity_input');
      expect(f.nonRetryable).toBe(true);
      expect(f.message).toContain(desired.name === 'ACME' ? 'name' : 'project_manager_id');
    }
    expect(m.requests.some((r) => r.method === 'POST')).toBe(false);
  });

  it('a lost create answer never duplicates: the retry finds the project by its reference number', async () => {
    m = createMockActivities();
    m.on('GET', /^\/v1\/demand\/accounts\/1001\/projects\?/, () => projectsPage([]));
    m.api.intercept({ path: `${P}/projects`, method: 'POST' }).replyWithError(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }));
    const first = await rejectionOf(m.activities.ensureProject({ ctx, idempotencyKey: 'k', desired: desiredProject }));
    expect(first.type).toBe('network_error');
    expect(first.nonRetryable).toBe(false);
    // Temporal retries the activity; by now the project exists.
    m.on('GET', /^\/v1\/demand\/accounts\/1001\/projects\?/, () => projectsPage([listed(PA, 'PO-42')]));
    m.on('GET', `${P}/projects/${PA}`, () => ({ status: 200, body: project }));
    const second = await m.activities.ensureProject({ ctx, idempotencyKey: 'k', desired: desiredProject });
    expect(second).toEqual({ project, created: false });
  });

  it('refuses to guess between two projects with the same reference number', async () => {
    m = createMockActivities();
    m.on('GET', /^\/v1\/demand\/accounts\/1001\/projects\?/, () => projectsPage([listed(PA, 'PO-42'), listed(PB, 'PO-42')]));
    const f = await rejectionOf(m.activities.ensureProject({ ctx, idempotencyKey: 'k', desired: desiredProject }));
    expect(f.type).toBe('ambiguous_natural_key');
    expect(f.nonRetryable).toBe(true);
  });

  it('updates with If-Match from the read\'s ETag and an Idempotency-Key; an older version\'s names come back as 2025-12-18 names', async () => {
    m = createMockActivities();
    const legacyCtx = { accountId: '1001', apiVersion: '2025-05-27' as const };
    const { human_readable_id: _hrid, ...rest } = project;
    m.on('GET', `${P}/projects/${PA}`, () => ({ status: 200, body: { ...rest, 'human-readable-id': 'FT354J', purchase_order_number: null }, headers: { etag: ETAG } }));
    m.on('PUT', `${P}/projects/${PA}`, () => ({ status: 200, body: { id: PA, 'human-readable-id': 'FT354J' } }));
    const out = await m.activities.updateProject({ ctx: legacyCtx, projectId: PA, idempotencyKey: 'study/project/update/r2', desired: desiredProject });
    const put = m.requests.find((r) => r.method === 'PUT');
    expect(put?.body).toEqual(desiredProject);
    expect(put?.headers['if-match']).toBe(ETAG);
    expect(put?.headers['idempotency-key']).toBe('study/project/update/r2');
    expect(put?.headers['svc-api-version']).toBe('2025-05-27');
    expect(out.project).toMatchObject({ id: PA, human_readable_id: 'FT354J', ...desiredProject });
  });

  it('a stale ETag (412 precondition_failed_error) is final for the caller to plan again', async () => {
    m = createMockActivities();
    m.on('GET', `${P}/projects/${PA}`, () => ({ status: 200, body: project, headers: { etag: ETAG } }));
    m.on('PUT', `${P}/projects/${PA}`, () => ({ status: 412, body: { id: 'e1', object: 'precondition_failed_error', detail: 'modified since read' } }));
    const f = await rejectionOf(m.activities.updateProject({ ctx, projectId: PA, idempotencyKey: 'k', desired: desiredProject }));
    expect(f.nonRetryable).toBe(true);
    expect(f.message).toContain('412');
  });

  it('rejects input without ctx, key or reference number as non-retryable invalid_activity_input', async () => {
    m = createMockActivities();
    for (const input of [
      { ctx: undefined, idempotencyKey: 'k', desired: desiredProject },
      { ctx: { accountId: '1001', apiVersion: '2024-01-01' }, idempotencyKey: 'k', desired: desiredProject },
      { ctx, idempotencyKey: '', desired: desiredProject },
      { ctx, idempotencyKey: 'k', desired: { name: 'x' } },
    ]) {
      const f = await rejectionOf(m.activities.ensureProject(input as never));
      expect(f.type).toBe('invalid_activity_input');
      expect(f.nonRetryable).toBe(true);
    }
    const f = await rejectionOf(m.activities.updateProject({ ctx, projectId: PA, desired: desiredProject } as never));
    expect(f.type).toBe('invalid_activity_input');
    expect(m.requests).toHaveLength(0);
  });

  it('reads the overview (ProjectOverview), and names a wrong shape', async () => {
    m = createMockActivities();
    const overview = {
      id: PA, human_readable_id: 'FT354J', account_id: 1001, status: 'active', project_manager_id: desiredProject.project_manager_id, created_at: '2026-01-01T00:00:00.000Z',
      statistics: { filling_goal: 400, current_completes: 12, current_prescreens: 30, incidence_rate_median: 0, length_of_interview_median_seconds: 0, conversion_rate_average: 0, drop_off_rate_average: 0 },
    };
    m.on('GET', `${P}/projects/${PA}/overview`, () => ({ status: 200, body: overview }));
    expect(await m.activities.getProjectOverview({ ctx, projectId: PA })).toEqual({ overview });
    m.on('GET', `${P}/projects/${PA}/overview`, () => ({ status: 200, body: { id: PA, target_groups: 2 } }));
    const f = await rejectionOf(m.activities.getProjectOverview({ ctx, projectId: PA }));
    expect(f.type).toBe('wire_mismatch');
    expect(f.message).toContain('project_overview');
  });
});

const TGS = `${P}/projects/p1/target-groups`;
const desiredTg = {
  name: 'US general population', expected_incidence_rate: 0.3, expected_length_of_interview_minutes: 12, filling_goal: 400,
  project_manager_id: '6f1c2a4e-3001-4c8e-9d2b-000000003001', collects_pii: false, target_group_customer_reference_number: 'us_gen_pop',
  business_unit_id: '2001', locale: 'eng_us', fielding_assistant_assignment: {},
  fielding_specification: { start_at: '2027-01-04T00:00:00.000Z', end_at: '2027-02-01T00:00:00.000Z' },
  allocations: { open_exchange_allocations: { blocked_supplier_ids: [], exchange_min_percentage: 0, exchange_max_percentage: 100, groups: [] } },
};
const tg = { id: 'tg1', status: 'draft', ...desiredTg };
const TA = '01JTARGETGR0UP000000000001';
const TB = '01JTARGETGR0UP000000000002';
const TC = '01JTARGETGR0UP000000000003';
const tgItem = (id: string, reference: string | null = null) => ({ id, status: 'draft', target_group_customer_reference_number: reference });
/** get_list_target_groups: {target_groups, url, has_more, next_cursor}. */
const tgPage = (target_groups: unknown[], next: string | null = null) => ({ status: 200, body: { target_groups, url: TGS, has_more: next !== null, next_cursor: next } });

describe('ensureDraftTargetGroup', () => {
  it('finds by knownId first (GET TG: the draft\'s fields, completes_goal read as filling_goal; the id is the one asked for)', async () => {
    m = createMockActivities();
    const { filling_goal: goal, allocations, ...rest } = desiredTg;
    // The read's shapes: business unit as an integer, allocations with supplier objects (GetDraftSupplyAllocationGroupResponse).
    const { blocked_supplier_ids: _b, ...open } = allocations.open_exchange_allocations;
    const answer = { ...rest, completes_goal: goal, business_unit_id: 2001, allocations: { open_exchange_allocations: { ...open, blocked_suppliers: [] } } };
    m.on('GET', `${TGS}/tg1`, () => draftAnswer(answer));
    // Read back in the shapes sent: filling_goal, allocations as the request gives them.
    expect(await m.activities.ensureDraftTargetGroup({ ctx, projectId: 'p1', idempotencyKey: 'k', knownId: 'tg1', desired: desiredTg })).toEqual({ targetGroup: { ...tg, business_unit_id: 2001 }, created: false });
  });

  it('a known id that left draft is found too (GET TG answers 301, not followed): nothing is created', async () => {
    m = createMockActivities();
    m.on('GET', `${TGS}/tg1`, () => movedAnswer(`${TGS}/tg1`));
    expect(await m.activities.ensureDraftTargetGroup({ ctx, projectId: 'p1', idempotencyKey: 'k', knownId: 'tg1', desired: desiredTg })).toEqual({ targetGroup: { id: 'tg1', status: 'launched' }, created: false });
    expect(m.requests).toHaveLength(1);
  });

  it('finds by target_group_customer_reference_number in the list and uses the list item (id, status) without a second read', async () => {
    m = createMockActivities();
    // The plural array filter of get_list_target_groups.
    m.on('GET', `${TGS}?target_group_customer_reference_numbers=us_gen_pop&page_size=2`, () => tgPage([tgItem(TA, 'us_gen_pop')]));
    expect(await m.activities.ensureDraftTargetGroup({ ctx, projectId: 'p1', idempotencyKey: 'k', desired: desiredTg })).toEqual({ targetGroup: tgItem(TA, 'us_gen_pop'), created: false });
    expect(m.requests).toHaveLength(1);
  });

  it('without a reference number it creates directly, relying on the Idempotency-Key', async () => {
    m = createMockActivities();
    const { target_group_customer_reference_number: _r, ...noRef } = desiredTg;
    // create_target_group answers 201 {id} (CreatedDraftTargetGroupResponse); the id is used without a read.
    m.on('POST', TGS, () => ({ status: 201, body: { id: TB } }));
    const out = await m.activities.ensureDraftTargetGroup({ ctx, projectId: 'p1', idempotencyKey: 'tg-key', desired: noRef as never });
    expect(out).toEqual({ targetGroup: { ...noRef, id: TB, status: 'draft' }, created: true });
    expect(m.requests).toHaveLength(1);
    expect(m.requests[0].headers['idempotency-key']).toBe('tg-key');
    expect(m.requests[0].body).toEqual(noRef);
  });

  it('a create answer without a ULID id is a named wire_mismatch; a draft the reference would refuse is not sent', async () => {
    m = createMockActivities();
    const { target_group_customer_reference_number: _r, ...noRef } = desiredTg;
    m.on('POST', TGS, () => ({ status: 201, body: { target_group_id: 'tg2' } }));
    const f = await rejectionOf(m.activities.ensureDraftTargetGroup({ ctx, projectId: 'p1', idempotencyKey: 'k', desired: noRef as never }));
    expect(f.type).toBe('wire_mismatch');
    expect(f.message).toContain('create_target_group');
    const noWindow = { fielding_specification: undefined };
    for (const bad of [{ name: 'US' }, { project_manager_id: '3001' }, { expected_length_of_interview_minutes: 60 }, { client_cost_per_interview_note: 'about 2 USD' }, noWindow, { pricing_model: 'rate_card' }, { type: 'custom' }]) {
      const g = await rejectionOf(m.activities.ensureDraftTargetGroup({ ctx, projectId: 'p1', idempotencyKey: 'k', desired: { ...noRef, ...bad } as never }));
      expect(g.type, JSON.stringify(bad)).toBe('invalid_activity_input');
      expect(g.nonRetryable).toBe(true);
    }
    expect(m.requests).toHaveLength(1);
  });

  it('translates the draft for 2025-02-17 (the client note) and back', async () => {
    m = createMockActivities();
    const old = { accountId: '1001', apiVersion: '2025-02-17' as const };
    // update_target_group answers 204 without a body.
    m.on('PUT', `${TGS}/tg1`, () => ({ status: 204 }));
    const out = await m.activities.updateDraftTargetGroup({ ctx: old, projectId: 'p1', targetGroupId: 'tg1', desired: { ...desiredTg, client_cost_per_interview_note: { value: '2.50', currency_code: 'USD' } } });
    expect(m.requests[0].body).toMatchObject({ client_cpi: { value: '2.50', currency_code: 'USD' } });
    expect(m.requests[0].body).not.toHaveProperty('client_cost_per_interview_note');
    expect(out.targetGroup).toMatchObject({ id: 'tg1', client_cost_per_interview_note: { value: '2.50', currency_code: 'USD' } });
  });

  it('an update answered with anything but 204 is a named wire_mismatch', async () => {
    m = createMockActivities();
    m.on('PUT', `${TGS}/tg1`, () => ({ status: 200, body: { id: 'tg1' } }));
    const f = await rejectionOf(m.activities.updateDraftTargetGroup({ ctx, projectId: 'p1', targetGroupId: 'tg1', desired: desiredTg }));
    expect(f.type).toBe('wire_mismatch');
    expect(f.message).toContain('update_target_group');
  });

  it('lists all target groups across pages, and reads overview and performance', async () => {
    m = createMockActivities();
    m.on('GET', `${TGS}?page_size=2`, () => tgPage([tgItem(TA), tgItem(TB)], 'x'));
    m.on('GET', `${TGS}?page_size=2&start_after=x`, () => tgPage([tgItem(TC)]));
    m.on('GET', `${TGS}/tg1/overview`, () => ({ status: 200, body: { completes: 3 } }));
    m.on('GET', `${TGS}/tg1/performance`, () => ({ status: 200, body: { entrants: 9, prescreens: 7, completes: 3, completes_cost: { value: '1.00', currency_code: 'USD', currency_scale: 2 } } }));
    m.on('GET', `${TGS}/tg2/performance`, () => ({ status: 200, body: { completes: 3, completes_by_status: { Complete: 3 } } }));
    expect((await m.activities.listTargetGroups({ ctx, projectId: 'p1' })).targetGroups.map((t) => t.id)).toEqual([TA, TB, TC]);
    expect(await m.activities.getTargetGroupOverview({ ctx, projectId: 'p1', targetGroupId: 'tg1' })).toEqual({ overview: { completes: 3 } });
    expect((await m.activities.getTargetGroupPerformance({ ctx, projectId: 'p1', targetGroupId: 'tg1' })).performance).toMatchObject({ entrants: 9, completes: 3, completes_cost: { value: '1.00' } });
    // The sandbox's old shape (no entrants or prescreens) is not the reference's: wire_mismatch, final.
    const f = await rejectionOf(m.activities.getTargetGroupPerformance({ ctx, projectId: 'p1', targetGroupId: 'tg2' }));
    expect(f).toMatchObject({ type: 'wire_mismatch', nonRetryable: true });
    expect(f.message).toContain('get_target_group_performance');
  });

  it('fails on a cursor that repeats instead of looping forever', async () => {
    m = createMockActivities();
    m.on('GET', `${TGS}?page_size=2`, () => tgPage([tgItem(TA)], 'x'));
    m.on('GET', `${TGS}?page_size=2&start_after=x`, () => tgPage([tgItem(TB)], 'x'));
    const f = await rejectionOf(m.activities.listTargetGroups({ ctx, projectId: 'p1' }));
    expect(f.type).toBe('wire_mismatch');
    expect(f.nonRetryable).toBe(true);
    expect(f.message).toContain('get_list_target_groups');
  });

  it('a list in another envelope is a wire_mismatch naming the operation and what it answered, never an empty list', async () => {
    m = createMockActivities();
    m.on('GET', `${TGS}?page_size=2`, () => ({ status: 200, body: { data: [{ id: TA }], has_more: false, next_cursor: null } }));
    const f = await rejectionOf(m.activities.listTargetGroups({ ctx, projectId: 'p1' }));
    expect(f.type).toBe('wire_mismatch');
    expect(f.nonRetryable).toBe(true);
    expect(f.message).toContain('get_list_target_groups (GET /v1/demand/accounts/1001/projects/p1/target-groups) answered 200 with {data: array(1) of object(1 keys), has_more: boolean, next_cursor: null}');
    expect(f.message).toContain('target_groups');
  });
});
