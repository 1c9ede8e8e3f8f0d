// Spec: "Resources and their fields › Project" and "Endpoints › Projects".
import { describe, expect, it } from 'vitest';
import { useTestSandbox } from '../fixtures/sandbox';
import { BASIC_ACCOUNT, P, paramNames } from './sandbox-test-client';

const { api } = useTestSandbox({ resetBeforeEach: true });

const PM = '6f1c2a4e-3001-4c8e-9d2b-000000003001';
const PM2 = '6f1c2a4e-3002-4c8e-9d2b-000000003002';
/** create_project needs an idempotency-key. */
const key = (k: string) => ({ headers: { 'idempotency-key': k } });

describe('Resources and their fields › Project (reference: create_project, get_project_by_id)', () => {
  it('creates a project: 202 {id} (a ULID) with an ETag and Location, carrying project_customer_reference_number', async () => {
    const res = await api.req('POST', `${P()}/projects`, { ...key('c1'), body: { name: 'Q3 Brand', project_manager_id: PM, project_customer_reference_number: 'JOB-42' } });
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ id: expect.stringMatching(/^[0-9A-Z]{26}$/) });
    expect(res.headers.get('etag')).toMatch(/\S/);
    expect(res.headers.get('location')).toBe(`${P()}/projects/${res.body.id}`);
    const read = await api.req('GET', `${P()}/projects/${res.body.id}`);
    expect(read.body).toEqual({
      id: res.body.id, human_readable_id: expect.stringMatching(/^[0-9A-Z]{6}$/), name: 'Q3 Brand', project_manager_id: PM, account_id: 1001, project_customer_reference_number: 'JOB-42',
    });
    expect(read.headers.get('etag')).toBe(res.headers.get('etag'));
  });

  it('requires the idempotency-key header (400 naming it)', async () => {
    const res = await api.req('POST', `${P()}/projects`, { body: { name: 'Q3 Brand', project_manager_id: PM } });
    expect(res.status).toBe(400);
    expect(res.body.object).toBe('bad_request_error');
    expect(paramNames(res)).toEqual(['idempotency-key']);
  });

  it('assigns a 6-character human_readable_id, distinct per project, that a request cannot set', async () => {
    const ids = new Set<string>();
    for (let i = 0; i < 5; i++) ids.add((await api.createProject({ name: `Project ${i}` })).human_readable_id);
    expect(ids.size).toBe(5);
    for (const field of ['human_readable_id', 'human-readable-id']) {
      const res = await api.req('POST', `${P()}/projects`, { ...key(`h-${field}`), body: { name: 'Project X', project_manager_id: PM, [field]: 'ABC123' } });
      expect(res.status).toBe(400);
      expect(res.body.invalid_params).toEqual([{ name: field, reason: 'is assigned by the server and cannot be set' }]);
    }
  });

  it('requires name (5 to 128 characters, trimmed) and project_manager_id (a UUID), and names wrongly typed fields', async () => {
    const missing = await api.req('POST', `${P()}/projects`, { ...key('m'), body: {} });
    expect(missing.status).toBe(400);
    expect(paramNames(missing).sort()).toEqual(['name', 'project_manager_id']);
    const typed = await api.req('POST', `${P()}/projects`, { ...key('t'), body: { name: 5, project_manager_id: 3001, project_customer_reference_number: [] } });
    expect(typed.status).toBe(400);
    expect(paramNames(typed).sort()).toEqual(['name', 'project_customer_reference_number', 'project_manager_id']);
    for (const [body, field] of [
      [{ name: '  Abc  ', project_manager_id: PM }, 'name'],
      [{ name: 'x'.repeat(129), project_manager_id: PM }, 'name'],
      [{ name: 'Fine name', project_manager_id: '3001' }, 'project_manager_id'],
      [{ name: 'Fine name', project_manager_id: PM, project_customer_reference_number: 'studyflow:x' }, 'project_customer_reference_number'],
      [{ name: 'Fine name', project_manager_id: PM, project_customer_reference_number: 'AB' }, 'project_customer_reference_number'],
    ] as const) {
      const res = await api.req('POST', `${P()}/projects`, { ...key(`bad-${field}-${String(body.name).length}-${body.project_manager_id}`), body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(paramNames(res)).toEqual([field]);
    }
  });

  it('answers 400 for a project manager who is not a user of the account', async () => {
    const res = await api.req('POST', `${P()}/projects`, { ...key('pm'), body: { name: 'Fine name', project_manager_id: '6f1c2a4e-3101-4c8e-9d2b-000000003101' } });
    expect(res.status).toBe(400);
    expect(res.body.object).toBe('bad_request_error');
    expect(paramNames(res)).toEqual(['project_manager_id']);
  });

  it('rejects unknown, read-only and non-project fields (business_unit_id belongs to target groups)', async () => {
    const res = await api.req('POST', `${P()}/projects`, { ...key('u'), body: { name: 'Fine name', project_manager_id: PM, id: 'mine', colour: 'red', business_unit_id: 2001 } });
    expect(res.status).toBe(400);
    expect(paramNames(res).sort()).toEqual(['business_unit_id', 'colour', 'id']);
  });
});

