// Spec: "Resources and their fields › Exclusion group" and "Endpoints › Exclusion groups".
import { describe, expect, it } from 'vitest';
import { useTestSandbox } from '../fixtures/sandbox';
import { BASIC_ACCOUNT, P, paramNames } from './sandbox-test-client';

const { api } = useTestSandbox({ resetBeforeEach: true });
const GROUPS = `${P()}/exclusion-groups`;

const createGroup = async (body: Record<string, unknown> = { tag: 'Brand studies', description: '' }) => {
  const res = await api.req('POST', GROUPS, { body });
  expect(res.status).toBe(201);
  // create_exclusion_group answers {exclusion_group_id} only.
  expect(Object.keys(res.body)).toEqual(['exclusion_group_id']);
  expect(res.body.exclusion_group_id).toMatch(/^[0-9A-Z]{26}$/);
  return { id: res.body.exclusion_group_id as string };
};
const members = async (id: string) => (await api.req('GET', `${GROUPS}/${id}/target-groups`)).body.data as string[];

describe('Endpoints › Exclusion groups (reference shapes: {tag, description}, exclusion_group_id)', () => {
  it('creates (201), gets, lists and deletes exclusion groups', async () => {
    const group = await createGroup({ tag: 'G1', description: 'd' });
    const got = await api.req('GET', `${GROUPS}/${group.id}`);
    expect(got.body).toMatchObject({ exclusion_group_id: group.id, tag: 'G1', description: 'd' });
    expect(got.body.create_date).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    const list = await api.req('GET', GROUPS);
    // {data, url, next_cursor}: no has_more; the last page has no cursor.
    expect(list.body.data.map((g: { exclusion_group_id: string }) => g.exclusion_group_id)).toEqual([group.id]);
    expect(list.body).not.toHaveProperty('has_more');
    expect(list.body).not.toHaveProperty('next_cursor');
    expect((await api.req('DELETE', `${GROUPS}/${group.id}`)).status).toBe(204);
    expect((await api.req('GET', `${GROUPS}/${group.id}`)).status).toBe(404);
    expect((await api.req('DELETE', `${GROUPS}/${group.id}`)).status).toBe(404);
  });

  it('pages the account\'s groups with next_cursor until it is absent', async () => {
    const ids = [(await createGroup({ tag: 'a', description: '' })).id, (await createGroup({ tag: 'b', description: '' })).id, (await createGroup({ tag: 'c', description: '' })).id];
    const first = await api.req('GET', `${GROUPS}?page_size=2`);
    expect(first.body.data).toHaveLength(2);
    const second = await api.req('GET', `${GROUPS}?page_size=2&start_after=${first.body.next_cursor}`);
    expect([...first.body.data, ...second.body.data].map((g: { exclusion_group_id: string }) => g.exclusion_group_id)).toEqual(ids);
    expect(second.body).not.toHaveProperty('next_cursor');
  });

  it('validates the body (tag and description required; name and unknown fields rejected)', async () => {
    const res = await api.req('POST', GROUPS, { body: { name: 'x', colour: 'x' } });
    expect(res.status).toBe(400);
    expect(paramNames(res).sort()).toEqual(['colour', 'description', 'name', 'tag']);
    const long = await api.req('POST', GROUPS, { body: { tag: 'x'.repeat(129), description: '' } });
    expect(paramNames(long)).toEqual(['tag']);
  });

  it('PUT changes tag and description, answers 204 and keeps membership', async () => {
    const { tg } = await api.projectWithTargetGroup();
    const group = await createGroup({ tag: 'Old', description: 'x' });
    await api.req('POST', `${GROUPS}/${group.id}/target-groups/add`, { body: { data: [tg.id] } });
    const res = await api.req('PUT', `${GROUPS}/${group.id}`, { body: { tag: 'New' } });
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expect((await api.req('GET', `${GROUPS}/${group.id}`)).body).toMatchObject({ tag: 'New', description: 'x' });
    expect(await members(group.id)).toEqual([tg.id]);
  });

  it('adds and removes target groups from different projects of the account with {data: [...]} (204)', async () => {
    const a = await api.projectWithTargetGroup();
    const b = await api.projectWithTargetGroup();
    const group = await createGroup();
    const add = await api.req('POST', `${GROUPS}/${group.id}/target-groups/add`, { body: { data: [a.tg.id, b.tg.id, a.tg.id] } });
    expect(add.status).toBe(204);
    // The members list is {data: [target group id…], url, next_cursor}.
    expect(await members(group.id)).toEqual([a.tg.id, b.tg.id]);
    const remove = await api.req('POST', `${GROUPS}/${group.id}/target-groups/remove`, { body: { data: [a.tg.id] } });
    expect(remove.status).toBe(204);
    expect(await members(group.id)).toEqual([b.tg.id]);
  });

  it('takes at most 100 target group ids a call', async () => {
    const group = await createGroup();
    const ids = Array.from({ length: 101 }, (_, i) => `01JTARGETGR0UP${String(i).padStart(12, '0')}`);
    const res = await api.req('POST', `${GROUPS}/${group.id}/target-groups/add`, { body: { data: ids } });
    expect(res.status).toBe(400);
    expect(paramNames(res)).toEqual(['data']);
  });

  it('answers 422 naming target groups that are not in the account', async () => {
    const group = await createGroup();
    const project = await api.createProject({}, { account: BASIC_ACCOUNT });
    const foreign = await api.createTargetGroup(project.id, {}, { account: BASIC_ACCOUNT });
    const res = await api.req('POST', `${GROUPS}/${group.id}/target-groups/add`, { body: { data: ['01JM1SS1NGTARGETGR0UP00000', foreign.id] } });
    expect(res.status).toBe(422);
    expect(paramNames(res)).toEqual(['data[0]', 'data[1]']);
  });

  it('lists the exclusion groups of a target group', async () => {
    const { tg } = await api.projectWithTargetGroup();
    const g1 = await createGroup({ tag: 'one', description: '' });
    await createGroup({ tag: 'two', description: '' });
    await api.req('POST', `${GROUPS}/${g1.id}/target-groups/add`, { body: { data: [tg.id] } });
    const res = await api.req('GET', `${P()}/target-groups/${tg.id}/exclusion-groups`);
    expect(res.status).toBe(200);
    expect(res.body.data.map((g: { exclusion_group_id: string }) => g.exclusion_group_id)).toEqual([g1.id]);
    expect((await api.req('GET', `${P()}/target-groups/01JM1SS1NGTARGETGR0UP00000/exclusion-groups`)).status).toBe(404);
  });

  it('scopes exclusion groups to their account', async () => {
    const group = await createGroup();
    expect((await api.req('GET', `${P(BASIC_ACCOUNT)}/exclusion-groups/${group.id}`)).status).toBe(404);
  });
});
