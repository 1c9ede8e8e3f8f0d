// A Demand API client wired to an undici MockAgent: `api.test` serves /v1, `auth.test/auth` the token endpoint.
import { MockAgent, type Interceptable } from 'undici';
import type { MockInterceptor } from 'undici/types/mock-interceptor';
import { createApiConfig, type ApiConfig } from '../../../api/http/api-config';
import { createDemandApiClient, type DemandApiClient, type DemandApiClientOptions } from '../../../api/http/demand-api-client';

export const API_ORIGIN = 'http://api.test';
export const AUTH_ORIGIN = 'http://auth.test';
export const CLIENT_SECRET = 'client-secret-value-7f3a';

export interface RecordedRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: unknown;
}

export interface MockApi {
  agent: MockAgent;
  api: Interceptable;
  auth: Interceptable;
  config: ApiConfig;
  client: DemandApiClient;
  /** Every request that reached an interceptor set up with {@link MockApi.on}, in order. */
  requests: RecordedRequest[];
  /** Token endpoint answering tokens `token-1`, `token-2`, … (each lives `expiresIn` seconds). */
  serveTokens(options?: { expiresIn?: number; times?: number }): void;
  /** Intercepts one /v1 call and records it; `reply` gets the recorded request. */
  on(method: string, path: string | RegExp, reply: (req: RecordedRequest) => Reply, times?: number): void;
}

export interface Reply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

export function createMockApi(options: Partial<DemandApiClientOptions> = {}): MockApi {
  const agent = new MockAgent();
  agent.disableNetConnect();
  const config = options.config ?? createApiConfig({
    baseUrl: API_ORIGIN,
    authUrl: `${AUTH_ORIGIN}/auth`,
    audience: 'https://demand-api.test',
    clientId: 'studyflow-test',
    clientSecret: CLIENT_SECRET,
  });
  const client = createDemandApiClient({ ...options, config, dispatcher: agent });
  const requests: RecordedRequest[] = [];
  const api = agent.get(API_ORIGIN);
  const auth = agent.get(AUTH_ORIGIN);
  let issued = 0;
  return {
    agent,
    api,
    auth,
    config,
    client,
    requests,
    serveTokens({ expiresIn = 86_400, times = 1 } = {}) {
      auth
        .intercept({ path: '/auth/oauth/token', method: 'POST' })
        .reply(() => {
          issued += 1;
          return { statusCode: 200, data: { access_token: `token-${issued}-abcdef`, expires_in: expiresIn, token_type: 'Bearer' } };
        })
        .times(times);
    },
    on(method, path, reply, times = 1) {
      const interceptor: MockInterceptor.Options = {
        method,
        path: typeof path === 'string' ? path : (p: string) => path.test(p),
      };
      api
        .intercept(interceptor)
        .reply((opts) => {
          const headers: Record<string, string> = {};
          for (const [k, v] of Object.entries((opts.headers ?? {}) as Record<string, string>)) headers[k.toLowerCase()] = String(v);
          let body: unknown = opts.body;
          if (typeof body === 'string' && body !== '') {
            try {
              body = JSON.parse(body);
            } catch {
              /* keep text */
            }
          }
          const recorded: RecordedRequest = { method: opts.method, path: opts.path, headers, body };
          requests.push(recorded);
          const r = reply(recorded);
          return {
            statusCode: r.status,
            data: r.body === undefined ? '' : typeof r.body === 'string' ? r.body : JSON.stringify(r.body),
            responseOptions: { headers: { ...(r.body !== undefined && typeof r.body !== 'string' ? { 'content-type': 'application/json' } : {}), ...r.headers } },
          };
        })
        .times(times);
    },
  };
}

/** An API error body in the conventions' shape. */
export function apiError(object: string, detail = `${object} happened`, invalidParams?: { name: string; reason: string }[]) {
  return { id: '7b0c1f3e-2a59-4f0e-9a51-0d6f3c1b2a11', object, detail, ...(invalidParams ? { invalid_params: invalidParams } : {}) };
}

/** get_target_group of a draft (reference: FetchTargetGroupResponse): its fields, no id, status or fielding run. */
export function draftAnswer(fields: Record<string, unknown> = {}) {
  return {
    status: 200,
    body: {
      name: 'Adults 18-65', locale: 'eng_us', collects_pii: false, project_manager_id: '6f1c2a4e-3001-4c8e-9d2b-000000003001', completes_goal: 200,
      expected_length_of_interview_minutes: 10, expected_incidence_rate: 0.5, ...fields,
    },
  };
}

/** get_target_group once the group left draft: 301 to its details. */
export function movedAnswer(tgPath: string) {
  return { status: 301, headers: { location: `${tgPath}/details` } };
}

/** get_fielding_runs_by_target_group_id with the one run (FieldingRunItem). */
export function fieldingRunsAnswer(runId: string, status = 'live') {
  const at = '2026-12-01T00:00:00.000Z';
  return {
    status: 200,
    body: { data: [{ id: runId, last_changed_at: at, last_changed_by: '6f1c2a4e-3001-4c8e-9d2b-000000003001', start_fielding_at: at, end_fielding_at: '2026-12-20T00:00:00.000Z', status, version: 1 }], has_more: false },
  };
}

/** Awaits a promise that must reject, and returns the rejection. */
export async function rejectionOf(promise: Promise<unknown>): Promise<any> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection, got a result');
}
