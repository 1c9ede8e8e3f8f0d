// The webhook receiver over real HTTP on 127.0.0.1: spec "Events" (JSON, Content-Encoding gzip,
// Svc-Signature over the uncompressed JSON) and DESIGN.md (HMAC-SHA256 "<t>.<body>", CloudEvents
// envelope, dedupe on id).
import http from 'node:http';
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import type { WebhookEventSignal } from '../../workflows/messages';
import { inflateGzipBounded, startWebhookReceiver, type ReceiverLogEntry, type RunningWebhookReceiver, type WebhookReceiverOptions } from '../../webhooks/webhook-receiver';
import { signatureHeaderValue } from '../../webhooks/webhook-signature';
import { OTHER_SECRET, SECRET, deferred, envelope, eventually, post, sessionRecord, signedDelivery } from './delivery-fixtures';

interface Harness {
  receiver: RunningWebhookReceiver;
  events: { event: WebhookEventSignal; raw: { type: string; id: string } }[];
  logs: ReceiverLogEntry[];
}

const running: RunningWebhookReceiver[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((receiver) => receiver.close()));
});

async function start(overrides: Partial<WebhookReceiverOptions> = {}): Promise<Harness> {
  const events: Harness['events'] = [];
  const logs: ReceiverLogEntry[] = [];
  const receiver = await startWebhookReceiver({
    secrets: () => [SECRET],
    onEvent: async (event, raw) => {
      events.push({ event, raw });
      await Promise.resolve();
    },
    log: (entry) => logs.push(entry),
    retryBaseDelayMs: 5,
    retryMaxDelayMs: 20,
    drainTimeoutMs: 2000,
    ...overrides,
  });
  running.push(receiver);
  return { receiver, events, logs };
}

const tgEvent = (fields: Parameters<typeof envelope>[2] = {}) =>
  envelope(
    'target-group-updated',
    {
      target_group_id: 'tg-77',
      changes: [
        { object: 'private_exchange_cpi_change', supplier_id: 41, previous: null, current: { value: '3.10', currency_code: 'USD', currency_scale: 2 } },
        { object: 'allocations_open_exchange_group_added', allocation_group_id: 'ag-1', previous: null, current: { percentage: 40, supplier_ids: [41] } },
        { object: 'brand_new_change_kind', whatever: true },
      ],
    },
    fields,
  );

const nowSeconds = () => Math.floor(Date.now() / 1000);

