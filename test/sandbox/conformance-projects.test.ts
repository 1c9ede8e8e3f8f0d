// Spec: "Resources and their fields › Project" and "Endpoints › Projects".
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../sandbox/index';
import { BASIC_ACCOUNT, P, SandboxTestClient, paramNames, startTestSandbox } from './sandbox-test-client';

let sb: RunningSandbox;
let api: SandboxTestClient;
beforeAll(async () => {
  ({ sb, api } = await startTestSandbox());
});
beforeEach(() => sb.reset());
afterAll(() => sb.close());

describe('Resources and their fields › Project', () => {
  it('creates a project (201, bare body, string id, Location) carrying project_customer_reference_number', async () => {
    const res = await api.req('POST', `${P()}/projects`, { body: { name: 'Q3 Brand', business_unit_id: 2002, project_customer_reference_number: 'JOB-42' } });
    expect(res.status).toBe(201);
    expect(typeof res.body.id).toBe('string');
    expect(res.body).toMatchObject({ name: 'Q3 Brand', business_unit_id: 2002, project_customer_reference_number: 'JOB-42' });
    expect(res.headers.get('location')).toBe(`${P()}/projects/${res.body.id}`);
    expect(Date.parse(res.body.created_at)).not.toBeNaN();
  });

  it('derives a snake_case human_readable_id from the name when none is given', async () => {
    expect((await api.createProject({ name: 'Q3 Brand-Tracker (US)' })).human_readable_id).toBe('q3_brand_tracker_us');
    expect((await api.createProject({ name: 'Mein Projekt', human_readable_id: 'mine_1' })).human_readable_id).toBe('mine_1');
  });

  it.each(['Has-Hyphen', 'camelCase', 'double__underscore', '_leading', 'trailing_'])('rejects human_readable_id %s (not snake_case)', async (value) => {
    const res = await api.req('POST', `${P()}/projects`, { body: { name: 'X', business_unit_id: 2001, human_readable_id: value } });
    expect(res.status).toBe(400);
    expect(paramNames(res)).toEqual(['human_readable_id']);
  });

  it('requires name and business_unit_id and names wrongly typed fields', async () => {
    const missing = await api.req('POST', `${P()}/projects`, { body: {} });
    expect(missing.status).toBe(400);
    expect(paramNames(missing).sort()).toEqual(['business_unit_id', 'name']);
    const typed = await api.req('POST', `${P()}/projects`, { body: { name: 5, business_unit_id: 'abc', project_customer_reference_number: [] } });
    expect(typed.status).toBe(400);
    expect(paramNames(typed).sort()).toEqual(['business_unit_id', 'name', 'project_customer_reference_number']);
  });

  it('answers 422 for a business unit of another account', async () => {
    const res = await api.req('POST', `${P()}/projects`, { body: { name: 'X', business_unit_id: 2101 } });
    expect(res.status).toBe(422);
    expect(paramNames(res)).toEqual(['business_unit_id']);
  });

  it('rejects unknown and read-only fields', async () => {
    const res = await api.req('POST', `${P()}/projects`, { body: { name: 'X', business_unit_id: 2001, id: 'mine', colour: 'red' } });
    expect(res.status).toBe(400);
    expect(paramNames(res).sort()).toEqual(['colour', 'id']);
  });
});

describe('Endpoints › Projects', () => {
  it('lists with page_size/start_after pagination, in creation order, without repeats', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await api.createProject({ name: `P${i}` })).id);
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

  it('updates with PUT (full replacement; human_readable_id kept when omitted)', async () => {
    const project = await api.createProject({ project_customer_reference_number: 'A', human_readable_id: 'keep_me' });
    const res = await api.req('PUT', `${P()}/projects/${project.id}`, { body: { name: 'Renamed', business_unit_id: 2002 } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ name: 'Renamed', business_unit_id: 2002, project_customer_reference_number: null, human_readable_id: 'keep_me' });
    expect((await api.req('GET', `${P()}/projects/${project.id}`)).body.name).toBe('Renamed');
  });

  it('serves an overview with target group counts by status', async () => {
    const project = await api.createProject();
    await api.createTargetGroup(project.id, { filling_goal: 100 });
    await api.createTargetGroup(project.id, { filling_goal: 50 });
    const res = await api.req('GET', `${P()}/projects/${project.id}/overview`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: project.id, target_group_count: 2, filling_goal_total: 150, target_groups_by_status: { draft: 2, live: 0 } });
  });
});
