// Recontact: upload the list of pre-identified respondents of a recontact target group, and poll the job
// (api/operations/recontact.ts).
import { getRecontactJob, uploadRecontactList } from '../api/operations/recontact';
import { activityCaller } from './api-call';
import type { ActivityDeps } from './activity-deps';
import { checkCtx, requireText } from './activity-input';
import { invalidInputFailure } from '../api/http/errors';
import { uploadStoredList } from './id-list-upload';
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

/** A recontact job's status, its input checked (also a reader of awaitJob). */
export async function getRecontactJobChecked(deps: Pick<ActivityDeps, 'api'>, input: RecontactJobInput): Promise<RecontactJobOutput> {
  const ctx = checkCtx('getRecontactJob', input.ctx);
  const projectId = requireText('getRecontactJob', 'projectId', input.projectId);
  const targetGroupId = requireText('getRecontactJob', 'targetGroupId', input.targetGroupId);
  const jobId = requireText('getRecontactJob', 'jobId', input.jobId);
  return await getRecontactJob(activityCaller(deps, ctx), { projectId, targetGroupId, jobId });
}

export function recontactActivities(deps: ActivityDeps) {
  return {
    /** POST TG/recontacts/jobs/upload-respondents-by-file (multipart field `file`) -> {jobId} */
    async uploadRecontactList(input: UploadRecontactListInput): Promise<UploadRecontactListOutput> {
      const ctx = checkCtx('uploadRecontactList', input.ctx);
      const projectId = requireText('uploadRecontactList', 'projectId', input.projectId);
      const targetGroupId = requireText('uploadRecontactList', 'targetGroupId', input.targetGroupId);
      const idempotencyKey = requireText('uploadRecontactList', 'idempotencyKey', input.idempotencyKey);
      const entityType = input.entityType ?? 'RSID';
      if (entityType !== 'RSID' && entityType !== 'ACCESS_RESPONDENT_GUID') throw invalidInputFailure('uploadRecontactList', 'entityType must be RSID or ACCESS_RESPONDENT_GUID');
      const caller = activityCaller(deps, ctx);
      const jobId = await uploadStoredList(deps, { activity: 'uploadRecontactList', list: input.list, idempotencyKey }, (file) =>
        uploadRecontactList(caller, { projectId, targetGroupId, entityType, ...file }),
      );
      return { jobId };
    },

    /** GET TG/recontacts/jobs/upload-respondents-by-file/{job_id} */
    getRecontactJob: (input: RecontactJobInput): Promise<RecontactJobOutput> => getRecontactJobChecked(deps, input),
  };
}
