// One HTTP request/response with undici: sends, reads the whole (small) answer, parses JSON, maps transport errors.
import { PassThrough, type Readable } from 'node:stream';
import { ApplicationFailure } from '@temporalio/common';
import { request, type Dispatcher } from 'undici';
import { failureFromTransportError, type ApiAnswer } from './errors';

export interface ExchangeRequest {
  url: URL;
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  headers: Record<string, string>;
  body?: string | Readable;
  signal?: AbortSignal;
  headersTimeoutMs: number;
  bodyTimeoutMs: number;
  dispatcher: Dispatcher;
  /** Scrubbed from transport error messages. */
  secrets: readonly string[];
  /** Path shown in failures (no query string). */
  displayPath: string;
  /** A 2xx answer's body is returned unread (a Readable); any other status is read as usual. */
  streamSuccess?: boolean;
}

/** Largest answer body the client reads; anything bigger is a protocol problem, not data. */
export const MAX_ANSWER_BYTES = 16 * 1024 * 1024;

export async function exchange(req: ExchangeRequest): Promise<ApiAnswer> {
  const call = { method: req.method, path: req.displayPath };
  try {
    const res = await request(req.url, {
      method: req.method,
      headers: req.headers,
      body: req.body,
      signal: req.signal,
      headersTimeout: req.headersTimeoutMs,
      bodyTimeout: req.bodyTimeoutMs,
      dispatcher: req.dispatcher,
    });
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(res.headers)) {
      if (value !== undefined) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
    }
    if (req.streamSuccess && res.statusCode >= 200 && res.statusCode < 300) {
      return { status: res.statusCode, headers, body: streamOf(res.body, call, req.secrets, req.signal) };
    }
    const text = await readText(res.body);
    return { status: res.statusCode, headers, body: parseBody(text, headers['content-type']) };
  } catch (error) {
    if (req.signal?.aborted) throw req.signal.reason ?? error;
    // A streamed request body that refused to go on (bad input, or a one-shot source sent twice) says why itself.
    if (error instanceof ApplicationFailure) throw error;
    throw failureFromTransportError(error, call, { secrets: req.secrets });
  }
}

/** The answer's body as a Readable whose transport errors are the client's failures, like a read answer's (a cancellation stays its reason). */
function streamOf(body: Dispatcher.ResponseData['body'], call: { method: string; path: string }, secrets: readonly string[], signal?: AbortSignal): Readable {
  const out = new PassThrough();
  body.on('error', (error: unknown) => out.destroy(signal?.aborted ? ((signal.reason as Error | undefined) ?? (error as Error)) : failureFromTransportError(error, call, { secrets })));
  out.on('close', () => {
    if (!body.destroyed) body.destroy();
  });
  body.pipe(out);
  return out;
}

async function readText(body: Dispatcher.ResponseData['body']): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);
    size += buf.length;
    if (size > MAX_ANSWER_BYTES) {
      body.destroy();
      throw Object.assign(new Error(`answer body larger than ${MAX_ANSWER_BYTES} bytes`), { code: 'ANSWER_TOO_LARGE' });
    }
    chunks.push(buf);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function parseBody(text: string, contentType: string | undefined): unknown {
  if (text === '') return undefined;
  const looksJson = /json/i.test(contentType ?? '') || /^\s*[[{]/.test(text);
  if (!looksJson) return text;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
