// ID-based exclusions of a target group: uploads of a list file, job status, the remote list's pages,
// remove-all. The file comes from the caller (the activity streams it from the blob store), and the remote
// list's IDs go to the caller page by page (the activity keeps only their count and digest).
import type { StreamingBody } from '../http/multipart-body';
import type { IdListEntityType } from '../../shared/id-list';
import { JobCreated } from '../wire/jobs';
import { listExcludedIdsWire } from '../wire/lists';
import { readAnswer } from '../wire/read-answer';
import { expectString } from './answers';
import { seg, targetGroupPath, type ApiCaller } from './caller';
import type { TargetGroupRef } from './fielding';
import { jobStatusOf, parseJobStatus } from './jobs';
import { walkPages } from './pagination';
import type { JobStatus } from './types';

/** Page size of excluded-ID lists when the caller names none (the reference's largest). */
export const DEFAULT_ID_LIST_PAGE_SIZE = 1000;

const prefix = (caller: ApiCaller, tg: TargetGroupRef) => `${targetGroupPath(caller, tg.projectId, tg.targetGroupId)}/exclusions`;

/** An upload of a list file: the multipart body (field `file`) and its Idempotency-Key. */
export interface ListFileUpload {
  file: StreamingBody;
  /** Sent as Idempotency-Key; the multipart body is byte-identical for the same key and list. */
  idempotencyKey: string;
}

/** POSTs a list file to an upload endpoint. One job per target group at a time: a 409 conflict_error means another is running. */
export function sendListFile(caller: ApiCaller, path: string, query: Record<string, string>, upload: ListFileUpload) {
  return caller.send({ method: 'POST', path, query, stream: upload.file, idempotencyKey: upload.idempotencyKey, startsJob: true });
}

/** `POST X/jobs/upload-respondents-by-file?entity_type=…`: the IDs are added to the remote list; the job's id. */
export async function uploadIdList(caller: ApiCaller, input: TargetGroupRef & ListFileUpload & { entityType: IdListEntityType }): Promise<string> {
  const path = `${prefix(caller, input)}/jobs/upload-respondents-by-file`;
  return expectString({ method: 'POST', path }, await sendListFile(caller, path, { entity_type: input.entityType }, input), 'job_id');
}

/** get_respondent_exclusions_upload_by_file_job `GET X/jobs/upload-respondents-by-file/{job_id}`. */
export async function getIdListJob(caller: ApiCaller, input: TargetGroupRef & { jobId: string }): Promise<JobStatus> {
  const req = { method: 'GET', path: `${prefix(caller, input)}/jobs/upload-respondents-by-file/${seg(input.jobId)}` } as const;
  return jobStatusOf(parseJobStatus('get_respondent_exclusions_upload_by_file_job', req, await caller.send(req)));
}

/**
 * Reads every page of X/rsid/paginated (or access-respondent-guid), handing each page's IDs to `onPage`;
 * returns how many were read (duplicates included).
 */
export async function readExcludedIds(
  caller: ApiCaller,
  input: TargetGroupRef & { entityType: IdListEntityType; pageSize?: number },
  onPage: (ids: string[]) => void,
): Promise<number> {
  const path = `${prefix(caller, input)}/${input.entityType === 'RSID' ? 'rsid' : 'access-respondent-guid'}/paginated`;
  const list = listExcludedIdsWire(input.entityType === 'RSID' ? 'rsid' : 'access_respondent_guid');
  return await walkPages(caller, { method: 'GET', path }, list, { pageSize: input.pageSize ?? DEFAULT_ID_LIST_PAGE_SIZE, onPage });
}

/**
 * The remote list's count and digest: every page read, its unique IDs handed to `digest` (the blob store's
 * canonical form, blobs/id-list-digest.ts listDigest); only the digest is kept, never the IDs.
 */
export async function excludedIdsDigest<D>(caller: ApiCaller, input: TargetGroupRef & { entityType: IdListEntityType; pageSize?: number }, digest: (uniqueIds: string[]) => D): Promise<D> {
  const ids = new Set<string>();
  await readExcludedIds(caller, input, (page) => {
    for (const id of page) ids.add(id);
  });
  return digest([...ids]);
}

/** exclusion_create_remove_all_respondents_job `POST X/jobs/remove-all-respondents?entity_type=…`: the job's id. */
export async function removeAllExcludedIds(caller: ApiCaller, input: TargetGroupRef & { entityType: IdListEntityType; idempotencyKey: string }): Promise<string> {
  const req = { method: 'POST', path: `${prefix(caller, input)}/jobs/remove-all-respondents`, query: { entity_type: input.entityType }, idempotencyKey: input.idempotencyKey, startsJob: true } as const;
  return readAnswer({ operation: 'exclusion_create_remove_all_respondents_job', ...req }, JobCreated, await caller.send(req)).job_id;
}

/** get_all_respondent_exclusions_removal_job `GET X/jobs/remove-all-respondents/{job_id}`. */
export async function getRemoveAllJob(caller: ApiCaller, input: TargetGroupRef & { jobId: string }): Promise<JobStatus> {
  const req = { method: 'GET', path: `${prefix(caller, input)}/jobs/remove-all-respondents/${seg(input.jobId)}` } as const;
  return jobStatusOf(parseJobStatus('get_all_respondent_exclusions_removal_job', req, await caller.send(req)));
}
