// Delivers webhook events: one delivery per (webhook, event), attempted at once and retried with
// exponential backoff (base * 2^(attempt-1), capped) after a non-2xx answer or a network error, up to
// maxAttempts. Each attempt reads the webhook's current url, secret and compression (a compression
// toggle applies to queued retries too; a deleted webhook cancels its pending deliveries), signs the
// uncompressed JSON and gzips the body when compression is gzip. Delivery records (without payloads
// once settled) live in a plain-JSON container so /_sandbox/state can show them.

import { gzipSync } from 'node:zlib';
import type { CloudEvent } from './cloud-event';
import { SIGNATURE_HEADER, signatureHeaderValue } from './webhook-signature';
import type { WebhookCompression } from './webhook-subscription';

export interface WebhookEndpoint {
  id: string;
  url: string;
  secret: string;
  compression: WebhookCompression;
}

export interface DeliveryAttempt {
  attempt: number;
  at: string;
  status_code: number | null;
  error: string | null;
  content_encoding: 'gzip' | null;
}

export type DeliveryStatus = 'pending' | 'delivered' | 'failed' | 'cancelled';

export interface DeliveryRecord {
  id: string;
  webhook_id: string;
  event_id: string;
  event_type: string;
  status: DeliveryStatus;
  attempts: DeliveryAttempt[];
  next_attempt_at: string | null;
  created_at: string;
  /** Uncompressed JSON of the event; dropped once the delivery settles. */
  payload: string | null;
}

/** Sends one HTTP POST; resolves with the status code, rejects on a network error or timeout. */
export type DeliveryTransport = (url: string, headers: Record<string, string>, body: Buffer) => Promise<number>;

export interface DeliveryEngineOptions {
  transport: DeliveryTransport;
  /** The current webhook by id, or undefined once deleted. */
  findWebhook(webhookId: string): WebhookEndpoint | undefined;
  /** The container records are kept in (re-read on every use, so a state reset swaps it). */
  records(): Record<string, DeliveryRecord>;
  /** Milliseconds since the epoch for timestamps and signatures. */
  now(): number;
  newId(): string;
  /** The signature header's name (the dialect's: Svc-Signature or Cint-Signature); default Svc-Signature. */
  signatureHeader?: string;
  /** Called after records change outside a request (persist state). */
  onChange?(): void;
  /** Attempts per delivery, first one included (default 6). */
  maxAttempts?: number;
  /** Delay before the first retry (default 1000 ms). */
  baseDelayMs?: number;
  /** Longest delay between attempts (default 60000 ms). */
  maxDelayMs?: number;
  /** Timer used for retries (default setTimeout, unref'd). */
  schedule?(run: () => void, delayMs: number): { cancel(): void };
}

export const DEFAULT_MAX_ATTEMPTS = 6;
export const DEFAULT_BASE_DELAY_MS = 1000;
export const DEFAULT_MAX_DELAY_MS = 60_000;

/** Delay before attempt number `nextAttempt` (2, 3, …). */
export const retryDelayMs = (nextAttempt: number, baseDelayMs: number, maxDelayMs: number): number =>
  Math.min(maxDelayMs, baseDelayMs * 2 ** (nextAttempt - 2));

const defaultSchedule = (run: () => void, delayMs: number) => {
  const timer = setTimeout(run, delayMs);
  timer.unref();
  return { cancel: () => clearTimeout(timer) };
};

export class WebhookDeliveryEngine {
  private readonly timers = new Map<string, { cancel(): void }>();
  private readonly inFlight = new Set<Promise<void>>();
  private stopped = false;
  private readonly maxAttempts: number;
  private readonly baseDelayMs: number;
  private readonly maxDelayMs: number;
  private readonly schedule: NonNullable<DeliveryEngineOptions['schedule']>;

  constructor(private readonly options: DeliveryEngineOptions) {
    this.maxAttempts = options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS;
    this.baseDelayMs = options.baseDelayMs ?? DEFAULT_BASE_DELAY_MS;
    this.maxDelayMs = options.maxDelayMs ?? DEFAULT_MAX_DELAY_MS;
    this.schedule = options.schedule ?? defaultSchedule;
  }

