// Launch from draft and fielding runs on the wire (reference: create/get_launch_fielding_run_from_draft_job,
// get_fielding_run, pause/resume/complete_fielding_run).
// - launch-from-draft: request {end_fielding_at} with an idempotency-key; 201 without a body, the job in `Location`.
// - the launch job: {job_id, status Processing|Completed|Failed, created_at, created_by,
//   created_fielding_run_id?, failure_reason?: {code, description}}.
// - a fielding run: {id, last_changed_at, last_changed_by, start_fielding_at, end_fielding_at, status, version}
//   with an ETag; the controls take If-Match and answer 204 (ETag), 412 precondition_failed_error, 422
//   invalid_state_error.
import { z } from 'zod';
import { JobFailureReason } from './jobs';

export const LaunchFromDraftRequest = z.strictObject({ end_fielding_at: z.iso.datetime({ offset: true }) });

export const LaunchJobAnswer = z.looseObject({
  job_id: z.string().min(1),
  status: z.enum(['Processing', 'Completed', 'Failed']),
  created_at: z.string().optional(),
  created_fielding_run_id: z.string().min(1).nullable().optional(),
  failure_reason: JobFailureReason.nullable().optional(),
});

export const FieldingRunAnswer = z.looseObject({
  id: z.string().min(1),
  status: z.enum(['scheduled', 'live', 'paused', 'completed']),
  start_fielding_at: z.string().optional(),
  end_fielding_at: z.string().optional(),
  version: z.number().int().optional(),
});
