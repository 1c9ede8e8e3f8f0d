// Reads the status answer of an asynchronous job, checked at the boundary (api/wire/jobs.ts).
import type { z } from 'zod';
import type { ApiResponse } from '../http/demand-api-client';
import { failureReasonText, JobStatusAnswer } from '../wire/jobs';
import { readAnswer } from '../wire/read-answer';
import type { OperationRequest } from './caller';
import type { JobStatus } from './types';

/**
 * `operation` is the reference's operation id of the job read (for the failure that names it); `schema` the
 * operation's own job answer where it is stricter than the common one (e.g. its status values).
 */
export function parseJobStatus(
  operation: string,
  req: OperationRequest,
  res: ApiResponse,
  schema: z.ZodType<z.infer<typeof JobStatusAnswer>> = JobStatusAnswer,
): JobStatus & { body: Record<string, unknown> } {
  const body = readAnswer({ operation, method: req.method, path: req.path }, schema, res);
  const out: JobStatus & { body: Record<string, unknown> } = { status: body.status, body };
  const reason = failureReasonText(body.failure_reason);
  if (reason !== undefined) out.failureReason = reason;
  return out;
}

/** A job status without its body, `failureReason` only when there is one. */
export function jobStatusOf(job: JobStatus): JobStatus {
  return job.failureReason === undefined ? { status: job.status } : { status: job.status, failureReason: job.failureReason };
}
