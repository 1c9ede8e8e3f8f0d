// Reads the status answer of an asynchronous job, checked at the boundary (activities/http/wire/jobs.ts).
import type { ActivityApiRequest } from './api-call';
import type { ApiResponse } from './http/demand-api-client';
import { failureReasonText, JobStatusAnswer } from './http/wire/jobs';
import { readAnswer } from './http/wire/read-answer';
import type { JobStatus } from './types';

/** `operation` is the reference's operation id of the job read (for the failure that names it). */
export function parseJobStatus(operation: string, req: ActivityApiRequest, res: ApiResponse): JobStatus & { body: Record<string, unknown> } {
  const body = readAnswer({ operation, method: req.method, path: req.path }, JobStatusAnswer, res);
  const out: JobStatus & { body: Record<string, unknown> } = { status: body.status, body };
  const reason = failureReasonText(body.failure_reason);
  if (reason !== undefined) out.failureReason = reason;
  return out;
}
