// Recontact: upload the list of pre-identified respondents of a recontact target group, and read the job.
import type { IdListEntityType } from '../../shared/id-list';
import { JobCreated } from '../wire/jobs';
import { readAnswer } from '../wire/read-answer';
import { RecontactJobAnswer } from '../wire/recontact';
import { seg, targetGroupPath, type ApiCaller } from './caller';
import type { TargetGroupRef } from './fielding';
import { sendListFile, type ListFileUpload } from './id-lists';
import { jobStatusOf, parseJobStatus } from './jobs';
import type { JobStatus } from './types';

const jobs = (caller: ApiCaller, tg: TargetGroupRef) => `${targetGroupPath(caller, tg.projectId, tg.targetGroupId)}/recontacts/jobs/upload-respondents-by-file`;

/** recontact_create_upload_respondents_by_file_job `POST TG/recontacts/jobs/upload-respondents-by-file` (multipart field `file`): the job's id. */
export async function uploadRecontactList(caller: ApiCaller, input: TargetGroupRef & ListFileUpload & { entityType: IdListEntityType }): Promise<string> {
  const path = jobs(caller, input);
  const res = await sendListFile(caller, path, { entity_type: input.entityType }, input);
  return readAnswer({ operation: 'recontact_create_upload_respondents_by_file_job', method: 'POST', path }, JobCreated, res).job_id;
}

/** get_recontact_upload_respondents_by_file_job `GET TG/recontacts/jobs/upload-respondents-by-file/{job_id}`. */
export async function getRecontactJob(caller: ApiCaller, input: TargetGroupRef & { jobId: string }): Promise<JobStatus> {
  const req = { method: 'GET', path: `${jobs(caller, input)}/${seg(input.jobId)}` } as const;
  return jobStatusOf(parseJobStatus('get_recontact_upload_respondents_by_file_job', req, await caller.send(req), RecontactJobAnswer));
}
