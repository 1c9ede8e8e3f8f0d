// The error every handler throws. The server turns it into `{id, object, detail, invalid_params?}`
// (or the raw body for the spec's token-error shapes) and never leaks a stack trace.
import { randomUUID } from 'node:crypto';

export interface InvalidParam {
  name: string;
  reason: string;
}

export interface ErrorBody {
  id: string;
  object: string;
  detail: string;
  invalid_params?: InvalidParam[];
}

export class ApiError extends Error {
  readonly status: number;
  readonly object: string;
  readonly invalidParams: InvalidParam[] | undefined;
  readonly headers: Record<string, string>;
  /** A body that replaces the standard error body (the spec's 401 token shape). */
  readonly rawBody: unknown;

  constructor(
    status: number,
    object: string,
    detail: string,
    opts: { invalidParams?: InvalidParam[]; headers?: Record<string, string>; rawBody?: unknown } = {},
  ) {
    super(detail);
    this.name = 'ApiError';
    this.status = status;
    this.object = object;
    this.invalidParams = opts.invalidParams && opts.invalidParams.length > 0 ? opts.invalidParams : undefined;
    this.headers = opts.headers ?? {};
    this.rawBody = opts.rawBody;
  }

  toBody(): unknown {
    if (this.rawBody !== undefined) return this.rawBody;
    const body: ErrorBody = { id: randomUUID(), object: this.object, detail: this.message };
    if (this.invalidParams) body.invalid_params = this.invalidParams;
    return body;
  }
}

export const badRequest = (detail: string, invalidParams?: InvalidParam[]) =>
  new ApiError(400, 'bad_request_error', detail, { invalidParams });
export const unauthorized = (detail = 'Missing or invalid bearer token.') => new ApiError(401, 'unauthorized', detail);
export const forbidden = (object: string, detail: string) => new ApiError(403, object, detail);
export const notFound = (detail: string) => new ApiError(404, 'not_found_error', detail);
export const conflict = (object: string, detail: string) => new ApiError(409, object, detail);
export const unprocessable = (object: string, detail: string, invalidParams?: InvalidParam[]) =>
  new ApiError(422, object, detail, { invalidParams });
export const payloadTooLarge = (limitBytes: number) =>
  new ApiError(413, 'content_too_large_error', `The request body exceeds ${limitBytes} bytes.`);
export const unsupportedMediaType = (expected: string) =>
  new ApiError(415, 'unsupported_media_type_error', `The request body must be ${expected}.`);
