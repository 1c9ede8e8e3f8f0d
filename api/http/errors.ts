// The one place where Demand API answers and transport errors become Temporal ApplicationFailures.
import { ApplicationFailure } from '@temporalio/common';

/** `type` values of failures that are not named after an API error `object`. */
export const ApiFailureType = {
  /** 429; retryable, `nextRetryDelay` = Retry-After. */
  rateLimited: 'rate_limited',
  /** 5xx; retryable. */
  serverError: 'server_error',
  /** Connection refused/reset, socket closed before the answer; retryable. */
  networkError: 'network_error',
  /** Connect, headers or body timeout, or 408; retryable. */
  requestTimeout: 'request_timeout',
  /** 401 (wrong client credentials, or missing/invalid bearer); non-retryable. */
  unauthorized: 'unauthorized',
  /** 403 authorization_error that survived one token refresh and replay; non-retryable. */
  authorizationError: 'authorization_error',
  /** 412 (reference: precondition_failed_error) stale ETag; non-retryable, the caller re-reads and decides again. */
  preconditionFailed: 'precondition_failed',
  /**
   * 409 conflict_error on an operation where the reference says it means "another job is running for this
   * target group" (the upload, remove-all and launch jobs); retryable after a wait.
   */
  jobAlreadyRunning: 'job_already_running',
  /** A success status with a body the client cannot use; retryable (a proxy may have garbled it). */
  unexpectedResponse: 'unexpected_response',
  /** An answer whose shape is not the reference's (api/wire/read-answer.ts); non-retryable. */
  wireMismatch: 'wire_mismatch',
  /** An activity was called with input it cannot act on; non-retryable. */
  invalidActivityInput: 'invalid_activity_input',
  /** Two or more resources carry the natural key an ensure looked for; non-retryable. */
  ambiguousNaturalKey: 'ambiguous_natural_key',
  /** The ID list reference is not in the blob store; non-retryable. */
  blobNotFound: 'blob_not_found',
  /** The stored ID list does not match its reference (digest or count); non-retryable. */
  blobCorrupt: 'blob_corrupt',
} as const;

/** The fixed failure types above, as a type workflows can import (`import type`). */
export type ApiFailureTypeName = (typeof ApiFailureType)[keyof typeof ApiFailureType];

/** One entry of an API error's `invalid_params`. */
export interface InvalidParam {
  name: string;
  reason: string;
}

/** `details[0]` of every failure raised by the Demand API client. */
export interface ApiFailureDetails {
  /** HTTP status, absent for transport errors. */
  status?: number;
  /** The API error `object` (e.g. `not_found`), or for 401 the body's `message`. */
  object?: string;
  detail?: string;
  invalid_params?: InvalidParam[];
  /** The API error `id`, for support requests. */
  error_id?: string;
  /** HTTP method and path (no query) of the call that failed. */
  method: string;
  path: string;
  /** Transport error code (e.g. `ECONNREFUSED`, `UND_ERR_HEADERS_TIMEOUT`). */
  code?: string;
  /** Milliseconds the server asked to wait (Retry-After), when given. */
  retry_after_ms?: number;
}

