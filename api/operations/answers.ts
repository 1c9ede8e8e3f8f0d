// Reading answers that have no wire schema of their own: a resource with an id, any object, one string field.
import type { ApiResponse } from '../http/demand-api-client';
import { unexpectedResponseFailure } from '../http/errors';
import { fromWireBody } from '../wire/version-adapter';
import type { ApiCaller, OperationRequest } from './caller';
import type { ApiObject } from './types';

/** The body as a resource with a string `id`, or an unexpected-response failure. */
export function expectResource(req: OperationRequest, res: ApiResponse): ApiObject {
  const record = expectObject(req, res);
  if (typeof record.id === 'number') return { ...record, id: String(record.id) };
  if (typeof record.id !== 'string' || record.id === '') {
    throw unexpectedResponseFailure({ method: req.method, path: req.path }, res.status, 'the resource has no id');
  }
  return record as ApiObject;
}

/** The body as a JSON object (any shape), or an unexpected-response failure. */
export function expectObject(req: OperationRequest, res: ApiResponse): Record<string, unknown> {
  const body = res.body;
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw unexpectedResponseFailure({ method: req.method, path: req.path }, res.status, 'expected a JSON object');
  }
  return body as Record<string, unknown>;
}

/** A string field of a body (e.g. `job_id`), or an unexpected-response failure. */
export function expectString(req: OperationRequest, res: ApiResponse, field: string): string {
  const value = expectObject(req, res)[field];
  if (typeof value === 'number') return String(value);
  if (typeof value !== 'string' || value === '') {
    throw unexpectedResponseFailure({ method: req.method, path: req.path }, res.status, `no ${field}`);
  }
  return value;
}

/** GET a resource by its path: the resource in 2025-12-18 names, or undefined when the API answers 404. */
export async function readResourceOrMissing(caller: ApiCaller, path: string): Promise<ApiObject | undefined> {
  const req = { method: 'GET', path, acceptStatuses: [404] } as const;
  const res = await caller.send(req);
  return res.status === 404 ? undefined : fromWireBody(expectResource(req, res), caller.apiVersion);
}