describe('accepted deliveries', () => {
  it('acknowledges a signed plain delivery with 202 and hands the workflow signal to onEvent', async () => {
    const { receiver, events } = await start();
    const event = tgEvent();
    const res = await post(receiver.url, signedDelivery(event));
    expect(res.status).toBe(202);
    expect(JSON.parse(res.text)).toEqual({ status: 'accepted' });
    await eventually(() => events.length === 1);
    expect(events[0].raw).toEqual({ type: 'target-group-updated', id: event.id });
    expect(events[0].event).toEqual({
      id: event.id,
      type: 'target-group-updated',
      time: event.time,
      targetGroupId: 'tg-77',
      changes: [
        { object: 'private_exchange_cpi_change', supplier_id: '41' },
        { object: 'allocations_open_exchange_group_added', allocation_group_id: 'ag-1' },
      ],
    });
    await eventually(() => receiver.stats().delivered === 1);
    expect(receiver.stats()).toMatchObject({ received: 1, accepted: 1, duplicates: 0, delivered: 1, deliveryFailures: 0, queueDepth: 0 });
  });

  it('accepts a gzip delivery whose signature covers the uncompressed JSON, sessions ordered by respondent_update_date', async () => {
    const { receiver, events } = await start();
    const later = sessionRecord({ status: 'Terminate', respondent_update_date: '2026-03-01T11:00:00.000Z', respondent_last_date_change: '2026-03-01T10:30:00.000Z' });
    const earlier = sessionRecord({ status: 'Complete', respondent_update_date: '2026-03-01T10:30:00.000Z', respondent_last_date_change: '2026-03-01T10:30:00.000Z' });
    const event = envelope('com.svc.session.updated', { sessions: [later, earlier] });
    const delivery = signedDelivery(event, { gzip: true });
    expect(delivery.body.subarray(0, 2)).toEqual(Buffer.from([0x1f, 0x8b]));
    const res = await post(receiver.url, delivery);
    expect(res.status).toBe(202);
    await eventually(() => events.length === 1);
    expect(events[0].event.sessions).toEqual([
      { status: 'Complete', respondent_update_date: '2026-03-01T10:30:00.000Z', respondent_last_date_change: '2026-03-01T10:30:00.000Z' },
      { status: 'Terminate', respondent_update_date: '2026-03-01T11:00:00.000Z', respondent_last_date_change: '2026-03-01T10:30:00.000Z' },
    ]);
    expect(JSON.stringify(events[0])).not.toContain(later.respondent_id as string);
  });

  it('accepts application/cloudevents+json and charset parameters', async () => {
    const { receiver } = await start();
    for (const type of ['application/json; charset=utf-8', 'application/cloudevents+json', 'Application/JSON']) {
      const delivery = signedDelivery(tgEvent());
      const res = await post(receiver.url, { ...delivery, headers: { ...delivery.headers, 'content-type': type } });
      expect(res.status, type).toBe(202);
    }
  });

  it('accepts signatures inside the tolerance in both directions', async () => {
    const { receiver } = await start();
    expect((await post(receiver.url, signedDelivery(tgEvent(), { t: nowSeconds() - 290 }))).status).toBe(202);
    expect((await post(receiver.url, signedDelivery(tgEvent(), { t: nowSeconds() + 290 }))).status).toBe(202);
  });
});

describe('duplicates and replays', () => {
  it('answers 200 to a redelivery of an accepted id and does not call onEvent again', async () => {
    const { receiver, events } = await start();
    const event = tgEvent();
    const first = signedDelivery(event);
    expect((await post(receiver.url, first)).status).toBe(202);
    const replay = await post(receiver.url, first);
    expect(replay.status).toBe(200);
    expect(JSON.parse(replay.text)).toEqual({ status: 'duplicate' });
    // The sender's retry is signed afresh and may be compressed differently: still the same event.
    expect((await post(receiver.url, signedDelivery(event, { gzip: true, t: nowSeconds() + 1 }))).status).toBe(200);
    await eventually(() => receiver.stats().delivered === 1);
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(events).toHaveLength(1);
    expect(receiver.stats()).toMatchObject({ received: 3, accepted: 1, duplicates: 2 });
  });

  it('rejects a captured delivery replayed after the tolerance window as stale, not as a duplicate', async () => {
    let offsetMs = 0;
    const { receiver, events } = await start({ clock: () => Date.now() + offsetMs });
    const captured = signedDelivery(tgEvent());
    expect((await post(receiver.url, captured)).status).toBe(202);
    offsetMs = 301_000;
    const replay = await post(receiver.url, captured);
    expect(replay.status).toBe(401);
    expect(JSON.parse(replay.text)).toEqual({ error: 'stale' });
    expect(receiver.stats().rejected.stale).toBe(1);
    expect(receiver.stats().duplicates).toBe(0);
    await eventually(() => receiver.stats().delivered === 1);
    expect(events).toHaveLength(1);
  });
});

