// Job answers on the wire (reference: GetUploadRespondentExclusionsJobResponse, the remove-all job, the
// recontact upload job and the launch-from-draft job): `{job_id, status, created_at, created_by,
// completed_at?, failure_reason?: {code, description}}`.
import { z } from 'zod';

export const JobFailureReason = z.looseObject({ code: z.string(), description: z.string().optional() });

export const JobStatusAnswer = z.looseObject({
  job_id: z.string().min(1),
  status: z.string().min(1),
  created_at: z.string().optional(),
  failure_reason: JobFailureReason.nullable().optional(),
});

/** 201 of a job creation that carries the id in its body. */
export const JobCreated = z.looseObject({ job_id: z.string().min(1) });

/** The failure reason as one line: `code: description`. */
export function failureReasonText(reason: z.infer<typeof JobFailureReason> | null | undefined): string | undefined {
  if (!reason) return undefined;
  return reason.description ? `${reason.code}: ${reason.description}` : reason.code;
}