  /** Queues `event` for `webhookId` and starts the first attempt. */
  enqueue(webhookId: string, event: CloudEvent): DeliveryRecord {
    const record: DeliveryRecord = {
      id: this.options.newId(),
      webhook_id: webhookId,
      event_id: event.id,
      event_type: event.type,
      status: 'pending',
      attempts: [],
      next_attempt_at: new Date(this.options.now()).toISOString(),
      created_at: new Date(this.options.now()).toISOString(),
      payload: JSON.stringify(event),
    };
    this.options.records()[record.id] = record;
    this.arm(record.id, 0);
    return record;
  }

  /** Re-arms every pending delivery (after a restart from a state file). */
  resumePending(): void {
    const now = this.options.now();
    for (const record of Object.values(this.options.records())) {
      if (record.status !== 'pending' || this.timers.has(record.id)) continue;
      this.arm(record.id, record.next_attempt_at ? Math.max(0, Date.parse(record.next_attempt_at) - now) : 0);
    }
  }

  /** Resolves when no attempt is running (scheduled retries are not waited for). */
  async idle(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }

  /** Stops all timers; pending deliveries stay pending. */
  stop(): void {
    this.stopped = true;
    for (const timer of this.timers.values()) timer.cancel();
    this.timers.clear();
  }

  /** Forgets timers of records no longer in the container (after a state reset). */
  forgetAll(): void {
    for (const timer of this.timers.values()) timer.cancel();
    this.timers.clear();
  }

  private arm(recordId: string, delayMs: number): void {
    if (this.stopped) return;
    this.timers.get(recordId)?.cancel();
    this.timers.set(recordId, this.schedule(() => {
      this.timers.delete(recordId);
      const attempt = this.attempt(recordId);
      this.inFlight.add(attempt);
      void attempt.finally(() => this.inFlight.delete(attempt));
    }, delayMs));
  }

  private async attempt(recordId: string): Promise<void> {
    const record = this.options.records()[recordId];
    if (!record || record.status !== 'pending' || record.payload === null) return;
    const webhook = this.options.findWebhook(record.webhook_id);
    if (!webhook) {
      this.settle(record, 'cancelled');
      return;
    }
    const nowMs = this.options.now();
    const payload = record.payload;
    const gzip = webhook.compression === 'gzip';
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      [(this.options.signatureHeader ?? SIGNATURE_HEADER).toLowerCase()]: signatureHeaderValue(webhook.secret, payload, Math.floor(nowMs / 1000)),
      'user-agent': 'demand-api-sandbox-webhooks/1',
    };
    if (gzip) headers['content-encoding'] = 'gzip';
    const body = gzip ? gzipSync(Buffer.from(payload, 'utf8')) : Buffer.from(payload, 'utf8');
    const entry: DeliveryAttempt = { attempt: record.attempts.length + 1, at: new Date(nowMs).toISOString(), status_code: null, error: null, content_encoding: gzip ? 'gzip' : null };
    try {
      entry.status_code = await this.options.transport(webhook.url, headers, body);
    } catch (error) {
      entry.error = error instanceof Error ? error.message : String(error);
    }
    // The record may have been removed (reset) while the request ran.
    const current = this.options.records()[recordId];
    if (current !== record) return;
    record.attempts.push(entry);
    if (entry.status_code !== null && entry.status_code >= 200 && entry.status_code < 300) {
      this.settle(record, 'delivered');
    } else if (record.attempts.length >= this.maxAttempts) {
      this.settle(record, 'failed');
    } else {
      const delay = retryDelayMs(record.attempts.length + 1, this.baseDelayMs, this.maxDelayMs);
      record.next_attempt_at = new Date(this.options.now() + delay).toISOString();
      this.options.onChange?.();
      this.arm(record.id, delay);
    }
  }

  private settle(record: DeliveryRecord, status: DeliveryStatus): void {
    record.status = status;
    record.next_attempt_at = null;
    record.payload = null;
    this.options.onChange?.();
  }
}
