import { createHash, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Payload } from '@temporalio/common';
import proto from '@temporalio/proto';
import type { CodecKeys } from './codec-keys';
import { AesGcmPayloadCodec, PayloadDecryptionError } from './payload-codec';

/** The Temporal UI origins of `studyflow dev` (UI on port 8233). */
export const DEFAULT_CODEC_UI_ORIGINS = ['http://127.0.0.1:8233', 'http://localhost:8233'];
/** Default request body cap. */
export const DEFAULT_CODEC_MAX_BODY_BYTES = 8 * 1024 * 1024;

const ALLOWED_HEADERS = 'Authorization, Content-Type, X-Namespace';
const BASE64_PATTERN = /^[A-Za-z0-9+/_-]*={0,2}$/;
// @temporalio/proto is CommonJS: Node's ESM loader exposes it as a default export only.
const ProtoPayload = proto.temporal.api.common.v1.Payload;

/** Options of the codec server the Temporal UI (`--ui-codec-endpoint`) and CLI (`--codec-endpoint`) call. */
export interface CodecServerOptions {
  /** The keys to decode with (any held key) and encode with (the active key). */
  keys: CodecKeys;
  /** Every request must carry `Authorization: Bearer <authToken>`; compared in constant time. */
  authToken: string;
  /** Browser origins allowed by CORS (default the dev UI: http://127.0.0.1:8233 and http://localhost:8233). */
  allowedOrigins?: string[];
  /** TCP port; 0 picks a free one (default 0). */
  port?: number;
  /** Interface to bind (default 127.0.0.1). */
  host?: string;
  /** Largest accepted request body in bytes; larger ones get 413 (default 8 MiB). */
  maxBodyBytes?: number;
  /**
   * A capability path for a local Temporal UI, which cannot send a bearer token: requests to
   * `/<pathSecret>/decode` and `/<pathSecret>/encode` need no Authorization header. Only for the
   * loopback dev stack (`studyflow dev`); the secret is random and printed to its operator only.
   */
  pathSecret?: string;
}

export interface RunningCodecServer {
  /** Base URL, e.g. `http://127.0.0.1:8081`; POST `<url>/decode` and `<url>/encode`. */
  url: string;
  close(): Promise<void>;
}

class HttpProblem extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Serves Temporal's remote codec protocol: POST `…/encode` and `…/decode` with the proto3 JSON of
 * Payloads (`{payloads: [{metadata: {k: base64}, data: base64}]}`), answered in the same shape. Only
 * the last path segment counts, so `/{namespace}/decode` works too. Bearer-token auth, CORS for the
 * configured UI origins only, a body cap, JSON errors.
 */
export async function startCodecServer(options: CodecServerOptions): Promise<RunningCodecServer> {
  if (!options.authToken) throw new Error('codec server: an auth token is required');
  const codec = new AesGcmPayloadCodec(options.keys);
  const allowedOrigins = new Set(options.allowedOrigins ?? DEFAULT_CODEC_UI_ORIGINS);
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_CODEC_MAX_BODY_BYTES;
  const expectedDigest = sha256(options.authToken);

  const server = http.createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      // Discard what the client still sends so it reads the answer, but not for ever.
      req.resume();
      res.once('finish', () => {
        if (!req.complete) setTimeout(() => req.destroy(), 2000).unref();
      });
      const problem = error instanceof HttpProblem ? error : new HttpProblem(500, 'internal_error', 'the codec server failed');
      sendJson(res, problem.status, { error: problem.code, detail: problem.message });
    });
  });

  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('Vary', 'Origin');
    const origin = req.headers.origin;
    if (origin !== undefined) {
      if (!allowedOrigins.has(origin)) throw new HttpProblem(403, 'origin_not_allowed', 'this origin may not call the codec server');
      res.setHeader('Access-Control-Allow-Origin', origin);
      res.setHeader('Access-Control-Allow-Credentials', 'true');
    }
    const operation = operationOf(req.url ?? '/');
    if (!operation) throw new HttpProblem(404, 'not_found', 'the codec server serves POST /encode and POST /decode');
    if (req.method === 'OPTIONS') {
      res.setHeader('Access-Control-Allow-Methods', 'POST, OPTIONS');
      res.setHeader('Access-Control-Allow-Headers', ALLOWED_HEADERS);
      res.setHeader('Access-Control-Max-Age', '600');
      res.writeHead(204).end();
      return;
    }
    if (req.method !== 'POST') {
      res.setHeader('Allow', 'POST, OPTIONS');
      throw new HttpProblem(405, 'method_not_allowed', `${operation} takes POST`);
    }
    if (!authorized(req.headers.authorization) && !capabilityPath(req.url ?? '/')) {
      res.setHeader('WWW-Authenticate', 'Bearer');
      throw new HttpProblem(401, 'unauthorized', 'a valid "Authorization: Bearer <token>" header is required');
    }
    const payloads = parsePayloads(await readBody(req, maxBodyBytes));
    let result: Payload[];
    try {
      result = operation === 'decode' ? await codec.decode(payloads) : await codec.encode(payloads);
    } catch (error) {
      if (error instanceof PayloadDecryptionError) throw new HttpProblem(400, error.code, error.message);
      throw error;
    }
    sendJson(res, 200, { payloads: result.map(payloadToJson) });
  }

  function capabilityPath(url: string): boolean {
    if (!options.pathSecret) return false;
    const first = url.split('?')[0].split('/').filter(Boolean)[0] ?? '';
    return timingSafeEqual(sha256(first), sha256(options.pathSecret));
  }

  function authorized(header: string | undefined): boolean {
    const token = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '')?.[1];
    return token !== undefined && timingSafeEqual(sha256(token), expectedDigest);
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  let closing: Promise<void> | undefined;
  return {
    url: `http://${host}:${address.port}`,
    close() {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closing;
    },
  };
}

