// ID-based exclusions of a target group: streamed uploads, job status, a digest of the remote list, remove-all.
import { callApi, expectString, seg, targetGroupPath } from './api-call';
import type { ActivityDeps } from './activity-deps';
import { checkCtx, requireText } from './activity-input';
import { invalidInputFailure } from '../api/http/errors';
import { digestSortedIds, sortIds } from '../blobs/id-list-digest';
import { uploadIdListFile } from './id-list-upload';
import { parseJobStatus } from './job-status';
import { walkPages } from './pagination';
import { listExcludedIdsWire } from '../api/wire/lists';
import { JobCreated } from '../api/wire/jobs';
import { readAnswer } from '../api/wire/read-answer';
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

export function idListExclusionActivities(deps: ActivityDeps) {
  const pageSize = deps.idListPageSize ?? 1000;
  const prefix = (ctx: ActivityCtx, p: string, t: string) => `${targetGroupPath(ctx, p, t)}/exclusions`;

  function target(activity: string, input: IdListTarget): [ActivityCtx, string, string] {
    return [
      checkCtx(activity, input.ctx),
      requireText(activity, 'projectId', input.projectId),
      requireText(activity, 'targetGroupId', input.targetGroupId),
    ];
  }
  function entityType(activity: string, value: unknown): IdListEntityType {
    if (!ENTITY_TYPES.includes(value as IdListEntityType)) throw invalidInputFailure(activity, `entityType must be ${ENTITY_TYPES.join(' or ')}`);
    return value as IdListEntityType;
  }

  return {
    /** POST X/jobs/upload-respondents-by-file?entity_type=… with the stored list; IDs are added to the remote list. */
    async uploadIdList(input: UploadIdListInput): Promise<UploadIdListOutput> {
      const [ctx, p, t] = target('uploadIdList', input);
      const type = entityType('uploadIdList', input.entityType);
      const key = requireText('uploadIdList', 'idempotencyKey', input.idempotencyKey);
      const path = `${prefix(ctx, p, t)}/jobs/upload-respondents-by-file`;
      const res = await uploadIdListFile(deps, ctx, { activity: 'uploadIdList', path, query: { entity_type: type }, list: input.list, idempotencyKey: key });
      return { jobId: expectString({ method: 'POST', path }, res, 'job_id') };
    },

    /** GET X/jobs/upload-respondents-by-file/{job_id} */
    async getIdListJob(input: IdListJobInput): Promise<IdListJobOutput> {
      const [ctx, p, t] = target('getIdListJob', input);
      const jobId = requireText('getIdListJob', 'jobId', input.jobId);
      const req = { method: 'GET', path: `${prefix(ctx, p, t)}/jobs/upload-respondents-by-file/${seg(jobId)}` } as const;
      const { status, failureReason } = parseJobStatus('get_respondent_exclusions_upload_by_file_job', req, await callApi(deps.api, ctx, req));
      return failureReason === undefined ? { status } : { status, failureReason };
    },

    /** Reads every page of X/rsid/paginated (or access-respondent-guid) and returns a count and digest only. */
    async listExcludedIds(input: ListExcludedIdsInput): Promise<ListExcludedIdsOutput> {
      const [ctx, p, t] = target('listExcludedIds', input);
      const type = entityType('listExcludedIds', input.entityType);
      const path = `${prefix(ctx, p, t)}/${type === 'RSID' ? 'rsid' : 'access-respondent-guid'}/paginated`;
      const req = { method: 'GET', path } as const;
      const ids = new Set<string>();
      await walkPages(deps.api, ctx, req, listExcludedIdsWire(type === 'RSID' ? 'rsid' : 'access_respondent_guid'), {
        pageSize,
        onPage: (items) => {
          for (const item of items) ids.add(item);
        },
      });
      const sorted = sortIds([...ids]);
      return { count: sorted.length, sha256: digestSortedIds(sorted).sha256 };
    },

    /** POST X/jobs/remove-all-respondents -> {jobId} */
    async removeAllExcludedIds(input: RemoveAllExcludedIdsInput): Promise<RemoveAllExcludedIdsOutput> {
      const [ctx, p, t] = target('removeAllExcludedIds', input);
      const key = requireText('removeAllExcludedIds', 'idempotencyKey', input.idempotencyKey);
      const type = entityType('removeAllExcludedIds', input.entityType);
      const req = { method: 'POST', path: `${prefix(ctx, p, t)}/jobs/remove-all-respondents`, query: { entity_type: type }, idempotencyKey: key, startsJob: true } as const;
      const answer = readAnswer({ operation: 'exclusion_create_remove_all_respondents_job', ...req }, JobCreated, await callApi(deps.api, ctx, req));
      return { jobId: answer.job_id };
    },

    /** GET X/jobs/remove-all-respondents/{job_id} */
    async getRemoveAllJob(input: IdListJobInput): Promise<IdListJobOutput> {
      const [ctx, p, t] = target('getRemoveAllJob', input);
      const jobId = requireText('getRemoveAllJob', 'jobId', input.jobId);
      const req = { method: 'GET', path: `${prefix(ctx, p, t)}/jobs/remove-all-respondents/${seg(jobId)}` } as const;
      const { status, failureReason } = parseJobStatus('get_all_respondent_exclusions_removal_job', req, await callApi(deps.api, ctx, req));
      return failureReason === undefined ? { status } : { status, failureReason };
    },
  };
}

