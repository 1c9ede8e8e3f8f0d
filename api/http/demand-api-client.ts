// The Demand API client: bearer token, version header, timeouts, traceparent, one refresh-and-replay on 403.
import { Readable } from 'node:stream';
import type { Dispatcher } from 'undici';
import { AccessTokenProvider } from './access-token-provider';
import type { ApiConfig } from './api-config';
import { DEFAULT_JOB_BUSY_RETRY_DELAY_MS, failureFromAnswer, isAuthorizationErrorBody, type ApiAnswer } from './errors';
import { exchange } from './http-exchange';
import type { StreamingBody } from './multipart-body';
import { sharedApiDispatcher } from './shared-dispatcher';
import { createRequestPacer } from './request-pacer';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

/** Options of {@link createDemandApiClient}. */
export interface DemandApiClientOptions {
  /** Validated settings (see `loadApiConfig`). */
  config: ApiConfig;
  /** undici dispatcher; default the process-wide keep-alive Agent. Tests pass a MockAgent. */
  dispatcher?: Dispatcher;
  /** Clock in ms for token expiry and Retry-After dates. Default `Date.now`. */
  clock?: () => number;
  /** Renew the token this long before it expires. Default 5 minutes. */
  tokenRefreshMarginMs?: number;
  /** Wait before retrying a 409 job_already_running without Retry-After. Default 10 s. */
  jobBusyRetryDelayMs?: number;
  /** User-Agent header. Default `studyflow`. */
  userAgent?: string;
  /**
   * Most requests per second this process sends to the API (STUDYFLOW_API_REQUESTS_PER_SECOND);
   * default unpaced. Give each of N worker processes 1/N of the API's quota.
   */
  requestsPerSecond?: number;
  /** Most open connections to the API from this process (STUDYFLOW_API_MAX_CONNECTIONS); default 512. Ignored with `dispatcher`. */
  maxConnections?: number;
  /**
   * Called once per request sent, when its answer (or its failure to arrive) is known: the metrics of the
   * worker count API calls by operation and status here. `replay` marks the resend with a renewed token.
   * It must not throw; it never sees the token, the query or the body.
   */
  onRequestDone?: (done: { method: HttpMethod; path: string; status?: number; replay: boolean }) => void;
}

/** One call to a `/v1` endpoint. */
export interface ApiRequest {
  method: HttpMethod;
  /** Path starting with `/v1/`, segments already encoded. */
  path: string;
  /** Value of the version header for this call. */
  apiVersion: string;
  query?: Record<string, string | number | boolean | undefined | null>;
  /** JSON body. */
  json?: unknown;
  /** Streamed body (multipart uploads); re-opened on replay. */
  stream?: StreamingBody;
  idempotencyKey?: string;
  ifMatch?: string;
  /** W3C trace context, passed through when well-formed. */
  traceparent?: string;
  signal?: AbortSignal;
  /** Non-2xx statuses returned to the caller instead of thrown (e.g. 404 for lookups, 412 for ETags). */
  acceptStatuses?: readonly number[];
  /**
   * The call starts a job, where the reference answers 409 conflict_error while another job runs for the
   * target group: such a 409 is a retryable job_already_running (after Retry-After, else jobBusyRetryDelayMs).
   */
  startsJob?: boolean;
  /**
   * A success's body is handed over unread, as a Readable the caller must consume or destroy (a file download:
   * never held in memory); a failure's is read and classified as any other.
   */
  streamAnswer?: boolean;
  /** The Accept header; default `application/json` (a file download names its media types). */
  accept?: string;
}

/** The answer to an {@link ApiRequest}: status, lower-cased headers, parsed body. */
export interface ApiResponse<T = unknown> {
  status: number;
  headers: Record<string, string>;
  body: T;
}

/** What activities need from the client. */
export interface DemandApiClient {
  readonly config: ApiConfig;
  /** Sends one call; non-accepted statuses become ApplicationFailures (see errors.ts). */
  request<T = unknown>(req: ApiRequest): Promise<ApiResponse<T>>;
  /** Token requests sent so far by this client. */
  readonly tokenRequestCount: number;
}

