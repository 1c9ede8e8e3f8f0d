// Sends one activity's call: the ctx's version, traceparent, cancellation.
import { activityCancellationSignal } from './activity-context';
import type { ApiRequest, ApiResponse, DemandApiClient } from '../api/http/demand-api-client';
import { unexpectedResponseFailure } from '../api/http/errors';
import type { ActivityCtx, ApiObject } from './types';
import { fromWireBody } from '../api/wire/version-adapter';

export type ActivityApiRequest = Omit<ApiRequest, 'apiVersion' | 'traceparent' | 'signal'>;

export function callApi<T = unknown>(api: DemandApiClient, ctx: ActivityCtx, req: ActivityApiRequest): Promise<ApiResponse<T>> {
  return api.request<T>({
    ...req,
    apiVersion: ctx.apiVersion,
    traceparent: ctx.traceparent,
    signal: activityCancellationSignal(),
  });
}

/** `/v1/demand/accounts/{account_id}` */
export function accountPath(ctx: ActivityCtx): string {
  return `/v1/demand/accounts/${seg(ctx.accountId)}`;
}

/** `P/projects/{project_id}` */
export function projectPath(ctx: ActivityCtx, projectId: string): string {
  return `${accountPath(ctx)}/projects/${seg(projectId)}`;
}

/** `P/projects/{project_id}/target-groups/{target_group_id}` */
export function targetGroupPath(ctx: ActivityCtx, projectId: string, targetGroupId: string): string {
  return `${projectPath(ctx, projectId)}/target-groups/${seg(targetGroupId)}`;
}

/** One encoded path segment. */
export function seg(value: string): string {
  return encodeURIComponent(value);
}

/** The body as a resource with a string `id`, or an unexpected-response failure. */
export function expectResource(req: ActivityApiRequest, res: ApiResponse): ApiObject {
  const body = res.body;
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw unexpectedResponseFailure({ method: req.method, path: req.path }, res.status, 'expected a JSON object');
  }
  const record = body as Record<string, unknown>;
  if (typeof record.id === 'number') return { ...record, id: String(record.id) };
  if (typeof record.id !== 'string' || record.id === '') {
    throw unexpectedResponseFailure({ method: req.method, path: req.path }, res.status, 'the resource has no id');
  }
  return record as ApiObject;
}

/** The body as a JSON object (any shape), or an unexpected-response failure. */
export function expectObject(req: ActivityApiRequest, res: ApiResponse): Record<string, unknown> {
  const body = res.body;
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw unexpectedResponseFailure({ method: req.method, path: req.path }, res.status, 'expected a JSON object');
  }
  return body as Record<string, unknown>;
}

/** A string field of a body (e.g. `job_id`), or an unexpected-response failure. */
export function expectString(req: ActivityApiRequest, res: ApiResponse, field: string): string {
  const value = expectObject(req, res)[field];
  if (typeof value === 'number') return String(value);
  if (typeof value !== 'string' || value === '') {
    throw unexpectedResponseFailure({ method: req.method, path: req.path }, res.status, `no ${field}`);
  }
  return value;
}

/** GET a resource by its path: the resource in 2025-12-18 names, or undefined when the API answers 404. */
export async function readResourceOrMissing(api: DemandApiClient, ctx: ActivityCtx, path: string): Promise<ApiObject | undefined> {
  const req = { method: 'GET', path, acceptStatuses: [404] } as const;
  const res = await callApi(api, ctx, req);
  return res.status === 404 ? undefined : fromWireBody(expectResource(req, res), ctx.apiVersion);
}
