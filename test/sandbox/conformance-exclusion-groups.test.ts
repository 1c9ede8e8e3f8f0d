// Spec: "Resources and their fields › Exclusion group" and "Endpoints › Exclusion groups".
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../sandbox/index';
import { BASIC_ACCOUNT, P, SandboxTestClient, paramNames, startTestSandbox } from './sandbox-test-client';

let sb: RunningSandbox;
let api: SandboxTestClient;
const GROUPS = `${P()}/exclusion-groups`;
beforeAll(async () => {
  ({ sb, api } = await startTestSandbox());
});
beforeEach(() => sb.reset());
afterAll(() => sb.close());

const createGroup = async (body: Record<string, unknown> = { name: 'Brand studies' }) => {
  const res = await api.req('POST', GROUPS, { body });
  expect(res.status).toBe(201);
  return res.body;
};

describe('Endpoints › Exclusion groups', () => {
  it('creates (201), gets, lists and deletes exclusion groups', async () => {
    const group = await createGroup({ name: 'G1', description: 'd' });
    expect(group).toMatchObject({ name: 'G1', description: 'd', target_group_ids: [] });
    expect((await api.req('GET', `${GROUPS}/${group.id}`)).body).toEqual(group);
    expect((await api.req('GET', GROUPS)).body.data.map((g: { id: string }) => g.id)).toEqual([group.id]);
    expect((await api.req('DELETE', `${GROUPS}/${group.id}`)).status).toBe(204);
    expect((await api.req('GET', `${GROUPS}/${group.id}`)).status).toBe(404);
    expect((await api.req('DELETE', `${GROUPS}/${group.id}`)).status).toBe(404);
  });

  it('validates the body (name required; unknown fields rejected)', async () => {
    const res = await api.req('POST', GROUPS, { body: { description: 5, colour: 'x' } });
    expect(res.status).toBe(400);
    expect(paramNames(res).sort()).toEqual(['colour', 'description', 'name']);
  });

  it('replaces name and description with PUT, keeping membership', async () => {
    const { tg } = await api.projectWithTargetGroup();
    const group = await createGroup({ name: 'Old', description: 'x', target_group_ids: [tg.id] });
    const res = await api.req('PUT', `${GROUPS}/${group.id}`, { body: { name: 'New' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ name: 'New', description: null, target_group_ids: [tg.id] });
  });

  it('adds and removes target groups from different projects of the account with {data: [...]}', async () => {
    const a = await api.projectWithTargetGroup();
    const b = await api.projectWithTargetGroup();
    const group = await createGroup();
    const add = await api.req('POST', `${GROUPS}/${group.id}/target-groups/add`, { body: { data: [a.tg.id, b.tg.id, a.tg.id] } });
    expect(add.status).toBe(200);
    expect(add.body.target_group_ids).toEqual([a.tg.id, b.tg.id]);
    const members = await api.req('GET', `${GROUPS}/${group.id}/target-groups`);
    expect(members.body.data.map((t: { id: string; project_id: string }) => [t.id, t.project_id])).toEqual([
      [a.tg.id, a.project.id],
      [b.tg.id, b.project.id],
    ]);
    const remove = await api.req('POST', `${GROUPS}/${group.id}/target-groups/remove`, { body: { data: [a.tg.id] } });
    expect(remove.body.target_group_ids).toEqual([b.tg.id]);
  });

  it('answers 422 naming target groups that are not in the account', async () => {
    const group = await createGroup();
    const project = await api.createProject({}, { account: BASIC_ACCOUNT });
    const foreign = await api.createTargetGroup(project.id, {}, { account: BASIC_ACCOUNT });
    const res = await api.req('POST', `${GROUPS}/${group.id}/target-groups/add`, { body: { data: ['tg_missing', foreign.id] } });
    expect(res.status).toBe(422);
    expect(paramNames(res)).toEqual(['data[0]', 'data[1]']);
  });

  it('lists the exclusion groups of a target group', async () => {
    const { tg } = await api.projectWithTargetGroup();
    const g1 = await createGroup({ name: 'one', target_group_ids: [tg.id] });
    await createGroup({ name: 'two' });
    const res = await api.req('GET', `${P()}/target-groups/${tg.id}/exclusion-groups`);
    expect(res.status).toBe(200);
    expect(res.body.data.map((g: { id: string }) => g.id)).toEqual([g1.id]);
    expect((await api.req('GET', `${P()}/target-groups/tg_missing/exclusion-groups`)).status).toBe(404);
  });

  it('scopes exclusion groups to their account', async () => {
    const group = await createGroup();
    expect((await api.req('GET', `${P(BASIC_ACCOUNT)}/exclusion-groups/${group.id}`)).status).toBe(404);
  });
});
