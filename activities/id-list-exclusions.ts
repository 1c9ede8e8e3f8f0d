// ID-based exclusions of a target group: streamed uploads, job status, a digest of the remote list, remove-all
// (api/operations/id-lists.ts).
import { excludedIdsDigest, getIdListJob, getRemoveAllJob, removeAllExcludedIds, uploadIdList } from '../api/operations/id-lists';
import type { ApiCaller } from '../api/operations/caller';
import type { TargetGroupRef } from '../api/operations/fielding';
import { activityCaller } from './api-call';
import type { ActivityDeps } from './activity-deps';
import { checkCtx, requireText } from './activity-input';
import { invalidInputFailure } from '../api/http/errors';
import { listDigest } from '../blobs/id-list-digest';
import { uploadStoredList } from './id-list-upload';
import type { ActivityCtx, IdListEntityType, ListRef } from './types';

export interface IdListTarget {
  ctx: ActivityCtx;
  projectId: string;
  targetGroupId: string;
}
export interface UploadIdListInput extends IdListTarget {
  entityType: IdListEntityType;
  /** The list in the blob store; only the reference travels. */
  list: ListRef;
  /** Sent as Idempotency-Key; the multipart body is byte-identical for the same key and list. */
  idempotencyKey: string;
}
export interface UploadIdListOutput {
  jobId: string;
}
export interface IdListJobInput extends IdListTarget {
  jobId: string;
}
export interface IdListJobOutput {
  /** `Processing`, `Success` or `Failed`. */
  status: string;
  failureReason?: string;
}
export interface ListExcludedIdsInput extends IdListTarget {
  entityType: IdListEntityType;
}
export interface ListExcludedIdsOutput {
  /** Number of distinct IDs on the remote list. */
  count: number;
  /** SHA-256 of the sorted unique IDs, one per line (the blob store's canonical form); never the IDs. */
  sha256: string;
}
export interface RemoveAllExcludedIdsInput extends IdListTarget {
  /** Which list to empty (the reference's required `entity_type`); the other list is kept. */
  entityType: IdListEntityType;
  /** Sent as Idempotency-Key. */
  idempotencyKey: string;
}
export interface RemoveAllExcludedIdsOutput {
  jobId: string;
}

const ENTITY_TYPES: readonly IdListEntityType[] = ['RSID', 'ACCESS_RESPONDENT_GUID'];

function target(activity: string, input: IdListTarget) {
  return {
    ctx: checkCtx(activity, input.ctx),
    projectId: requireText(activity, 'projectId', input.projectId),
    targetGroupId: requireText(activity, 'targetGroupId', input.targetGroupId),
  };
}
function entityType(activity: string, value: unknown): IdListEntityType {
  if (!ENTITY_TYPES.includes(value as IdListEntityType)) throw invalidInputFailure(activity, `entityType must be ${ENTITY_TYPES.join(' or ')}`);
  return value as IdListEntityType;
}

/** An ID-list job's status, its input checked (also a reader of awaitJob). */
export async function getIdListJobChecked(deps: Pick<ActivityDeps, 'api'>, input: IdListJobInput): Promise<IdListJobOutput> {
  const { ctx, projectId, targetGroupId } = target('getIdListJob', input);
  const jobId = requireText('getIdListJob', 'jobId', input.jobId);
  return await getIdListJob(activityCaller(deps, ctx), { projectId, targetGroupId, jobId });
}

/** A remove-all job's status, its input checked (also a reader of awaitJob). */
export async function getRemoveAllJobChecked(deps: Pick<ActivityDeps, 'api'>, input: IdListJobInput): Promise<IdListJobOutput> {
  const { ctx, projectId, targetGroupId } = target('getRemoveAllJob', input);
  const jobId = requireText('getRemoveAllJob', 'jobId', input.jobId);
  return await getRemoveAllJob(activityCaller(deps, ctx), { projectId, targetGroupId, jobId });
}

/** The remote list's count and digest, in the blob store's canonical form (never the IDs). */
export async function remoteListDigest(caller: ApiCaller, input: TargetGroupRef & { entityType: IdListEntityType; pageSize?: number }): Promise<ListExcludedIdsOutput> {
  return await excludedIdsDigest(caller, input, listDigest);
}

export function idListExclusionActivities(deps: ActivityDeps) {
  return {
    /** POST X/jobs/upload-respondents-by-file?entity_type=… with the stored list; IDs are added to the remote list. */
    async uploadIdList(input: UploadIdListInput): Promise<UploadIdListOutput> {
      const { ctx, projectId, targetGroupId } = target('uploadIdList', input);
      const type = entityType('uploadIdList', input.entityType);
      const idempotencyKey = requireText('uploadIdList', 'idempotencyKey', input.idempotencyKey);
      const caller = activityCaller(deps, ctx);
      const jobId = await uploadStoredList(deps, { activity: 'uploadIdList', list: input.list, idempotencyKey }, (file) =>
        uploadIdList(caller, { projectId, targetGroupId, entityType: type, ...file }),
      );
      return { jobId };
    },

    /** GET X/jobs/upload-respondents-by-file/{job_id} */
    getIdListJob: (input: IdListJobInput): Promise<IdListJobOutput> => getIdListJobChecked(deps, input),

    /** Reads every page of X/rsid/paginated (or access-respondent-guid) and returns a count and digest only. */
    async listExcludedIds(input: ListExcludedIdsInput): Promise<ListExcludedIdsOutput> {
      const { ctx, projectId, targetGroupId } = target('listExcludedIds', input);
      const type = entityType('listExcludedIds', input.entityType);
      return await remoteListDigest(activityCaller(deps, ctx), { projectId, targetGroupId, entityType: type, pageSize: deps.idListPageSize });
    },

    /** POST X/jobs/remove-all-respondents -> {jobId} */
    async removeAllExcludedIds(input: RemoveAllExcludedIdsInput): Promise<RemoveAllExcludedIdsOutput> {
      const { ctx, projectId, targetGroupId } = target('removeAllExcludedIds', input);
      const idempotencyKey = requireText('removeAllExcludedIds', 'idempotencyKey', input.idempotencyKey);
      const type = entityType('removeAllExcludedIds', input.entityType);
      return { jobId: await removeAllExcludedIds(activityCaller(deps, ctx), { projectId, targetGroupId, entityType: type, idempotencyKey }) };
    },

    /** GET X/jobs/remove-all-respondents/{job_id} */
    getRemoveAllJob: (input: IdListJobInput): Promise<IdListJobOutput> => getRemoveAllJobChecked(deps, input),
  };
}