/** What the client saw: status, lower-cased headers and the parsed body (JSON or text). */
export interface ApiAnswer {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

export interface ApiCall {
  method: string;
  path: string;
}

export interface ClassifyOptions {
  /** Strings that must never appear in a message (bearer token, client secret). */
  secrets?: readonly string[];
  /** Wait before retrying a 409 job_already_running that carries no Retry-After. */
  jobBusyRetryDelayMs?: number;
  /** The call starts a job: a 409 conflict_error means another job is running, and is retried after a wait. */
  conflictMeansBusy?: boolean;
  /** Clock for HTTP-date Retry-After values. */
  now?: () => number;
}

const MAX_DETAIL_CHARS = 500;
export const DEFAULT_JOB_BUSY_RETRY_DELAY_MS = 10_000;

/** True when the body has the spec's expired-token shape `{object: "authorization_error"}`. */
export function isAuthorizationErrorBody(body: unknown): boolean {
  return isRecord(body) && body.object === 'authorization_error';
}

/** Turns a non-success answer into the ApplicationFailure Temporal should see. */
export function failureFromAnswer(answer: ApiAnswer, call: ApiCall, options: ClassifyOptions = {}): ApplicationFailure {
  const { status } = answer;
  const parsed = parseErrorBody(answer.body);
  const retryAfterMs = parseRetryAfter(answer.headers['retry-after'], options.now ?? Date.now);
  const details: ApiFailureDetails = { status, method: call.method, path: call.path, ...parsed };
  if (retryAfterMs !== undefined) details.retry_after_ms = retryAfterMs;
  const clean = (d: ApiFailureDetails): ApiFailureDetails => redactDetails(d, options.secrets ?? []);

  if (status === 429) {
    return make(call, answer, clean(details), ApiFailureType.rateLimited, false, retryAfterMs);
  }
  if (status >= 500) {
    return make(call, answer, clean(details), ApiFailureType.serverError, false, retryAfterMs);
  }
  if (status === 408) {
    return make(call, answer, clean(details), ApiFailureType.requestTimeout, false, retryAfterMs);
  }
  if (status === 401) {
    return make(call, answer, clean(details), ApiFailureType.unauthorized, true, undefined);
  }
  if (status === 403 && parsed.object === 'authorization_error') {
    return make(call, answer, clean(details), ApiFailureType.authorizationError, true, undefined);
  }
  if (status === 409 && (parsed.object === 'job_already_running' || (options.conflictMeansBusy === true && parsed.object === 'conflict_error'))) {
    const wait = retryAfterMs ?? options.jobBusyRetryDelayMs ?? DEFAULT_JOB_BUSY_RETRY_DELAY_MS;
    return make(call, answer, clean(details), ApiFailureType.jobAlreadyRunning, false, wait);
  }
  if (status === 412) {
    return make(call, answer, clean(details), ApiFailureType.preconditionFailed, true, undefined);
  }
  if (status >= 400) {
    return make(call, answer, clean(details), parsed.object ?? fallbackType(status), true, undefined);
  }
  return make(call, answer, clean(details), ApiFailureType.unexpectedResponse, true, undefined);
}

/** A success status whose body is unusable (not JSON, missing `id`, ...). */
export function unexpectedResponseFailure(call: ApiCall, status: number, problem: string): ApplicationFailure {
  return ApplicationFailure.create({
    message: `Demand API ${call.method} ${call.path} answered ${status} with an unusable body: ${problem}`,
    type: ApiFailureType.unexpectedResponse,
    nonRetryable: false,
    details: [{ status, method: call.method, path: call.path, detail: problem } satisfies ApiFailureDetails],
  });
}

const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'ETIMEDOUT']);

/** Turns a transport error (no HTTP answer) into a retryable failure. Secrets are scrubbed from the message. */
export function failureFromTransportError(error: unknown, call: ApiCall, options: ClassifyOptions = {}): ApplicationFailure {
  const code = errorCode(error);
  const timeout = code !== undefined && TIMEOUT_CODES.has(code);
  const raw = error instanceof Error ? error.message : String(error);
  const message = redactText(raw, options.secrets ?? []).slice(0, MAX_DETAIL_CHARS);
  const details: ApiFailureDetails = { method: call.method, path: call.path, detail: message };
  if (code) details.code = code;
  return ApplicationFailure.create({
    message: `Demand API ${call.method} ${call.path} failed without an answer: ${message}${code ? ` (${code})` : ''}`,
    type: timeout ? ApiFailureType.requestTimeout : ApiFailureType.networkError,
    nonRetryable: false,
    details: [details],
  });
}

/** A failure for activity input the activity cannot act on (bad ids, wrong shapes). */
export function invalidInputFailure(activity: string, problem: string): ApplicationFailure {
  return ApplicationFailure.create({
    message: `${activity}: ${problem}`,
    type: ApiFailureType.invalidActivityInput,
    nonRetryable: true,
    details: [{ activity, problem }],
  });
}

/** An ensure found several resources with the natural key and cannot tell which one is meant. */
export function ambiguousNaturalKeyFailure(what: string, ids: string[]): ApplicationFailure {
  return ApplicationFailure.create({
    message: `More than one ${what} exists (ids ${ids.join(', ')}); cannot tell which one is meant`,
    type: ApiFailureType.ambiguousNaturalKey,
    nonRetryable: true,
    details: [{ ids }],
  });
}

/** The blob store does not hold the referenced ID list. */
export function blobNotFoundFailure(activity: string, ref: string): ApplicationFailure {
  return ApplicationFailure.create({
    message: `${activity}: the ID list ${ref} is not in the blob store`,
    type: ApiFailureType.blobNotFound,
    nonRetryable: true,
    details: [{ ref }],
  });
}

