// Builds signed webhook deliveries as the Demand API sends them, and posts raw HTTP requests to a receiver.
import http from 'node:http';
import { randomUUID } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { signatureHeaderValue } from '../../webhooks/webhook-signature';

export const SECRET = 'whsec_test_0123456789abcdef';
export const OTHER_SECRET = 'whsec_test_rotated_fedcba9876543210';

export interface Envelope {
  id: string;
  specversion: '1.0';
  source: string;
  type: string;
  time: string;
  datacontenttype: 'application/json';
  data: unknown;
}

export function envelope(type: string, data: unknown, fields: Partial<Envelope> = {}): Envelope {
  return {
    id: randomUUID(),
    specversion: '1.0',
    source: '/v1/demand/accounts/1001/projects/p-1/target-groups/tg-77',
    type,
    time: '2026-03-01T10:00:00.000Z',
    datacontenttype: 'application/json',
    data,
    ...fields,
  };
}

/** A session record with the sandbox's field names. */
export function sessionRecord(fields: Record<string, unknown>): Record<string, unknown> {
  return {
    session_id: `sess-${randomUUID()}`,
    account_id: 1001,
    project_id: 'p-1',
    target_group_id: 'tg-77',
    supplier_id: 41,
    respondent_id: `resp-${randomUUID()}`,
    status: 'Complete',
    entry_date: '2026-03-01T09:50:00.000Z',
    respondent_update_date: '2026-03-01T10:00:00.000Z',
    respondent_last_date_change: '2026-03-01T10:00:00.000Z',
    quota_target_ids: ['prof-1/target-2'],
    cost_per_interview: { value: '2.50', currency_code: 'USD', currency_scale: 2 },
    ...fields,
  };
}

export interface Delivery {
  headers: Record<string, string>;
  body: Buffer;
  json: string;
}

export interface SignOptions {
  secrets?: string | string[];
  /** Unix seconds the signature claims. Default now. */
  t?: number;
  gzip?: boolean;
  /** Changes the JSON after signing. */
  tamper?: (json: string) => string;
}

export function signedDelivery(event: unknown, options: SignOptions = {}): Delivery {
  const json = typeof event === 'string' ? event : JSON.stringify(event);
  const t = options.t ?? Math.floor(Date.now() / 1000);
  const signature = signatureHeaderValue(options.secrets ?? SECRET, json, t);
  const sent = options.tamper ? options.tamper(json) : json;
  const headers: Record<string, string> = { 'content-type': 'application/json', 'svc-signature': signature };
  let body = Buffer.from(sent, 'utf8');
  if (options.gzip) {
    headers['content-encoding'] = 'gzip';
    body = gzipSync(body);
  }
  return { headers, body, json: sent };
}

export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

/** One request on its own connection; a reset after a complete response still resolves with it. */
export function post(url: string, delivery: { headers: Record<string, string>; body?: Buffer }, method = 'POST'): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers: { ...delivery.headers, connection: 'close' }, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(delivery.body);
  });
}

export function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

/** Polls `check` until it returns true (or fails after `timeoutMs`). */
export async function eventually(check: () => boolean, timeoutMs = 5000): Promise<void> {
  const started = Date.now();
  while (!check()) {
    if (Date.now() - started > timeoutMs) throw new Error('condition not reached in time');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
