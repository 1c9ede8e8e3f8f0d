// The HTTP endpoint the Demand API delivers webhooks to. Each delivery is checked in this order:
// path, method, content type and encoding, signature header, wire size, gzip (streamed with a byte
// counter), HMAC signature (constant time, before any JSON parsing), timestamp tolerance, JSON and
// CloudEvents envelope, then the event id against the dedupe store. A verified new event is put on a
// bounded queue and acknowledged at once (202); `onEvent` runs from the queue, retried with backoff.
// A full queue answers 503 with Retry-After so the sender retries later. Logs carry reasons, event
// ids and types only: never secrets, signatures, bodies or respondent data.

import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { TextDecoder } from 'node:util';
import { createGunzip } from 'node:zlib';
import type { WebhookEventSignal } from '../workflows/messages';
import { InMemoryDeliveryDedupe, type DeliveryDedupe } from './delivery-dedupe';
import { readCloudEvent, toWebhookEventSignal } from './webhook-events';
import { SIGNATURE_HEADER, parseSignatureHeader, signatureIsFresh, signatureMatches } from './webhook-signature';

export const REJECTION_REASONS = [
  'not_found',
  'method_not_allowed',
  'unsupported_content_type',
  'unsupported_content_encoding',
  'missing_signature',
  'malformed_signature',
  'bad_signature',
  'stale',
  'too_large',
  'bad_gzip',
  'bad_json',
  'not_cloudevent',
  'queue_full',
  'secrets_unavailable',
  'dedupe_unavailable',
  'shutting_down',
  'aborted',
  'internal_error',
] as const;
export type RejectionReason = (typeof REJECTION_REASONS)[number];

/** What the receiver writes to its log. No entry ever holds a secret, a signature, a body or respondent data. */
export interface ReceiverLogEntry {
  level: 'info' | 'warn' | 'error';
  message: string;
  reason?: RejectionReason;
  status?: number;
  eventId?: string;
  eventType?: string;
  attempt?: number;
  error?: string;
}

export interface WebhookReceiverOptions {
  /** Port to listen on. Default 0 (a free port). */
  port?: number;
  /** Interface to bind. Default 127.0.0.1. */
  host?: string;
  /** Request path deliveries are posted to. Default `/webhooks/demand`. */
  path?: string;
  /**
   * Name of the signature header. Default `Svc-Signature` (the spec); `Cint-Signature` for the real service
   * (the `cint` connection profile, STUDYFLOW_API_PROFILE).
   */
  signatureHeader?: string;
  /**
   * Every currently valid signing secret (several during a rotation), asked on each delivery; empty
   * strings are ignored. When a delivery matches none, it is asked once more with `fresh: true` (a
   * shared store may hold a webhook created since its last read). A throw or rejection answers 503.
   */
  secrets: (options?: { fresh?: boolean }) => string[] | Promise<string[]>;
  /** Deliveries signed further than this from now (past or future) are rejected as `stale`. Default 300 seconds. */
  toleranceSeconds?: number;
  /** Largest body on the wire (compressed or not), in bytes. Default 1 MiB; larger gives 413. */
  maxBodyBytes?: number;
  /** Largest body after gunzip, in bytes. Default 8 MiB; decompression stops as soon as it is passed (413). */
  maxDecompressedBytes?: number;
  /** Where accepted event ids are remembered. Default an in-memory store (24 h TTL, 100,000 ids). */
  dedupe?: DeliveryDedupe;
  /** Called once per accepted event, from the queue, after the 2xx was sent. A rejection is retried with backoff. */
  onEvent: (event: WebhookEventSignal, raw: { type: string; id: string }) => Promise<void>;
  /** Most events queued or being delivered at once; beyond it deliveries get 503 + Retry-After. Default 1000. */
  queueLimit?: number;
  /** Milliseconds since the epoch (signature tolerance, dedupe of the default store, missing event times). Default `Date.now`. */
  clock?: () => number;
  /** `onEvent` calls running at once. Default 4. */
  concurrency?: number;
  /** Attempts per event, the first included. Default 5. */
  deliveryAttempts?: number;
  /** Delay before the first retry; doubles each time up to `retryMaxDelayMs`. Default 200 ms. */
  retryBaseDelayMs?: number;
  /** Longest delay between attempts. Default 5000 ms. */
  retryMaxDelayMs?: number;
  /** Retry-After (seconds) on 503 answers. Default 5. */
  retryAfterSeconds?: number;
  /** How long close() waits for queued events to be delivered before giving up on them. Default 10,000 ms. */
  drainTimeoutMs?: number;
  /** Structured log sink. Default: no logging. */
  log?: (entry: ReceiverLogEntry) => void;
}

