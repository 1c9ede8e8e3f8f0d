// Exclusion groups (spec: Endpoints › Exclusion groups; shapes from the reference's operations
// create_exclusion_group, get_exclusion_group_by_id, update_exclusion_group_by_id, delete_exclusion_group_by_id,
// get_exclusion_groups_by_account_id, get_exclusion_group_target_group_exclusions, add/remove_target_groups_…,
// get_exclusion_groups_for_target_group). Body {tag, description}; the id field is exclusion_group_id;
// PUT, DELETE, add and remove answer 204 (add and remove with the application/json content type the reference
// documents, and no body); add/remove take at most 100 target group ids a call.
import { notFound, unprocessable, type InvalidParam } from '../core/api-error';
import { ObjectReader } from '../core/input-validation';
import { dataCursorBody, parsePageRequest, paginate } from '../core/pagination';
import { created, noContent, ok, type RequestContext, type RouteModule } from '../core/route-module';
import type { ExclusionGroupRecord } from '../core/state-records';
import { requireTargetGroup } from '../resources/lookups';
import { P } from './paths';

const GROUPS = `${P}/exclusion-groups`;
const GROUP = `${GROUPS}/{exclusion_group_id}`;
/** Reference: AddTargetGroupExclusionGroupRequest.data maxItems. */
export const MAX_MEMBERS_PER_REQUEST = 100;
/** Reference: PageSize1000 (default 1000) on the group lists; the target group's groups default to 10. */
const GROUP_PAGE = { max: 1000, default: 1000 };
const TG_GROUPS_PAGE = { max: 1000, default: 10 };

const render = (g: ExclusionGroupRecord) => ({
  exclusion_group_id: g.id,
  tag: g.tag,
  description: g.description,
  create_date: g.created_at,
  update_date: g.updated_at,
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

/** `{tag, description}`: both required on create (reference: CreateExclusionGroupRequest); tag at most 128 characters. */
function readGroupFields(r: ObjectReader, current?: { tag: string; description: string }): { tag: string; description: string } {
  const tag = r.string('tag', { required: !current, minLength: 1, maxLength: 128 });
  const description = r.string('description', { required: !current, minLength: 0, maxLength: 2000 });
  r.finish('The exclusion group is invalid.');
  return { tag: tag ?? current?.tag ?? '', description: description ?? current?.description ?? '' };
}

function createGroup(ctx: RequestContext) {
  const r = ObjectReader.body(ctx.body);
  r.rejectUnknown(['tag', 'description'], { exclusion_group_id: 'is read-only', name: 'is not a field of an exclusion group; use tag' });
  const fields = readGroupFields(r);
  const members: string[] = [];
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
  return created({ exclusion_group_id: group.id }, { location: `${ctx.path}/${group.id}` });
}

function updateGroup(ctx: RequestContext) {
  const group = requireGroup(ctx);
  const r = ObjectReader.body(ctx.body);
  r.rejectUnknown(['tag', 'description'], {
    target_group_ids: 'membership changes use POST …/target-groups/add and …/target-groups/remove',
    exclusion_group_id: 'is read-only',
    name: 'is not a field of an exclusion group; use tag',
  });
  const fields = readGroupFields(r, group);
  Object.assign(group, fields, { updated_at: ctx.clock.iso() });
  return noContent();
}

function changeMembers(ctx: RequestContext, op: 'add' | 'remove') {
  const group = requireGroup(ctx);
  const r = ObjectReader.body(ctx.body);
  r.rejectUnknown(['data']);
  const ids = readTargetGroupIds(ctx, r, 'data', true);
  group.target_group_ids = op === 'add' ? [...group.target_group_ids, ...ids.filter((id) => !group.target_group_ids.includes(id))] : group.target_group_ids.filter((id) => !ids.includes(id));
  group.updated_at = ctx.clock.iso();
  // The reference documents add's and remove's 204 with an application/json answer (an empty object schema). A
  // 204 carries no body (RFC 9110), so the answer is the documented media type without one.
  return noContent({ 'content-type': 'application/json' });
}

function listMembers(ctx: RequestContext) {
  const group = requireGroup(ctx);
  const page = parsePageRequest(ctx.query, GROUP_PAGE);
  const members = group.target_group_ids.map((id) => ctx.store.data.target_groups[id]).filter((tg) => tg !== undefined);
  return ok(dataCursorBody(paginate(members, page, (tg) => tg.id), ctx.path));
}

function groupsOfTargetGroup(ctx: RequestContext) {
  const tg = requireTargetGroup(ctx);
  const page = parsePageRequest(ctx.query, TG_GROUPS_PAGE);
  const groups = Object.values(ctx.store.data.exclusion_groups).filter((g) => g.account_id === tg.account_id && g.target_group_ids.includes(tg.id));
  return ok(dataCursorBody(paginate(groups, page, render), ctx.path));
}

export const exclusionGroupsRoutes: RouteModule = {
  name: 'exclusion-groups',
  routes: [
    {
      method: 'GET',
      path: GROUPS,
      handler: (ctx) =>
        ok(dataCursorBody(paginate(Object.values(ctx.store.data.exclusion_groups).filter((g) => g.account_id === ctx.account!.account_id), parsePageRequest(ctx.query, GROUP_PAGE), render), ctx.path)),
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
