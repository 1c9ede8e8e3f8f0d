// Exclusion groups (spec: Endpoints › Exclusion groups) and GET P/target-groups/{id}/exclusion-groups.
// Body {name, description?} (create may also seed target_group_ids); membership via add/remove
// {data: [target_group_id, …]}, target groups from any project of the account.
import { notFound, unprocessable, type InvalidParam } from '../core/api-error';
import { ObjectReader } from '../core/input-validation';
import { parsePageRequest, paginate } from '../core/pagination';
import { created, noContent, ok, type RequestContext, type RouteModule } from '../core/route-module';
import type { ExclusionGroupRecord } from '../core/state-records';
import { requireTargetGroup } from '../resources/lookups';
import { PAGE } from './projects';
import { P } from './paths';

const GROUPS = `${P}/exclusion-groups`;
const GROUP = `${GROUPS}/{exclusion_group_id}`;
export const MAX_MEMBERS_PER_REQUEST = 1000;

const render = (g: ExclusionGroupRecord) => ({
  id: g.id,
  name: g.name,
  description: g.description,
  target_group_ids: [...g.target_group_ids],
  created_at: g.created_at,
  updated_at: g.updated_at,
});

function requireGroup(ctx: RequestContext): ExclusionGroupRecord {
  const group = ctx.store.data.exclusion_groups[ctx.params.exclusion_group_id];
  if (!group || group.account_id !== ctx.account!.account_id) throw notFound(`Exclusion group ${ctx.params.exclusion_group_id} not found.`);
  return group;
}

/** Reads `{field: [target_group_id…]}`; every ID must be a target group of the account (422 otherwise). */
function readTargetGroupIds(ctx: RequestContext, r: ObjectReader, field: string, required: boolean): string[] {
  const raw = r.array(field, { required, maxItems: MAX_MEMBERS_PER_REQUEST });
  const ids: string[] = [];
  raw?.forEach((v, i) => {
    if (typeof v !== 'string' || v.length === 0 || v.length > 64) r.fail(`${field}[${i}]`, 'must be a target group id');
    else if (!ids.includes(v)) ids.push(v);
  });
  r.finish('The request is invalid.');
  const missing: InvalidParam[] = [];
  ids.forEach((id) => {
    const tg = ctx.store.data.target_groups[id];
    if (!tg || tg.account_id !== ctx.account!.account_id) missing.push({ name: `${field}[${(raw ?? []).indexOf(id)}]`, reason: `no target group ${id} in account ${ctx.account!.account_id}` });
  });
  if (missing.length > 0) throw unprocessable('unknown_reference', 'Some target groups do not exist in this account.', missing);
  return ids;
}

function readGroupFields(r: ObjectReader) {
  const name = r.string('name', { required: true, maxLength: 255 });
  const description = r.string('description', { nullable: true, maxLength: 2000 });
  return { name: name!, description: description ?? null };
}

function createGroup(ctx: RequestContext) {
  const r = ObjectReader.body(ctx.body);
  r.rejectUnknown(['name', 'description', 'target_group_ids'], { id: 'is read-only' });
  const fields = readGroupFields(r);
  const members = readTargetGroupIds(ctx, r, 'target_group_ids', false);
  const now = ctx.clock.iso();
  const group: ExclusionGroupRecord = {
    id: ctx.newId('exg'),
    seq: ctx.store.nextSeq(),
    account_id: ctx.account!.account_id,
    ...fields,
    target_group_ids: members,
    created_at: now,
    updated_at: now,
  };
  ctx.store.data.exclusion_groups[group.id] = group;
  return created(render(group), { location: `${ctx.path}/${group.id}` });
}

function updateGroup(ctx: RequestContext) {
  const group = requireGroup(ctx);
  const r = ObjectReader.body(ctx.body);
  r.rejectUnknown(['name', 'description'], {
    target_group_ids: 'membership changes use POST …/target-groups/add and …/target-groups/remove',
    id: 'is read-only',
  });
  const fields = readGroupFields(r);
  r.finish('The exclusion group is invalid.');
  Object.assign(group, fields, { updated_at: ctx.clock.iso() });
  return ok(render(group));
}

function changeMembers(ctx: RequestContext, op: 'add' | 'remove') {
  const group = requireGroup(ctx);
  const r = ObjectReader.body(ctx.body);
  r.rejectUnknown(['data']);
  const ids = readTargetGroupIds(ctx, r, 'data', true);
  group.target_group_ids = op === 'add' ? [...group.target_group_ids, ...ids.filter((id) => !group.target_group_ids.includes(id))] : group.target_group_ids.filter((id) => !ids.includes(id));
  group.updated_at = ctx.clock.iso();
  return ok(render(group));
}

function listMembers(ctx: RequestContext) {
  const group = requireGroup(ctx);
  const page = parsePageRequest(ctx.query, PAGE);
  const members = group.target_group_ids.map((id) => ctx.store.data.target_groups[id]).filter((tg) => tg !== undefined);
  return ok(paginate(members, page, (tg) => ({ id: tg.id, project_id: tg.project_id, name: tg.name, status: tg.status })));
}

function groupsOfTargetGroup(ctx: RequestContext) {
  const tg = requireTargetGroup(ctx);
  const page = parsePageRequest(ctx.query, PAGE);
  const groups = Object.values(ctx.store.data.exclusion_groups).filter((g) => g.account_id === tg.account_id && g.target_group_ids.includes(tg.id));
  return ok(paginate(groups, page, render));
}

export const exclusionGroupsRoutes: RouteModule = {
  name: 'exclusion-groups',
  routes: [
    {
      method: 'GET',
      path: GROUPS,
      handler: (ctx) =>
        ok(paginate(Object.values(ctx.store.data.exclusion_groups).filter((g) => g.account_id === ctx.account!.account_id), parsePageRequest(ctx.query, PAGE), render)),
    },
    { method: 'POST', path: GROUPS, idempotent: true, handler: createGroup },
    { method: 'GET', path: GROUP, handler: (ctx) => ok(render(requireGroup(ctx))) },
    { method: 'PUT', path: GROUP, handler: updateGroup },
    {
      method: 'DELETE',
      path: GROUP,
      handler: (ctx) => {
        const group = requireGroup(ctx);
        delete ctx.store.data.exclusion_groups[group.id];
        return noContent();
      },
    },
    { method: 'GET', path: `${GROUP}/target-groups`, handler: listMembers },
    { method: 'POST', path: `${GROUP}/target-groups/add`, handler: (ctx) => changeMembers(ctx, 'add') },
    { method: 'POST', path: `${GROUP}/target-groups/remove`, handler: (ctx) => changeMembers(ctx, 'remove') },
    { method: 'GET', path: `${P}/target-groups/{target_group_id}/exclusion-groups`, handler: groupsOfTargetGroup },
  ],
};
