// ID-based exclusions under X = TG/exclusions (spec: Endpoints › ID-based exclusions): upload by file
// (job), job status, remove-all (job), paginated reads. All three versions.
import { badRequest, type InvalidParam } from '../core/api-error';
import { dataCursorBody, paginateArray, parsePageRequest } from '../core/pagination';
import { created, ok, type RequestContext, type RouteModule } from '../core/route-module';
import type { JobRecord } from '../core/state-records';
import type { StateStore } from '../core/state-store';
import { assertWriteVersionAllowed, pinWriteVersion } from '../core/versioning';
import { exclusionLists, listKey, newIds, totalExcludedIds, writableExclusionLists } from '../resources/id-exclusion-lists';
import { MAX_IDS_PER_TARGET_GROUP, readEntityType, type EntityType } from '../resources/id-list-file';
import { acceptIdListUpload } from '../resources/id-list-upload';
import { requireTargetGroup } from '../resources/lookups';
import {
  SIMULATED_FAILURE_REASON,
  assertNoRunningJob,
  assertNotCompleted,
  createTargetGroupJob,
  renderJob,
  requireJob,
} from '../resources/target-group-jobs';
import { X } from './paths';

export const UPLOAD_KIND = 'exclusion_upload';
export const REMOVE_ALL_KIND = 'exclusion_remove_all';
/** Upload and remove-all share one slot per target group. */
const EXCLUSION_JOB_KINDS = [UPLOAD_KIND, REMOVE_ALL_KIND];
export const ID_PAGE = { max: 1000, default: 100 };

function uploadExclusionFile(ctx: RequestContext) {
  return acceptIdListUpload(ctx, { kind: UPLOAD_KIND, slot: EXCLUSION_JOB_KINDS, what: 'exclusion' });
}

function settleUpload(store: StateStore) {
  return (job: JobRecord) => {
    const data = store.data;
    const entityType = job.input.entity_type as EntityType;
    if (typeof job.input.error === 'string') return fail(job, job.input.error);
    if (job.simulated_failure) return fail(job, SIMULATED_FAILURE_REASON);
    const ids = job.input.ids as string[];
    const lists = exclusionLists(data, job.target_group_id);
    const key = listKey(entityType);
    const added = newIds(lists[key], ids);
    const total = totalExcludedIds(lists) + added.length;
    if (total > MAX_IDS_PER_TARGET_GROUP) {
      return fail(job, `The target group would hold ${total} excluded IDs; the limit is ${MAX_IDS_PER_TARGET_GROUP} per target group. Nothing was added.`);
    }
    const target = writableExclusionLists(data, job.target_group_id)[key];
    for (const id of added) target.push(id);
    job.status = 'Success';
    job.result = { entity_type: entityType, ids_in_file: ids.length, ids_added: added.length, total_ids: total };
  };
}

function fail(job: JobRecord, reason: string): void {
  job.status = 'Failed';
  job.failure_reason = reason;
}

function startRemoveAll(ctx: RequestContext) {
  const tg = requireTargetGroup(ctx);
  assertWriteVersionAllowed(tg, ctx.version, 'target group');
  const problems: InvalidParam[] = [];
  // Reference (exclusion_create_remove_all_respondents_job): entity_type is a required query parameter.
  const entityType = ctx.query.has('entity_type') ? readEntityType(ctx.query, problems) : null;
  if (!ctx.query.has('entity_type')) problems.push({ name: 'entity_type', reason: 'is required (RSID or ACCESS_RESPONDENT_GUID)' });
  if (problems.length > 0) throw badRequest('The request is invalid.', problems);
  assertNotCompleted(tg);
  assertNoRunningJob(ctx, tg, EXCLUSION_JOB_KINDS, 'exclusion');
  const job = createTargetGroupJob(ctx, tg, REMOVE_ALL_KIND, { entity_type: entityType }, { entity_type: entityType });
  pinWriteVersion(tg, ctx.version);
  return created({ job_id: job.id }, { location: `${ctx.path}/${job.id}` });
}

function settleRemoveAll(store: StateStore) {
  return (job: JobRecord) => {
    const data = store.data;
    if (job.simulated_failure) return fail(job, SIMULATED_FAILURE_REASON);
    const entityType = job.input.entity_type as EntityType | null;
    const lists = data.id_exclusion_lists[job.target_group_id];
    let removed = 0;
    if (lists) {
      const keys: Array<keyof typeof lists> = entityType ? [listKey(entityType)] : ['rsid', 'access_respondent_guid', 'cid'];
      for (const key of keys) {
        removed += lists[key].length;
        lists[key] = [];
      }
    }
    job.status = 'Success';
    job.result = { entity_type: entityType, ids_removed: removed };
  };
}

function readIds(ctx: RequestContext, key: 'rsid' | 'access_respondent_guid') {
  const tg = requireTargetGroup(ctx);
  const page = parsePageRequest(ctx.query, ID_PAGE);
  return ok(dataCursorBody(paginateArray(exclusionLists(ctx.store.data, tg.id)[key], page), ctx.path));
}

export const idExclusionsRoutes: RouteModule = {
  name: 'id-exclusions',
  routes: [
    { method: 'POST', path: `${X}/jobs/upload-respondents-by-file`, body: 'multipart', idempotent: true, handler: uploadExclusionFile },
    {
      method: 'GET',
      path: `${X}/jobs/upload-respondents-by-file/{job_id}`,
      handler: (ctx) => ok(renderJob(requireJob(ctx, requireTargetGroup(ctx), [UPLOAD_KIND]))),
    },
    { method: 'POST', path: `${X}/jobs/remove-all-respondents`, body: 'none', idempotent: true, handler: startRemoveAll },
    {
      method: 'GET',
      path: `${X}/jobs/remove-all-respondents/{job_id}`,
      handler: (ctx) => ok(renderJob(requireJob(ctx, requireTargetGroup(ctx), [REMOVE_ALL_KIND]))),
    },
    { method: 'GET', path: `${X}/rsid/paginated`, handler: (ctx) => readIds(ctx, 'rsid') },
    { method: 'GET', path: `${X}/access-respondent-guid/paginated`, handler: (ctx) => readIds(ctx, 'access_respondent_guid') },
  ],
  init(services) {
    services.jobs.defineKind(UPLOAD_KIND, settleUpload(services.store));
    services.jobs.defineKind(REMOVE_ALL_KIND, settleRemoveAll(services.store));
  },
};