describe('rejected deliveries', () => {
  it('reads the signature from the configured header: Cint-Signature under the cint profile, and not Svc-Signature then', async () => {
    const { receiver, events } = await start({ signatureHeader: 'Cint-Signature' });
    const delivery = signedDelivery(tgEvent());
    const asSvc = await post(receiver.url, delivery);
    expect(asSvc.status).toBe(401);
    const { 'svc-signature': signature, ...rest } = delivery.headers;
    const asCint = await post(receiver.url, { ...delivery, headers: { ...rest, 'cint-signature': signature } });
    expect(asCint.status).toBe(202);
    await eventually(() => events.length === 1);
  });

  it('rejects a forged delivery (wrong secret) with 401 bad_signature', async () => {
    const { receiver, events } = await start();
    const res = await post(receiver.url, signedDelivery(tgEvent(), { secrets: 'whsec_attacker' }));
    expect(res.status).toBe(401);
    expect(JSON.parse(res.text)).toEqual({ error: 'bad_signature' });
    expect(receiver.stats().rejected.bad_signature).toBe(1);
    expect(events).toHaveLength(0);
  });

  it('rejects a body changed after signing, plain and gzip', async () => {
    const { receiver } = await start();
    const tamper = (json: string) => json.replace('tg-77', 'tg-78');
    expect((await post(receiver.url, signedDelivery(tgEvent(), { tamper }))).status).toBe(401);
    expect((await post(receiver.url, signedDelivery(tgEvent(), { tamper, gzip: true }))).status).toBe(401);
    expect(receiver.stats().rejected.bad_signature).toBe(2);
  });

  it('rejects a signature over the compressed bytes (the spec says it covers the uncompressed JSON)', async () => {
    const { receiver } = await start();
    const json = JSON.stringify(tgEvent());
    const body = gzipSync(Buffer.from(json));
    const headers = { 'content-type': 'application/json', 'content-encoding': 'gzip', 'svc-signature': signatureHeaderValue(SECRET, body, nowSeconds()) };
    expect((await post(receiver.url, { headers, body })).status).toBe(401);
  });

  it.each([
    ['stale', -301],
    ['future-dated', 301],
  ])('rejects a %s signature with 401 stale', async (_case, skew) => {
    const { receiver, events } = await start();
    const res = await post(receiver.url, signedDelivery(tgEvent(), { t: nowSeconds() + skew }));
    expect(res.status).toBe(401);
    expect(JSON.parse(res.text)).toEqual({ error: 'stale' });
    expect(receiver.stats().rejected.stale).toBe(1);
    expect(events).toHaveLength(0);
  });

  it('honours a custom tolerance', async () => {
    const { receiver } = await start({ toleranceSeconds: 10 });
    expect((await post(receiver.url, signedDelivery(tgEvent(), { t: nowSeconds() - 30 }))).status).toBe(401);
    expect(receiver.stats().rejected.stale).toBe(1);
  });

  it('rejects a missing or malformed signature header with 401', async () => {
    const { receiver } = await start();
    const delivery = signedDelivery(tgEvent());
    const { 'svc-signature': _dropped, ...unsigned } = delivery.headers;
    expect((await post(receiver.url, { headers: unsigned, body: delivery.body })).status).toBe(401);
    expect((await post(receiver.url, { headers: { ...unsigned, 'svc-signature': 'v1=abc' }, body: delivery.body })).status).toBe(401);
    expect(receiver.stats().rejected).toMatchObject({ missing_signature: 1, malformed_signature: 1 });
  });

  it('rejects a wire body over maxBodyBytes with 413, with and without Content-Length', async () => {
    const { receiver, events } = await start({ maxBodyBytes: 4096 });
    const big = tgEvent({ source: `/v1/demand/accounts/1001/${'x'.repeat(5000)}` });
    expect((await post(receiver.url, signedDelivery(big))).status).toBe(413);
    const chunked = await new Promise<number>((resolve, reject) => {
      const delivery = signedDelivery(big);
      const req = http.request(receiver.url, { method: 'POST', headers: delivery.headers, agent: false }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.write(delivery.body.subarray(0, 3000));
      setTimeout(() => req.end(delivery.body.subarray(3000)), 20);
    });
    expect(chunked).toBe(413);
    expect(receiver.stats().rejected.too_large).toBe(2);
    expect(events).toHaveLength(0);
  });

  it('rejects a gzip bomb of a few KiB that inflates past maxDecompressedBytes with 413', async () => {
    const { receiver, events } = await start();
    // A valid-looking event padded with 9 MiB of spaces: about 9 KiB on the wire.
    const json = JSON.stringify(tgEvent()).replace(/}$/, `${' '.repeat(9 * 1024 * 1024)}}`);
    const delivery = signedDelivery(json, { gzip: true });
    expect(delivery.body.length).toBeLessThan(16 * 1024);
    const res = await post(receiver.url, delivery);
    expect(res.status).toBe(413);
    expect(receiver.stats().rejected.too_large).toBe(1);
    expect(events).toHaveLength(0);
  });

  it('stops inflating as soon as the output passes the cap (a 64 MiB bomb costs about the cap)', async () => {
    const bomb = gzipSync(Buffer.alloc(64 * 1024 * 1024));
    const result = await inflateGzipBounded(bomb, 1024 * 1024);
    expect(result.outcome).toBe('too_large');
    expect((result as { inflatedBytes: number }).inflatedBytes).toBeLessThanOrEqual(1024 * 1024 + 64 * 1024);
    const ok = await inflateGzipBounded(gzipSync(Buffer.from('{"a":1}')), 1024);
    expect(ok).toEqual({ outcome: 'ok', body: Buffer.from('{"a":1}') });
  });

  it('rejects a body that claims gzip but is not, with 400 bad_gzip', async () => {
    const { receiver } = await start();
    const delivery = signedDelivery(tgEvent());
    const res = await post(receiver.url, { headers: { ...delivery.headers, 'content-encoding': 'gzip' }, body: delivery.body });
    expect(res.status).toBe(400);
    expect(JSON.parse(res.text)).toEqual({ error: 'bad_gzip' });
    const truncated = signedDelivery(tgEvent(), { gzip: true });
    expect((await post(receiver.url, { ...truncated, body: truncated.body.subarray(0, truncated.body.length - 6) })).status).toBe(400);
    expect(receiver.stats().rejected.bad_gzip).toBe(2);
  });

  it('rejects a signed body that is not JSON, not UTF-8 or not a CloudEvent with 400', async () => {
    const { receiver, events } = await start();
    expect((await post(receiver.url, signedDelivery('{"id": '))).status).toBe(400);
    const latin1 = Buffer.from([0x7b, 0x22, 0xe9, 0x22, 0x3a, 0x31, 0x7d]);
    const header = signatureHeaderValue(SECRET, latin1, nowSeconds());
    expect((await post(receiver.url, { headers: { 'content-type': 'application/json', 'svc-signature': header }, body: latin1 })).status).toBe(400);
    const notCloudEvent = await post(receiver.url, signedDelivery({ ...tgEvent(), specversion: '0.3' }));
    expect(notCloudEvent.status).toBe(400);
    expect(JSON.parse(notCloudEvent.text)).toEqual({ error: 'not_cloudevent', detail: 'specversion must be "1.0"' });
    expect(receiver.stats().rejected).toMatchObject({ bad_json: 2, not_cloudevent: 1 });
    expect(events).toHaveLength(0);
  });

  it('rejects other content types and encodings with 415, other methods with 405 and other paths with 404', async () => {
    const { receiver } = await start();
    const delivery = signedDelivery(tgEvent());
    expect((await post(receiver.url, { ...delivery, headers: { ...delivery.headers, 'content-type': 'text/plain' } })).status).toBe(415);
    const { 'content-type': _ct, ...noType } = delivery.headers;
    expect((await post(receiver.url, { ...delivery, headers: noType })).status).toBe(415);
    expect((await post(receiver.url, { ...delivery, headers: { ...delivery.headers, 'content-encoding': 'br' } })).status).toBe(415);
    const get = await post(receiver.url, { headers: {} }, 'GET');
    expect(get.status).toBe(405);
    expect(get.headers.allow).toBe('POST');
    expect((await post(receiver.url.replace('/webhooks/demand', '/other'), delivery)).status).toBe(404);
    expect(receiver.stats().rejected).toMatchObject({ unsupported_content_type: 2, unsupported_content_encoding: 1, method_not_allowed: 1, not_found: 1 });
    expect(receiver.stats().received).toBe(5);
  });

  it('answers 503 with Retry-After when no secret is available or the secret store fails', async () => {
    let secrets: () => string[] = () => [];
    const { receiver, events } = await start({ secrets: () => secrets(), retryAfterSeconds: 7 });
    const empty = await post(receiver.url, signedDelivery(tgEvent()));
    expect(empty.status).toBe(503);
    expect(empty.headers['retry-after']).toBe('7');
    secrets = () => {
      throw new Error('store unreadable');
    };
    expect((await post(receiver.url, signedDelivery(tgEvent()))).status).toBe(503);
    secrets = () => [''];
    expect((await post(receiver.url, signedDelivery(tgEvent(), { secrets: '' }))).status).toBe(503);
    expect(receiver.stats().rejected.secrets_unavailable).toBe(3);
    expect(events).toHaveLength(0);
  });
});