export interface ReceiverStats {
  /** Requests received (every path and method). */
  received: number;
  /** New events verified and queued. */
  accepted: number;
  /** Verified deliveries of an event id already accepted (answered 200, not processed again). */
  duplicates: number;
  /** Requests turned away, by reason. */
  rejected: Record<RejectionReason, number>;
  /** Events `onEvent` accepted. */
  delivered: number;
  /** Retries of `onEvent` after a failed attempt. */
  deliveryRetries: number;
  /** Events given up on: every attempt failed, or close() ran out of time. */
  deliveryFailures: number;
  /** Events whose change objects or sessions were cut to the signal size bound. */
  truncatedEvents: number;
  /** Events queued or being delivered now. */
  queueDepth: number;
}

export interface RunningWebhookReceiver {
  /** Full URL deliveries go to, e.g. `http://127.0.0.1:43121/webhooks/demand`. */
  url: string;
  /** Stops listening, waits (up to drainTimeoutMs) for queued events, then resolves. */
  close(): Promise<void>;
  stats(): ReceiverStats;
}

const ACCEPTED_MEDIA_TYPES = new Set(['application/json', 'application/cloudevents+json']);
const utf8 = new TextDecoder('utf-8', { fatal: true });

export async function startWebhookReceiver(options: WebhookReceiverOptions): Promise<RunningWebhookReceiver> {
  const path = options.path ?? '/webhooks/demand';
  const host = options.host ?? '127.0.0.1';
  const clock = options.clock ?? Date.now;
  const toleranceSeconds = options.toleranceSeconds ?? 300;
  const maxBodyBytes = options.maxBodyBytes ?? 1024 * 1024;
  const maxDecompressedBytes = options.maxDecompressedBytes ?? 8 * 1024 * 1024;
  const dedupe = options.dedupe ?? new InMemoryDeliveryDedupe({ clock });
  const retryAfter = String(options.retryAfterSeconds ?? 5);
  const log = (entry: ReceiverLogEntry): void => {
    try {
      options.log?.(entry);
    } catch {
      // A failing log sink must not fail a delivery.
    }
  };

  const counts = {
    received: 0,
    accepted: 0,
    duplicates: 0,
    rejected: Object.fromEntries(REJECTION_REASONS.map((reason) => [reason, 0])) as Record<RejectionReason, number>,
    truncatedEvents: 0,
  };
  const queue = new EventDeliveryQueue({
    onEvent: options.onEvent,
    limit: options.queueLimit ?? 1000,
    concurrency: options.concurrency ?? 4,
    attempts: options.deliveryAttempts ?? 5,
    baseDelayMs: options.retryBaseDelayMs ?? 200,
    maxDelayMs: options.retryMaxDelayMs ?? 5000,
    release: (id) => dedupe.release(id),
    log,
  });
  let closing = false;

  function respond(res: http.ServerResponse, status: number, body: Record<string, string>, headers: Record<string, string> = {}): void {
    if (res.headersSent || res.destroyed) return;
    const payload = JSON.stringify(body);
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(payload)), ...headers });
    res.end(payload);
  }

  function reject(res: http.ServerResponse, reason: RejectionReason, status: number, extra: { headers?: Record<string, string>; detail?: string } = {}): void {
    counts.rejected[reason] += 1;
    log({ level: status >= 500 ? 'error' : 'warn', message: 'webhook delivery rejected', reason, status });
    const body: Record<string, string> = { error: reason };
    if (extra.detail) body.detail = extra.detail;
    respond(res, status, body, extra.headers);
  }

  /** The secrets to verify with, or undefined when the source failed. */
  async function readSecrets(fresh: boolean): Promise<string[] | undefined> {
    try {
      const secrets = await options.secrets(fresh ? { fresh } : undefined);
      return secrets.filter((secret) => typeof secret === 'string' && secret.length > 0);
    } catch (error) {
      log({ level: 'error', message: 'webhook secrets could not be read', error: errorText(error) });
      return undefined;
    }
  }

  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    counts.received += 1;
    const pathname = (req.url ?? '/').split('?')[0];
    if (pathname !== path) return reject(res, 'not_found', 404);
    if (req.method !== 'POST') return reject(res, 'method_not_allowed', 405, { headers: { allow: 'POST' } });
    if (closing) return reject(res, 'shutting_down', 503, { headers: { 'retry-after': retryAfter, connection: 'close' } });
    const mediaType = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
    if (!ACCEPTED_MEDIA_TYPES.has(mediaType)) return reject(res, 'unsupported_content_type', 415);
    const encoding = (req.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
    const gzipped = encoding === 'gzip' || encoding === 'x-gzip';
    if (!gzipped && encoding !== 'identity') return reject(res, 'unsupported_content_encoding', 415);
    const header = parseSignatureHeader(req.headers[(options.signatureHeader ?? SIGNATURE_HEADER).toLowerCase()]);
    if (typeof header === 'string') return reject(res, header, 401);

    const declaredLength = Number(req.headers['content-length'] ?? 0);
    if (declaredLength > maxBodyBytes) return reject(res, 'too_large', 413, { headers: { connection: 'close' } });
    const wire = await readBodyBounded(req, maxBodyBytes);
    if (wire === 'aborted') {
      counts.rejected.aborted += 1;
      return;
    }
    if (wire === 'too_large') return reject(res, 'too_large', 413, { headers: { connection: 'close' } });
    let body = wire;
    if (gzipped) {
      const inflated = await inflateGzipBounded(wire, maxDecompressedBytes);
      if (inflated.outcome === 'too_large') return reject(res, 'too_large', 413);
      if (inflated.outcome === 'bad_gzip') return reject(res, 'bad_gzip', 400);
      body = inflated.body;
    }

    let secrets = await readSecrets(false);
    if (secrets !== undefined && secrets.length === 0) secrets = await readSecrets(true);
    if (secrets === undefined || secrets.length === 0) return reject(res, 'secrets_unavailable', 503, { headers: { 'retry-after': retryAfter } });
    if (!signatureMatches(header, secrets, body)) {
      const fresh = await readSecrets(true);
      if (fresh === undefined) return reject(res, 'secrets_unavailable', 503, { headers: { 'retry-after': retryAfter } });
      if (!signatureMatches(header, fresh, body)) return reject(res, 'bad_signature', 401);
    }
    if (!signatureIsFresh(header, clock(), toleranceSeconds)) return reject(res, 'stale', 401);

    // Verified: only now is the body parsed.
    let json: unknown;
    try {
      json = JSON.parse(utf8.decode(body));
    } catch {
      return reject(res, 'bad_json', 400);
    }
    const envelope = readCloudEvent(json);
    if ('problem' in envelope) return reject(res, 'not_cloudevent', 400, { detail: envelope.problem });
    const { signal, truncated } = toWebhookEventSignal(envelope, new Date(clock()).toISOString());

    let claimed: boolean;
    try {
      claimed = await dedupe.claim(envelope.id);
    } catch {
      return reject(res, 'dedupe_unavailable', 503, { headers: { 'retry-after': retryAfter } });
    }
    if (!claimed) {
      counts.duplicates += 1;
      log({ level: 'info', message: 'webhook delivery is a duplicate', eventId: envelope.id, eventType: envelope.type });
      return respond(res, 200, { status: 'duplicate' });
    }
    if (!queue.offer({ signal, raw: { type: envelope.type, id: envelope.id } })) {
      await Promise.resolve(dedupe.release(envelope.id)).catch(() => undefined);
      return reject(res, 'queue_full', 503, { headers: { 'retry-after': retryAfter } });
    }
    counts.accepted += 1;
    if (truncated > 0) {
      counts.truncatedEvents += 1;
      log({ level: 'warn', message: `webhook event carried ${truncated} more items than a signal holds; they were left out`, eventId: envelope.id, eventType: envelope.type });
    }
    respond(res, 202, { status: 'accepted' });
  }

  const server = http.createServer({ requestTimeout: 30_000, headersTimeout: 10_000, keepAliveTimeout: 5_000 }, (req, res) => {
    handle(req, res).catch((error: unknown) => {
      log({ level: 'error', message: 'webhook receiver failed on a request', error: errorText(error) });
      reject(res, 'internal_error', 500);
    });
  });
  await new Promise<void>((resolve, rejectListen) => {
    server.once('error', rejectListen);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', rejectListen);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const urlHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;

  let closed: Promise<void> | undefined;
  return {
    url: `http://${urlHost}:${address.port}${path}`,
    stats: () => ({
      received: counts.received,
      accepted: counts.accepted,
      duplicates: counts.duplicates,
      rejected: { ...counts.rejected },
      delivered: queue.delivered,
      deliveryRetries: queue.retries,
      deliveryFailures: queue.failures,
      truncatedEvents: counts.truncatedEvents,
      queueDepth: queue.depth,
    }),
    close: () => {
      closed ??= (async () => {
        closing = true;
        const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeIdleConnections();
        const force = setTimeout(() => server.closeAllConnections(), 2_000);
        force.unref();
        await stopped;
        clearTimeout(force);
        await queue.drain(options.drainTimeoutMs ?? 10_000);
      })();
      return closed;
    },
  };
}

interface QueuedEvent {
  signal: WebhookEventSignal;
  raw: { type: string; id: string };
}

/** Bounded FIFO of accepted events, delivered by a few workers with retries and backoff. */
class EventDeliveryQueue {
  private readonly waiting: QueuedEvent[] = [];
  private running = 0;
  private idleWaiters: Array<() => void> = [];
  private readonly abort = new AbortController();
  private readonly active = new Set<Promise<void>>();
  delivered = 0;
  retries = 0;
  failures = 0;

  constructor(
    private readonly settings: {
      onEvent: WebhookReceiverOptions['onEvent'];
      limit: number;
      concurrency: number;
      attempts: number;
      baseDelayMs: number;
      maxDelayMs: number;
      release: (id: string) => void | Promise<void>;
      log: (entry: ReceiverLogEntry) => void;
    },
  ) {}

  get depth(): number {
    return this.waiting.length + this.running;
  }

  /** False when the queue is full. */
  offer(item: QueuedEvent): boolean {
    if (this.depth >= this.settings.limit || this.abort.signal.aborted) return false;
    this.waiting.push(item);
    this.pump();
    return true;
  }

  /** Resolves when the queue is empty, or after `timeoutMs`, giving up on what is left. */
  async drain(timeoutMs: number): Promise<void> {
    if (this.depth > 0) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        new Promise<void>((resolve) => this.idleWaiters.push(resolve)),
        new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs))),
      ]);
      clearTimeout(timer);
    }
    this.abort.abort();
    const abandoned = this.waiting.splice(0);
    for (const item of abandoned) await this.giveUp(item, 'the receiver closed before the event was delivered');
    // Deliveries waiting for a retry wake up on the abort and give up; an onEvent still running is not waited for.
    let grace: NodeJS.Timeout | undefined;
    await Promise.race([Promise.allSettled([...this.active]), new Promise<void>((resolve) => (grace = setTimeout(resolve, 100)))]);
    clearTimeout(grace);
    this.notifyIfIdle();
  }

  private pump(): void {
    while (this.running < this.settings.concurrency && this.waiting.length > 0 && !this.abort.signal.aborted) {
      const item = this.waiting.shift() as QueuedEvent;
      this.running += 1;
      const delivery = this.deliver(item).finally(() => {
        this.running -= 1;
        this.active.delete(delivery);
        this.pump();
        this.notifyIfIdle();
      });
      this.active.add(delivery);
    }
  }

  private notifyIfIdle(): void {
    if (this.depth === 0) this.idleWaiters.splice(0).forEach((resolve) => resolve());
  }

  private async deliver(item: QueuedEvent): Promise<void> {
    const { attempts, baseDelayMs, maxDelayMs, log } = this.settings;
    for (let attempt = 1; ; attempt += 1) {
      try {
        await Promise.resolve().then(() => this.settings.onEvent(item.signal, item.raw));
        this.delivered += 1;
        return;
      } catch (error) {
        if (attempt >= attempts || this.abort.signal.aborted) {
          await this.giveUp(item, `onEvent failed ${attempt} time(s), last: ${errorText(error)}`);
          return;
        }
        this.retries += 1;
        log({ level: 'warn', message: 'webhook event delivery failed; retrying', eventId: item.raw.id, eventType: item.raw.type, attempt, error: errorText(error) });
        const delay = Math.min(maxDelayMs, baseDelayMs * 2 ** (attempt - 1));
        await sleep(delay * (0.75 + Math.random() * 0.5), this.abort.signal);
        if (this.abort.signal.aborted) {
          await this.giveUp(item, `the receiver closed while the event waited for a retry (last: ${errorText(error)})`);
          return;
        }
      }
    }
  }

  private async giveUp(item: QueuedEvent, why: string): Promise<void> {
    this.failures += 1;
    this.settings.log({ level: 'error', message: `webhook event dropped: ${why}`, eventId: item.raw.id, eventType: item.raw.type });
    // Forget the id so a redelivery of the event is accepted again.
    await Promise.resolve()
      .then(() => this.settings.release(item.raw.id))
      .catch(() => undefined);
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}

