// The other side of the wire: the sandbox's own delivery engine (signing, gzip, retries) and its
// event models send to the receiver. A disagreement between the two implementations fails here.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCloudEvent, targetGroupSource } from '../../sandbox/model/cloud-event';
import { changeSessionStatus, startSession } from '../../sandbox/model/session-record';
import { diffExchangeAllocations, emptyExchangeAllocations } from '../../sandbox/model/target-group-changes';
import { WebhookDeliveryEngine, type DeliveryRecord, type WebhookEndpoint } from '../../sandbox/model/webhook-delivery-engine';
import type { WebhookEventSignal } from '../../workflows/messages';
import { startWebhookReceiver, type RunningWebhookReceiver } from '../../webhooks/webhook-receiver';
import { SECRET, eventually } from './delivery-fixtures';

let receiver: RunningWebhookReceiver;
let failNext = 0;
const signals: WebhookEventSignal[] = [];
const endpoint: WebhookEndpoint = { id: 'wh-1', url: '', secret: SECRET, compression: null };
const records: Record<string, DeliveryRecord> = {};
let engine: WebhookDeliveryEngine;

beforeAll(async () => {
  receiver = await startWebhookReceiver({
    secrets: () => [SECRET],
    onEvent: async (event) => {
      signals.push(event);
      await Promise.resolve();
    },
  });
  endpoint.url = receiver.url;
  engine = new WebhookDeliveryEngine({
    transport: async (url, headers, body) => {
      if (failNext > 0) {
        failNext -= 1;
        throw new Error('simulated network failure');
      }
      const res = await fetch(url, { method: 'POST', headers, body });
      await res.arrayBuffer();
      return res.status;
    },
    findWebhook: (id) => (id === endpoint.id ? endpoint : undefined),
    records: () => records,
    now: () => Date.now(),
    newId: () => randomUUID(),
    baseDelayMs: 10,
    maxDelayMs: 20,
  });
});
afterAll(async () => {
  engine.stop();
  await receiver.close();
});

const source = targetGroupSource(1001, 'p-1', 'tg-42');

describe.each([null, 'gzip'] as const)('sandbox deliveries with compression %s', (compression) => {
  it('target-group-updated with the sandbox allocations and CPI change objects', async () => {
    endpoint.compression = compression;
    const before = emptyExchangeAllocations();
    const after = emptyExchangeAllocations();
    after.private_exchange.enabled = true;
    after.private_exchange.groups.push({ allocation_group_id: 'ag-7', percentage: 30, supplier_ids: [11, 12] });
    after.private_exchange.supplier_cpis.push({ supplier_id: 11, cpi: { value: '4.00', currency_code: 'USD', currency_scale: 2 } });
    const changes = [...diffExchangeAllocations(before, after), { object: 'some_future_change', previous: 1, current: 2 }];
    const event = buildCloudEvent({ id: randomUUID(), source, type: 'target-group-updated', time: new Date().toISOString(), data: { target_group_id: 'tg-42', changes } });
    const record = engine.enqueue(endpoint.id, event);
    await eventually(() => signals.some((s) => s.id === event.id));
    await engine.idle();
    expect(records[record.id].status).toBe('delivered');
    expect(records[record.id].attempts.at(-1)).toMatchObject({ status_code: 202, content_encoding: compression });
    expect(signals.find((s) => s.id === event.id)).toEqual({
      id: event.id,
      type: 'target-group-updated',
      time: event.time,
      targetGroupId: 'tg-42',
      changes: [
        { object: 'allocations_private_exchange_enabled_change' },
        { object: 'allocations_private_exchange_group_added', allocation_group_id: 'ag-7' },
        { object: 'private_exchange_cpi_change', supplier_id: '11' },
      ],
    });
  });

  it('com.svc.session.updated from the sandbox session model, and a retried delivery counted once', async () => {
    endpoint.compression = compression;
    const t0 = Date.parse('2026-03-01T10:00:00.000Z');
    const started = startSession({ session_id: 's-1', account_id: 1001, project_id: 'p-1', target_group_id: 'tg-42', supplier_id: 11, respondent_id: 'resp-secret-9', quota_target_ids: [] }, t0);
    const completed = changeSessionStatus(started, 'Complete', t0 + 60_000, { value: '2.00', currency_code: 'USD', currency_scale: 2 });
    const reconciled = changeSessionStatus(completed, 'SecurityFailure', t0 + 3_600_000);
    const event = buildCloudEvent({ id: randomUUID(), source, type: 'com.svc.session.updated', time: reconciled.respondent_update_date, data: reconciled });
    failNext = 1;
    const record = engine.enqueue(endpoint.id, event);
    await eventually(() => records[record.id].status === 'delivered');
    // The engine's first attempt failed on the network; the retry is re-signed and accepted once.
    expect(records[record.id].attempts.map((a) => a.status_code)).toEqual([null, 202]);
    await eventually(() => signals.some((s) => s.id === event.id));
    const signal = signals.find((s) => s.id === event.id);
    expect(signal).toEqual({
      id: event.id,
      type: 'com.svc.session.updated',
      time: reconciled.respondent_update_date,
      targetGroupId: 'tg-42',
      sessions: [{ status: 'SecurityFailure', respondent_update_date: '2026-03-01T11:00:00.000Z', respondent_last_date_change: '2026-03-01T10:01:00.000Z' }],
    });
    expect(JSON.stringify(signal)).not.toContain('resp-secret-9');
    // A sandbox redelivery of the same event (e.g. after a lost 2xx) is a duplicate.
    const again = engine.enqueue(endpoint.id, event);
    await eventually(() => records[again.id].status === 'delivered');
    expect(records[again.id].attempts.at(-1)?.status_code).toBe(200);
    expect(signals.filter((s) => s.id === event.id)).toHaveLength(1);
  });
});