const TRACEPARENT = /^[0-9a-f]{2}-(?!0{32})[0-9a-f]{32}-(?!0{16})[0-9a-f]{16}-[0-9a-f]{2}$/;

/** Creates the client. Create one per process and share it: it holds the token cache. */
export function createDemandApiClient(options: DemandApiClientOptions): DemandApiClient {
  const { config } = options;
  const dispatcher = options.dispatcher ?? sharedApiDispatcher({ connectTimeoutMs: config.timeouts.connectMs, maxConnections: options.maxConnections });
  const clock = options.clock ?? Date.now;
  const userAgent = options.userAgent ?? 'studyflow';
  const tokens = new AccessTokenProvider({ config, dispatcher, clock, refreshMarginMs: options.tokenRefreshMarginMs, userAgent });
  const jobBusyRetryDelayMs = options.jobBusyRetryDelayMs ?? DEFAULT_JOB_BUSY_RETRY_DELAY_MS;

  const pacer = createRequestPacer(options.requestsPerSecond, clock);

  async function send(req: ApiRequest, token: string, replay = false): Promise<ApiAnswer> {
    await pacer.take(req.signal);
    if (!options.onRequestDone) return sendOnce(req, token);
    let status: number | undefined;
    try {
      const answer = await sendOnce(req, token);
      status = answer.status;
      return answer;
    } finally {
      options.onRequestDone({ method: req.method, path: req.path, status, replay });
    }
  }

  async function sendOnce(req: ApiRequest, token: string): Promise<ApiAnswer> {
    if (!req.path.startsWith('/v1/')) throw new Error(`Demand API paths start with /v1/ (got ${req.path})`);
    const url = new URL(config.baseUrl + req.path);
    for (const [name, value] of Object.entries(req.query ?? {})) {
      if (value !== undefined && value !== null) url.searchParams.set(name, String(value));
    }
    const headers: Record<string, string> = {
      authorization: `Bearer ${token}`,
      [config.versionHeader.toLowerCase()]: req.apiVersion,
      accept: req.accept ?? 'application/json',
      'user-agent': userAgent,
    };
    let body: string | Readable | undefined;
    if (req.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(req.json);
    } else if (req.stream) {
      headers['content-type'] = req.stream.contentType;
      if (req.stream.contentLength !== undefined) headers['content-length'] = String(req.stream.contentLength);
      body = Readable.from(req.stream.open(), { objectMode: false });
    } else if (req.method === 'POST' || req.method === 'PUT') {
      headers['content-length'] = '0';
    }
    if (req.idempotencyKey) headers['idempotency-key'] = req.idempotencyKey;
    if (req.ifMatch) headers['if-match'] = req.ifMatch;
    if (req.traceparent && TRACEPARENT.test(req.traceparent)) headers.traceparent = req.traceparent;
    return exchange({
      url,
      method: req.method,
      headers,
      body,
      signal: req.signal,
      headersTimeoutMs: config.timeouts.headersMs,
      bodyTimeoutMs: config.timeouts.bodyMs,
      dispatcher,
      secrets: [token, config.clientSecret],
      displayPath: url.pathname,
      streamSuccess: req.streamAnswer === true,
    });
  }

  return {
    config,
    get tokenRequestCount() {
      return tokens.tokenRequestCount;
    },
    async request<T>(req: ApiRequest): Promise<ApiResponse<T>> {
      const token = await tokens.getToken();
      let usedToken = token;
      let answer = await send(req, token);
      if (answer.status === 403 && isAuthorizationErrorBody(answer.body)) {
        usedToken = await tokens.replaceRejected(token);
        answer = await send(req, usedToken, true);
      }
      const ok = (answer.status >= 200 && answer.status < 300) || (req.acceptStatuses?.includes(answer.status) ?? false);
      if (!ok) {
        throw failureFromAnswer(answer, { method: req.method, path: new URL(config.baseUrl + req.path).pathname }, {
          secrets: [token, usedToken, config.clientSecret],
          jobBusyRetryDelayMs,
          conflictMeansBusy: req.startsJob === true,
          now: clock,
        });
      }
      return { status: answer.status, headers: answer.headers, body: answer.body as T };
    },
  };
}