describe('secret rotation', () => {
  it('accepts a header with two v1 values while either secret is current, and reads secrets on every delivery', async () => {
    let current = [SECRET, OTHER_SECRET];
    const { receiver } = await start({ secrets: () => current });
    expect((await post(receiver.url, signedDelivery(tgEvent(), { secrets: [SECRET, OTHER_SECRET] }))).status).toBe(202);
    expect((await post(receiver.url, signedDelivery(tgEvent(), { secrets: OTHER_SECRET }))).status).toBe(202);
    current = [OTHER_SECRET];
    expect((await post(receiver.url, signedDelivery(tgEvent(), { secrets: [SECRET, OTHER_SECRET] }))).status).toBe(202);
    expect((await post(receiver.url, signedDelivery(tgEvent(), { secrets: SECRET }))).status).toBe(401);
    expect(receiver.stats()).toMatchObject({ accepted: 3, rejected: expect.objectContaining({ bad_signature: 1 }) });
  });
});

describe('queue and delivery', () => {
  it('acknowledges before a slow onEvent finishes', async () => {
    const gate = deferred();
    const started: string[] = [];
    const { receiver } = await start({
      onEvent: async (_event, raw) => {
        started.push(raw.id);
        await gate.promise;
      },
    });
    const event = tgEvent();
    const res = await post(receiver.url, signedDelivery(event));
    expect(res.status).toBe(202);
    await eventually(() => started.length === 1);
    expect(receiver.stats()).toMatchObject({ delivered: 0, queueDepth: 1 });
    gate.resolve();
    await eventually(() => receiver.stats().delivered === 1);
    expect(receiver.stats().queueDepth).toBe(0);
  });

  it('answers 503 with Retry-After when the queue is full, without remembering the id', async () => {
    const gate = deferred();
    const { receiver, events } = await start({
      queueLimit: 2,
      concurrency: 1,
      retryAfterSeconds: 3,
      onEvent: async (event, raw) => {
        await gate.promise;
        events.push({ event, raw });
      },
    });
    expect((await post(receiver.url, signedDelivery(tgEvent()))).status).toBe(202);
    expect((await post(receiver.url, signedDelivery(tgEvent()))).status).toBe(202);
    const third = tgEvent();
    const full = await post(receiver.url, signedDelivery(third));
    expect(full.status).toBe(503);
    expect(full.headers['retry-after']).toBe('3');
    expect(receiver.stats()).toMatchObject({ queueDepth: 2, rejected: expect.objectContaining({ queue_full: 1 }) });
    gate.resolve();
    await eventually(() => receiver.stats().queueDepth === 0);
    expect((await post(receiver.url, signedDelivery(third))).status).toBe(202);
    await eventually(() => events.length === 3);
    expect(events.map((e) => e.raw.id)).toContain(third.id);
  });

  it('retries a failing onEvent with backoff and counts the retries', async () => {
    let calls = 0;
    const { receiver } = await start({
      onEvent: async () => {
        calls += 1;
        await Promise.resolve();
        if (calls < 3) throw new Error(`transient ${calls}`);
      },
    });
    expect((await post(receiver.url, signedDelivery(tgEvent()))).status).toBe(202);
    await eventually(() => receiver.stats().delivered === 1);
    expect(calls).toBe(3);
    expect(receiver.stats()).toMatchObject({ deliveryRetries: 2, deliveryFailures: 0 });
  });

  it('counts an event whose every attempt failed, keeps serving, and accepts its redelivery again', async () => {
    let fail = true;
    let calls = 0;
    const { receiver } = await start({
      deliveryAttempts: 3,
      onEvent: (() => {
        calls += 1;
        if (fail) throw new Error('workflow unreachable'); // a synchronous throw is contained too
        return Promise.resolve();
      }) as WebhookReceiverOptions['onEvent'],
    });
    const event = tgEvent();
    expect((await post(receiver.url, signedDelivery(event))).status).toBe(202);
    await eventually(() => receiver.stats().deliveryFailures === 1);
    expect(calls).toBe(3);
    fail = false;
    expect((await post(receiver.url, signedDelivery(event))).status).toBe(202);
    await eventually(() => receiver.stats().delivered === 1);
  });

  it('close() waits for queued events, then stops listening', async () => {
    const gate = deferred();
    const delivered: string[] = [];
    const { receiver } = await start({
      concurrency: 1,
      onEvent: async (_event, raw) => {
        await gate.promise;
        delivered.push(raw.id);
      },
    });
    for (let i = 0; i < 3; i += 1) expect((await post(receiver.url, signedDelivery(tgEvent()))).status).toBe(202);
    const closing = receiver.close();
    setTimeout(() => gate.resolve(), 30);
    await closing;
    expect(delivered).toHaveLength(3);
    await expect(post(receiver.url, signedDelivery(tgEvent()))).rejects.toThrow(/ECONNREFUSED/);
  });

  it('close() gives up on events still failing after drainTimeoutMs and counts them', async () => {
    const { receiver } = await start({ drainTimeoutMs: 50, retryBaseDelayMs: 10_000, retryMaxDelayMs: 10_000, onEvent: () => Promise.reject(new Error('down')) });
    expect((await post(receiver.url, signedDelivery(tgEvent()))).status).toBe(202);
    const started = Date.now();
    await receiver.close();
    expect(Date.now() - started).toBeLessThan(2000);
    expect(receiver.stats()).toMatchObject({ deliveryFailures: 1, delivered: 0, queueDepth: 0 });
  });
});