/** The stored ID list could not be read or does not match its reference. */
export function blobCorruptFailure(activity: string, ref: string, problem: string): ApplicationFailure {
  return ApplicationFailure.create({
    message: `${activity}: ${problem}`,
    type: ApiFailureType.blobCorrupt,
    nonRetryable: true,
    details: [{ ref }],
  });
}

/** `details[0]` of a failure raised by this client, if it is one. */
export function apiFailureDetails(error: unknown): ApiFailureDetails | undefined {
  if (!(error instanceof ApplicationFailure)) return undefined;
  const first = error.details?.[0];
  return isRecord(first) && typeof first.method === 'string' ? (first as unknown as ApiFailureDetails) : undefined;
}

/** True when `error` is an ApplicationFailure of the given type. */
export function isFailureOfType(error: unknown, type: string): error is ApplicationFailure {
  return error instanceof ApplicationFailure && error.type === type;
}

/**
 * Retry-After as milliseconds: delta-seconds or an HTTP-date. Undefined when absent or unparseable;
 * never negative.
 */
export function parseRetryAfter(value: string | undefined, now: () => number = Date.now): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  if (/^\d+\.\d+$/.test(text)) return Math.ceil(Number(text) * 1000);
  const date = Date.parse(text);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now());
}

/** Replaces every occurrence of a secret, and anything shaped like a bearer credential, with `[redacted]`. */
export function redactText(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) {
    if (secret && secret.length >= 4) out = out.split(secret).join('[redacted]');
  }
  return out.replace(/\b(Bearer)\s+[A-Za-z0-9\-._~+/]+=*/gi, '$1 [redacted]');
}

function make(
  call: ApiCall,
  answer: ApiAnswer,
  details: ApiFailureDetails,
  type: string,
  nonRetryable: boolean,
  nextRetryDelayMs: number | undefined,
): ApplicationFailure {
  const what = details.object ? ` ${details.object}` : '';
  const detail = details.detail ? `: ${details.detail}` : '';
  const params = details.invalid_params?.length
    ? ` (${details.invalid_params.map((p) => `${p.name}: ${p.reason}`).join('; ')})`
    : '';
  return ApplicationFailure.create({
    message: `Demand API ${call.method} ${call.path} answered ${answer.status}${what}${detail}${params}`,
    type,
    nonRetryable,
    details: [details],
    nextRetryDelay: nonRetryable || nextRetryDelayMs === undefined ? undefined : nextRetryDelayMs,
  });
}

function fallbackType(status: number): string {
  switch (status) {
    case 400: return 'bad_request';
    case 403: return 'forbidden';
    case 404: return 'not_found';
    case 409: return 'conflict';
    case 413: return 'payload_too_large';
    case 422: return 'unprocessable_entity';
    case 428: return 'precondition_required';
    default: return `http_${status}`;
  }
}

/** Reads the spec's two error shapes: `{id, object, detail, invalid_params?}` and `{code, message}`. */
function parseErrorBody(body: unknown): Pick<ApiFailureDetails, 'object' | 'detail' | 'invalid_params' | 'error_id'> {
  if (typeof body === 'string') return body.trim() ? { detail: body.trim().slice(0, MAX_DETAIL_CHARS) } : {};
  if (!isRecord(body)) return {};
  const out: Pick<ApiFailureDetails, 'object' | 'detail' | 'invalid_params' | 'error_id'> = {};
  if (typeof body.object === 'string' && body.object) out.object = body.object;
  else if (typeof body.message === 'string' && body.message && typeof body.code === 'number') out.object = body.message;
  if (typeof body.detail === 'string') out.detail = body.detail.slice(0, MAX_DETAIL_CHARS);
  if (typeof body.id === 'string') out.error_id = body.id;
  if (Array.isArray(body.invalid_params)) {
    out.invalid_params = body.invalid_params
      .filter(isRecord)
      .map((p) => ({ name: String(p.name ?? ''), reason: String(p.reason ?? '') }));
  }
  return out;
}

function redactDetails(details: ApiFailureDetails, secrets: readonly string[]): ApiFailureDetails {
  const out = { ...details };
  if (out.detail) out.detail = redactText(out.detail, secrets);
  if (out.invalid_params) out.invalid_params = out.invalid_params.map((p) => ({ name: p.name, reason: redactText(p.reason, secrets) }));
  return out;
}

function errorCode(error: unknown, depth = 0): string | undefined {
  if (!isRecord(error) && !(error instanceof Error)) return undefined;
  const record = error as Record<string, unknown>;
  if (typeof record.code === 'string') return record.code;
  return depth < 4 ? errorCode(record.cause, depth + 1) : undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
