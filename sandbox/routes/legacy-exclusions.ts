// Legacy cid/rid exclusion endpoints under X (GET and POST each): versions before 2025-12-18 only,
// 404 in 2025-12-18. POST {data: [ids]} adds synchronously (rid = the RSID list, cid = its own list).
import { ApiError } from '../core/api-error';
import { ObjectReader } from '../core/input-validation';
import { paginateArray, parsePageRequest } from '../core/pagination';
import { ok, type RequestContext, type RouteModule } from '../core/route-module';
import { LEGACY_VERSIONS, assertWriteVersionAllowed } from '../core/versioning';
import { exclusionLists, newIds, totalExcludedIds, writableExclusionLists } from '../resources/id-exclusion-lists';
import { MAX_IDS_PER_TARGET_GROUP, RSID_PATTERN } from '../resources/id-list-file';
import { requireTargetGroup } from '../resources/lookups';
import { assertNotCompleted } from '../resources/target-group-jobs';
import { ID_PAGE } from './id-exclusions';
import { X } from './paths';

/** Per-request cap of the legacy endpoints (the pre-2025 limit). */
export const LEGACY_MAX_IDS_PER_REQUEST = 10_000;
type LegacyList = 'cid' | 'rid';
const storageKey = (list: LegacyList) => (list === 'rid' ? 'rsid' : 'cid');

function addLegacyIds(ctx: RequestContext, list: LegacyList) {
  const tg = requireTargetGroup(ctx);
  assertWriteVersionAllowed(tg, ctx.version, 'target group');
  const r = ObjectReader.body(ctx.body);
  r.rejectUnknown(['data']);
  const raw = r.array('data', { required: true, minItems: 1, maxItems: LEGACY_MAX_IDS_PER_REQUEST });
  const ids: string[] = [];
  raw?.forEach((value, i) => {
    if (typeof value !== 'string' || !RSID_PATTERN.test(value)) r.fail(`data[${i}]`, 'must be 1-64 visible ASCII characters without spaces');
    else if (!ids.includes(value)) ids.push(value);
  });
  r.finish(`The ${list} list is invalid.`);
  assertNotCompleted(tg);
  const key = storageKey(list);
  const lists = exclusionLists(ctx.store.data, tg.id);
  const added = newIds(lists[key], ids);
  const total = totalExcludedIds(lists) + added.length;
  if (total > MAX_IDS_PER_TARGET_GROUP) {
    throw new ApiError(422, 'limit_exceeded', `The target group would hold ${total} excluded IDs; the limit is ${MAX_IDS_PER_TARGET_GROUP}.`);
  }
  const target = writableExclusionLists(ctx.store.data, tg.id)[key];
  for (const id of added) target.push(id);
  tg.updated_at = ctx.clock.iso();
  return ok({ added: added.length, total: target.length });
}

function readLegacyIds(ctx: RequestContext, list: LegacyList) {
  const tg = requireTargetGroup(ctx);
  const page = parsePageRequest(ctx.query, ID_PAGE);
  return ok(paginateArray(exclusionLists(ctx.store.data, tg.id)[storageKey(list)], page));
}

export const legacyExclusionsRoutes: RouteModule = {
  name: 'legacy-exclusions',
  routes: (['cid', 'rid'] as const).flatMap((list) => [
    { method: 'GET' as const, path: `${X}/${list}`, versions: LEGACY_VERSIONS, handler: (ctx: RequestContext) => readLegacyIds(ctx, list) },
    { method: 'POST' as const, path: `${X}/${list}`, versions: LEGACY_VERSIONS, handler: (ctx: RequestContext) => addLegacyIds(ctx, list) },
  ]),
};