function errorText(error: unknown): string {
  const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}

/** Reads a request body, stopping (without buffering more) once it passes `limit` bytes. */
function readBodyBounded(req: http.IncomingMessage, limit: number): Promise<Buffer | 'too_large' | 'aborted'> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const settle = (result: Buffer | 'too_large' | 'aborted'): void => {
      if (settled) return;
      settled = true;
      resolve(result);
    };
    req.on('data', (chunk: Buffer) => {
      if (settled) return;
      size += chunk.length;
      if (size > limit) {
        chunks.length = 0;
        settle('too_large');
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => settle(Buffer.concat(chunks, size)));
    req.on('error', () => settle('aborted'));
    req.on('close', () => settle('aborted'));
  });
}

export type BoundedInflateResult =
  | { outcome: 'ok'; body: Buffer }
  | { outcome: 'too_large'; inflatedBytes: number }
  | { outcome: 'bad_gzip' };

/**
 * Gunzips `input` as a stream, counting output bytes, and stops the inflater as soon as the count
 * passes `maxBytes` (a gzip bomb costs at most `maxBytes` plus one chunk of memory and work).
 */
export function inflateGzipBounded(input: Buffer, maxBytes: number): Promise<BoundedInflateResult> {
  return new Promise((resolve) => {
    const gunzip = createGunzip({ chunkSize: 64 * 1024 });
    const chunks: Buffer[] = [];
    let total = 0;
    let settled = false;
    const settle = (result: BoundedInflateResult): void => {
      if (settled) return;
      settled = true;
      resolve(result);
    };
    gunzip.on('data', (chunk: Buffer) => {
      if (settled) return;
      total += chunk.length;
      if (total > maxBytes) {
        chunks.length = 0;
        settle({ outcome: 'too_large', inflatedBytes: total });
        gunzip.destroy();
        return;
      }
      chunks.push(chunk);
    });
    gunzip.on('error', () => settle({ outcome: 'bad_gzip' }));
    gunzip.on('end', () => settle({ outcome: 'ok', body: Buffer.concat(chunks, total) }));
    gunzip.end(input);
  });
}