describe('logs', () => {
  it('never contain secrets, signatures, bodies or respondent data', async () => {
    const { receiver, logs } = await start({ deliveryAttempts: 2, onEvent: () => Promise.reject(new Error('signal failed')) });
    const session = sessionRecord({ respondent_id: 'resp-PRIVATE-123' });
    const deliveries = [
      signedDelivery(envelope('com.svc.session.updated', session)),
      signedDelivery(envelope('com.svc.session.updated', session), { gzip: true }),
      signedDelivery(envelope('com.svc.session.updated', session), { secrets: OTHER_SECRET }),
      signedDelivery(envelope('com.svc.session.updated', session), { t: nowSeconds() - 1000 }),
      signedDelivery(JSON.stringify({ respondent_id: 'resp-PRIVATE-123' })),
    ];
    for (const delivery of deliveries) await post(receiver.url, delivery);
    await eventually(() => receiver.stats().deliveryFailures === 2);
    expect(logs.length).toBeGreaterThan(5);
    const text = JSON.stringify(logs);
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain(OTHER_SECRET);
    expect(text).not.toContain('resp-PRIVATE-123');
    expect(text).not.toContain(session.session_id as string);
    for (const delivery of deliveries) {
      for (const digest of delivery.headers['svc-signature'].matchAll(/v1=([0-9a-f]{64})/g)) expect(text).not.toContain(digest[1]);
    }
    expect(logs.map((entry) => entry.reason).filter(Boolean)).toEqual(expect.arrayContaining(['bad_signature', 'stale', 'not_cloudevent']));
  });
});
