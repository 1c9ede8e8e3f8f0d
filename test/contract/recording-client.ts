// Test helper: a DemandApiClient that records every exchange (method, path, query, headers sent, JSON body
// sent, status, body answered) for the contract tests.
import type { ApiRequest, ApiResponse, DemandApiClient } from '../../api/http/demand-api-client';

export interface RecordedExchange {
  method: string;
  path: string;
  query: Record<string, unknown>;
  idempotencyKey?: string;
  ifMatch?: string;
  json: unknown;
  status: number;
  body: unknown;
  headers: Record<string, string>;
}

export function recordingClient(inner: DemandApiClient, log: RecordedExchange[]): DemandApiClient {
  return {
    config: inner.config,
    get tokenRequestCount() {
      return inner.tokenRequestCount;
    },
    async request<T>(req: ApiRequest): Promise<ApiResponse<T>> {
      const res = await inner.request<T>(req);
      log.push({
        method: req.method,
        path: req.path,
        query: { ...req.query },
        idempotencyKey: req.idempotencyKey,
        ifMatch: req.ifMatch,
        json: req.json,
        status: res.status,
        body: res.body,
        headers: res.headers,
      });
      return res;
    },
  };
}