function operationOf(url: string): 'encode' | 'decode' | undefined {
  const pathname = url.split('?')[0].replace(/\/+$/, '');
  const last = pathname.slice(pathname.lastIndexOf('/') + 1);
  return last === 'encode' || last === 'decode' ? last : undefined;
}

async function readBody(req: http.IncomingMessage, maxBytes: number): Promise<Buffer> {
  const tooLarge = () => new HttpProblem(413, 'body_too_large', `request bodies are limited to ${maxBytes} bytes`);
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) {
    req.resume();
    throw tooLarge();
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes) {
      req.resume();
      throw tooLarge();
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

function parsePayloads(body: Buffer): Payload[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    throw new HttpProblem(400, 'invalid_json', 'the body is not valid JSON');
  }
  if (!isRecord(parsed) || !Array.isArray(parsed.payloads)) {
    throw new HttpProblem(400, 'invalid_payloads', 'expected {"payloads": [{"metadata": {…}, "data": "<base64>"}]}');
  }
  return parsed.payloads.map((item: unknown, index: number) => payloadFromJson(item, `payloads[${index}]`));
}

function payloadFromJson(item: unknown, where: string): Payload {
  if (!isRecord(item)) throw new HttpProblem(400, 'invalid_payloads', `${where} is not an object`);
  if (item.metadata !== undefined && item.metadata !== null && !isRecord(item.metadata)) {
    throw new HttpProblem(400, 'invalid_payloads', `${where}.metadata is not an object`);
  }
  const metadata = Object.fromEntries(
    Object.entries(isRecord(item.metadata) ? item.metadata : {}).map(([key, value]) => [key, base64Field(value, `${where}.metadata.${key}`)]),
  );
  const data = item.data === undefined || item.data === null ? new Uint8Array() : base64Field(item.data, `${where}.data`);
  const payload: Payload = { metadata, data };
  if (Array.isArray(item.externalPayloads) && item.externalPayloads.length > 0) {
    try {
      payload.externalPayloads = ProtoPayload.fromObject({ externalPayloads: item.externalPayloads }).externalPayloads;
    } catch {
      throw new HttpProblem(400, 'invalid_payloads', `${where}.externalPayloads is malformed`);
    }
  }
  return payload;
}

function base64Field(value: unknown, where: string): Uint8Array {
  if (typeof value !== 'string' || !BASE64_PATTERN.test(value)) throw new HttpProblem(400, 'invalid_payloads', `${where} is not base64`);
  return Buffer.from(value, 'base64');
}

function payloadToJson(payload: Payload): Record<string, unknown> {
  const metadata = Object.fromEntries(Object.entries(payload.metadata ?? {}).map(([key, value]) => [key, Buffer.from(value).toString('base64')]));
  const json: Record<string, unknown> = { metadata, data: Buffer.from(payload.data ?? new Uint8Array()).toString('base64') };
  if (payload.externalPayloads?.length) {
    json.externalPayloads = ProtoPayload.toObject(ProtoPayload.create({ externalPayloads: payload.externalPayloads }), {
      longs: String,
      bytes: String,
    }).externalPayloads;
  }
  return json;
}

function sendJson(res: http.ServerResponse, status: number, body: unknown): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const text = JSON.stringify(body);
  if (status >= 400) res.setHeader('Connection', 'close');
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) }).end(text);
}

function sha256(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