describe('Endpoints › Projects', () => {
  it('lists with page_size/start_after pagination, in creation order, without repeats', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await api.createProject({ name: `Project ${i}` })).id);
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const q: string = cursor ? `&start_after=${cursor}` : '';
      const res = await api.req('GET', `${P()}/projects?page_size=2${q}`);
      expect(res.status).toBe(200);
      // list_account_projects: {projects, url, has_more, next_cursor}.
      seen.push(...res.body.projects.map((p: { id: string }) => p.id));
      expect(res.body.url).toBe(`${P()}/projects`);
      expect(res.body.has_more).toBe(res.body.next_cursor !== null);
      cursor = res.body.next_cursor;
      pages++;
    } while (cursor);
    expect(pages).toBe(3);
    expect(seen).toEqual(ids);
  });

  it.each(['0', '101', 'ten', '-1', '2.5'])('rejects page_size=%s', async (size) => {
    const res = await api.req('GET', `${P()}/projects?page_size=${size}`);
    expect(res.status).toBe(400);
    expect(paramNames(res)).toEqual(['page_size']);
  });

  it('rejects a start_after that is not a cursor of the list', async () => {
    const res = await api.req('GET', `${P()}/projects?start_after=garbage`);
    expect(res.status).toBe(400);
    expect(paramNames(res)).toEqual(['start_after']);
  });

  it('has no project_customer_reference_number filter (the reference has none); list items carry the number, status and statistics', async () => {
    const a = await api.createProject({ project_customer_reference_number: 'PO-A' });
    const b = await api.createProject({ project_customer_reference_number: 'PO-B' });
    const res = await api.req('GET', `${P()}/projects?project_customer_reference_number=PO-B`);
    expect(res.body.projects.map((p: { id: string }) => p.id)).toEqual([a.id, b.id]);
    expect(res.body.projects[1]).toMatchObject({
      id: b.id, account_id: 1001, project_customer_reference_number: 'PO-B', status: 'active', target_group_count: 0,
      statistics: { filling_goal: 0, current_completes: 0, current_prescreens: 0 },
    });
    expect(res.body.projects[1].id).toMatch(/^[0-9A-Z]{26}$/);
  });

  it('scopes projects to their account', async () => {
    const project = await api.createProject();
    expect((await api.req('GET', `${P(BASIC_ACCOUNT)}/projects/${project.id}`)).status).toBe(404);
    expect((await api.req('GET', `${P(BASIC_ACCOUNT)}/projects`)).body.projects).toEqual([]);
  });

  it('gets a project and answers 404 for an unknown one', async () => {
    const project = await api.createProject();
    expect((await api.req('GET', `${P()}/projects/${project.id}`)).body).toEqual(project);
    const res = await api.req('GET', `${P()}/projects/prj_missing`);
    expect(res.status).toBe(404);
    expect(res.body.object).toBe('not_found_error');
  });

  it('updates with PUT: If-Match with the read\'s ETag and an idempotency-key; 412 precondition_failed_error on a stale ETag', async () => {
    const project = await api.createProject({ project_customer_reference_number: 'PO-A' });
    const path = `${P()}/projects/${project.id}`;
    const etag = (await api.req('GET', path)).headers.get('etag')!;
    const body = { name: 'Renamed project', project_manager_id: PM2, project_customer_reference_number: 'PO-B' };
    const noMatch = await api.req('PUT', path, { headers: { 'idempotency-key': 'u0' }, body });
    expect(noMatch.status).toBe(400);
    expect(paramNames(noMatch)).toEqual(['If-Match']);
    const noKey = await api.req('PUT', path, { headers: { 'if-match': etag }, body });
    expect(noKey.status).toBe(400);
    expect(paramNames(noKey)).toEqual(['idempotency-key']);
    const res = await api.req('PUT', path, { headers: { 'if-match': etag, 'idempotency-key': 'u1' }, body });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: project.id, human_readable_id: project.human_readable_id });
    const read = await api.req('GET', path);
    expect(read.body).toMatchObject({ ...body, human_readable_id: project.human_readable_id });
    expect(read.headers.get('etag')).not.toBe(etag);
    const stale = await api.req('PUT', path, { headers: { 'if-match': etag, 'idempotency-key': 'u2' }, body: { ...body, name: 'Renamed again' } });
    expect(stale.status).toBe(412);
    expect(stale.body.object).toBe('precondition_failed_error');
    expect((await api.req('GET', path)).body.name).toBe('Renamed project');
  });

  it('requires project_customer_reference_number on update (leaving it out would delete it); null deletes it', async () => {
    const project = await api.createProject({ project_customer_reference_number: 'PO-A' });
    const path = `${P()}/projects/${project.id}`;
    const etag = (await api.req('GET', path)).headers.get('etag')!;
    const missing = await api.req('PUT', path, { headers: { 'if-match': etag, 'idempotency-key': 'r1' }, body: { name: 'Renamed project', project_manager_id: PM } });
    expect(paramNames(missing)).toEqual(['project_customer_reference_number']);
    const cleared = await api.req('PUT', path, { headers: { 'if-match': etag, 'idempotency-key': 'r2' }, body: { name: 'Renamed project', project_manager_id: PM, project_customer_reference_number: null } });
    expect(cleared.status).toBe(200);
    expect((await api.req('GET', path)).body).not.toHaveProperty('project_customer_reference_number');
  });

  it('serves the overview (ProjectOverview): status, statistics over its target groups, manager and creation time', async () => {
    const project = await api.createProject();
    await api.createTargetGroup(project.id, { filling_goal: 100 });
    await api.createTargetGroup(project.id, { filling_goal: 50 });
    const res = await api.req('GET', `${P()}/projects/${project.id}/overview`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: project.id, human_readable_id: project.human_readable_id, account_id: 1001, status: 'active', project_manager_id: PM,
      statistics: { filling_goal: 150, current_completes: 0, current_prescreens: 0 },
    });
    expect(Date.parse(res.body.created_at)).not.toBeNaN();
  });
});
