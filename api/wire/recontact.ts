// Recontact upload on the wire (reference: recontact_create_upload_respondents_by_file_job,
// get_recontact_upload_respondents_by_file_job): multipart field `file` with `entity_type` (RSID), 201
// {job_id}; the job {job_id, status Processing|Completed|Failed, created_at, created_by, completed_at?,
// failure_reason?: {code, description}}. Only one recontact job runs at a time per target group (409).
import { z } from 'zod';
import { JobFailureReason } from './jobs';

export const RecontactJobAnswer = z.looseObject({
  job_id: z.string().min(1),
  status: z.enum(['Processing', 'Completed', 'Failed']),
  created_at: z.string().optional(),
  completed_at: z.string().nullable().optional(),
  failure_reason: JobFailureReason.nullable().optional(),
});
