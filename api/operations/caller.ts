// The one thing an API operation needs: a way to send a request for an account in a version. Operations in
// api/operations/ are plain functions over it (no Temporal, no activity context); activities/ adapts each
// to an activity (input checks, heartbeats, cancellation, batch results), and anything else (a test, the
// study client) may call them directly with a caller of its own.
import type { ApiRequest, ApiResponse, DemandApiClient } from '../http/demand-api-client';
import type { ApiVersion } from '../../shared/api-version';
import type { ApiProfileName } from '../../shared/api-profile';

/** A request as an operation writes it: the caller adds the version, trace context and cancellation. */
export type OperationRequest = Omit<ApiRequest, 'apiVersion' | 'traceparent' | 'signal'>;

export interface ApiCaller {
  /** Demand account the calls act for. */
  readonly accountId: string;
  /** Version header of the calls: the study's version, or the version the resource is pinned to. */
  readonly apiVersion: ApiVersion;
  send<T = unknown>(req: OperationRequest): Promise<ApiResponse<T>>;
  /** The API's dialect (shared/api-dialect.ts); absent means `sandbox`, as for an ApiConfig without a profile. */
  readonly profile?: ApiProfileName;
  /** Told of progress in a long operation (pages read); an activity heartbeats it. */
  progress?(details: Record<string, unknown>): void;
}

export interface CallerOptions {
  accountId: string;
  apiVersion: ApiVersion;
  traceparent?: string;
  /** Cancels every request of this caller (an activity's cancellation). */
  signal?: AbortSignal;
  /** See {@link ApiCaller.progress}. */
  progress?: (details: Record<string, unknown>) => void;
}

/** A caller over a Demand API client. */
export function apiCaller(client: DemandApiClient, options: CallerOptions): ApiCaller {
  return {
    accountId: options.accountId,
    apiVersion: options.apiVersion,
    profile: client.config.profile,
    progress: options.progress,
    send: <T>(req: OperationRequest) =>
      client.request<T>({ ...req, apiVersion: options.apiVersion, traceparent: options.traceparent, signal: options.signal }),
  };
}

/** `/v1/demand/accounts/{account_id}` */
export function accountPath(caller: Pick<ApiCaller, 'accountId'>): string {
  return `/v1/demand/accounts/${seg(caller.accountId)}`;
}

/** `…/projects/{project_id}` */
export function projectPath(caller: Pick<ApiCaller, 'accountId'>, projectId: string): string {
  return `${accountPath(caller)}/projects/${seg(projectId)}`;
}

/** `…/projects/{project_id}/target-groups/{target_group_id}` */
export function targetGroupPath(caller: Pick<ApiCaller, 'accountId'>, projectId: string, targetGroupId: string): string {
  return `${projectPath(caller, projectId)}/target-groups/${seg(targetGroupId)}`;
}

/** One encoded path segment. */
export function seg(value: string): string {
  return encodeURIComponent(value);
}
