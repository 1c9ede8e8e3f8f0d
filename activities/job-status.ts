// Reads the status answer of an asynchronous job: `{job_id, status, failure_reason?, ...}`.
import { expectObject, type ActivityApiRequest } from './api-call';
import type { ApiResponse } from './http/demand-api-client';
import { unexpectedResponseFailure } from './http/errors';
import type { JobStatus } from './types';

export function parseJobStatus(req: ActivityApiRequest, res: ApiResponse): JobStatus & { body: Record<string, unknown> } {
  const body = expectObject(req, res);
  if (typeof body.status !== 'string' || body.status === '') throw unexpectedResponseFailure(req, res.status, 'a job answer has no status');
  const out: JobStatus & { body: Record<string, unknown> } = { status: body.status, body };
  if (typeof body.failure_reason === 'string' && body.failure_reason !== '') out.failureReason = body.failure_reason;
  return out;
}
