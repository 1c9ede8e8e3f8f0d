// Recontact: upload the list of pre-identified respondents of a recontact target group, and poll the job.
import { callApi, seg, targetGroupPath } from './api-call';
import type { ActivityDeps } from './activity-deps';
import { checkCtx, requireText } from './activity-input';
import { invalidInputFailure } from '../api/http/errors';
import { JobCreated } from '../api/wire/jobs';
import { readAnswer } from '../api/wire/read-answer';
import { RecontactJobAnswer } from '../api/wire/recontact';
import { uploadIdListFile } from './id-list-upload';
import { parseJobStatus } from './job-status';
import type { ActivityCtx, IdListEntityType, ListRef } from './types';

export interface UploadRecontactListInput {
  ctx: ActivityCtx;
  projectId: string;
  targetGroupId: string;
  list: ListRef;
  /** Sent as Idempotency-Key. */
  idempotencyKey: string;
  /** Default `RSID`. */
  entityType?: IdListEntityType;
}
export interface UploadRecontactListOutput {
  jobId: string;
}
export interface RecontactJobInput {
  ctx: ActivityCtx;
  projectId: string;
  targetGroupId: string;
  jobId: string;
}
export interface RecontactJobOutput {
  /** `Processing`, `Completed` or `Failed`. */
  status: string;
  failureReason?: string;
}

export function recontactActivities(deps: ActivityDeps) {
  const jobs = (ctx: ActivityCtx, p: string, t: string) => `${targetGroupPath(ctx, p, t)}/recontacts/jobs/upload-respondents-by-file`;
  return {
    /** POST TG/recontacts/jobs/upload-respondents-by-file (multipart field `file`) -> {jobId} */
    async uploadRecontactList(input: UploadRecontactListInput): Promise<UploadRecontactListOutput> {
      const ctx = checkCtx('uploadRecontactList', input.ctx);
      const p = requireText('uploadRecontactList', 'projectId', input.projectId);
      const t = requireText('uploadRecontactList', 'targetGroupId', input.targetGroupId);
      const key = requireText('uploadRecontactList', 'idempotencyKey', input.idempotencyKey);
      const entityType = input.entityType ?? 'RSID';
      if (entityType !== 'RSID' && entityType !== 'ACCESS_RESPONDENT_GUID') throw invalidInputFailure('uploadRecontactList', 'entityType must be RSID or ACCESS_RESPONDENT_GUID');
      const path = jobs(ctx, p, t);
      const res = await uploadIdListFile(deps, ctx, { activity: 'uploadRecontactList', path, query: { entity_type: entityType }, list: input.list, idempotencyKey: key });
      return { jobId: readAnswer({ operation: 'recontact_create_upload_respondents_by_file_job', method: 'POST', path }, JobCreated, res).job_id };
    },

    /** GET TG/recontacts/jobs/upload-respondents-by-file/{job_id} */
    async getRecontactJob(input: RecontactJobInput): Promise<RecontactJobOutput> {
      const ctx = checkCtx('getRecontactJob', input.ctx);
      const p = requireText('getRecontactJob', 'projectId', input.projectId);
      const t = requireText('getRecontactJob', 'targetGroupId', input.targetGroupId);
      const jobId = requireText('getRecontactJob', 'jobId', input.jobId);
      const req = { method: 'GET', path: `${jobs(ctx, p, t)}/${seg(jobId)}` } as const;
      const { status, failureReason } = parseJobStatus('get_recontact_upload_respondents_by_file_job', req, await callApi(deps.api, ctx, req), RecontactJobAnswer);
      return failureReason === undefined ? { status } : { status, failureReason };
    },
  };
}
