// Spec: Resources › Webhook, Events (deliveries, compression, signature, event kinds, version
// availability); DESIGN.md (webhook paths, Svc-Signature, CloudEvents envelope). A receiver on
// 127.0.0.1 records every delivery.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { useTestSandbox } from '../fixtures/sandbox';
import { verifySignatureHeader } from '../../sandbox/model/webhook-signature';
import { V_OLD, draftBody, paramNames } from './sandbox-test-client';

interface Received {
  path: string;
  headers: Record<string, string | string[] | undefined>;
  raw: Buffer;
  json: string;
  event: Record<string, any>;
}

const { sb, api } = useTestSandbox({ resetBeforeEach: true, faultsBeforeEach: { job_duration_ms: 20 } });
let receiver: Server;
let receiverUrl: string;
let received: Received[] = [];
let answers: number[] = [];

beforeAll(async () => {
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const json = (req.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw).toString('utf8');
      received.push({ path: req.url ?? '', headers: req.headers, raw, json, event: JSON.parse(json) });
      res.statusCode = answers.shift() ?? 204;
      res.end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
});
beforeEach(async () => {
  received = [];
  answers = [];
  await api.admin('PUT', '/webhooks/settings', { base_delay_ms: 10, max_delay_ms: 40, max_attempts: 4 });
});
afterAll(async () => {
  await new Promise((resolve) => receiver.close(resolve));
});

const WEBHOOKS = `/v1/accounts/1001/webhooks`;

async function createWebhook(body: Record<string, unknown>, version?: string) {
  const res = await api.req('POST', WEBHOOKS, { body: { url: `${receiverUrl}/hook`, events: ['target-group-updated', 'com.svc.session.updated'], ...body }, version });
  expect(res.status, res.text).toBe(201);
  return res.body;
}

async function until<T>(probe: () => T | Promise<T>, done: (value: T) => boolean, what: string): Promise<T> {
  for (let i = 0; i < 300; i++) {
    const value = await probe();
    if (done(value)) return value;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`timed out waiting for ${what}`);
}

const deliveries = async () => (await api.admin('GET', '/webhooks/deliveries')).body.data as Record<string, any>[];
const eventsOfType = (type: string) => received.filter((r) => r.event.type === type);

async function liveGroup(filling_goal = 20) {
  const made = await api.projectWithTargetGroup({ live_url: 'https://survey.example/s', filling_goal });
  const launch = await api.req('POST', `${made.tgPath}/fielding-run-jobs/launch-from-draft`, { body: { end_fielding_at: '2099-01-01T00:00:00Z' } });
  await api.waitForJob(launch.headers.get('location')!);
  return made;
}

describe('Webhooks › resource', () => {
  it('create answers 201 with the secret once; get/list never show it; update replaces (omitted compression disables it); delete 204', async () => {
    const created = await createWebhook({ compression: 'gzip' });
    expect(created).toMatchObject({ url: `${receiverUrl}/hook`, compression: 'gzip' });
    expect(created.secret).toMatch(/^whsec_/);
    const got = await api.req('GET', `${WEBHOOKS}/${created.id}`);
    expect(got.status).toBe(200);
    expect(got.body).not.toHaveProperty('secret');
    const list = await api.req('GET', WEBHOOKS);
    // get_webhooks: {webhooks, has_more}.
    expect(list.body).toMatchObject({ has_more: false });
    expect(list.body.webhooks.map((w: { id: string }) => w.id)).toEqual([created.id]);
    expect(list.body.webhooks[0]).not.toHaveProperty('secret');
    const replaced = await api.req('PUT', `${WEBHOOKS}/${created.id}`, { body: { url: `${receiverUrl}/other`, events: ['target-group-updated'] } });
    expect(replaced.status).toBe(200);
    expect(replaced.body).toMatchObject({ url: `${receiverUrl}/other`, events: ['target-group-updated'], compression: null });
    expect((await api.req('DELETE', `${WEBHOOKS}/${created.id}`)).status).toBe(204);
    expect((await api.req('GET', `${WEBHOOKS}/${created.id}`)).status).toBe(404);
  });

  it('compression is gzip or null; url and events are required; a rejected write changes nothing', async () => {
    const before = await api.state();
    for (const [body, name] of [
      [{ url: `${receiverUrl}/h`, events: ['target-group-updated'], compression: 'deflate' }, 'compression'],
      [{ events: ['target-group-updated'] }, 'url'],
      [{ url: `${receiverUrl}/h`, events: ['nope'] }, 'events[0]'],
      [{ url: `${receiverUrl}/h`, events: ['target-group-updated'], secret: 'x' }, 'secret'],
    ] as const) {
      const res = await api.req('POST', WEBHOOKS, { body });
      expect(res.status).toBe(400);
      expect(paramNames(res)).toContain(name);
    }
    expect(await api.state()).toEqual(before);
  });

  it('webhooks are per account; Idempotency-Key replays the create', async () => {
    const created = await createWebhook({});
    expect((await api.req('GET', `/v1/accounts/1002/webhooks/${created.id}`)).status).toBe(404);
    expect((await api.req('GET', '/v1/accounts/9999/webhooks')).status).toBe(404);
    const body = { url: `${receiverUrl}/idem`, events: ['target-group-updated'] };
    const first = await api.req('POST', WEBHOOKS, { body, headers: { 'idempotency-key': 'wh-1' } });
    const again = await api.req('POST', WEBHOOKS, { body, headers: { 'idempotency-key': 'wh-1' } });
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
  });
});

describe('Webhooks › deliveries', () => {
  it('target-group-updated: a CloudEvents 1.0 envelope, Content-Type application/json, signed over the JSON', async () => {
    const webhook = await createWebhook({});
    const { tgPath, tg, project } = await api.projectWithTargetGroup();
    // The draft as created (projectWithTargetGroup's draftBody), with a new goal.
    expect((await api.req('PUT', tgPath, { body: draftBody({ filling_goal: 321 }) })).status).toBe(204);
    const [delivery] = await until(() => eventsOfType('target-group-updated'), (list) => list.length > 0, 'a target-group-updated delivery');
    expect(delivery.path).toBe('/hook');
    expect(delivery.headers['content-type']).toBe('application/json');
    expect(delivery.headers['content-encoding']).toBeUndefined();
    const header = String(delivery.headers['svc-signature']);
    expect(header).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect(verifySignatureHeader(header, webhook.secret, delivery.json, Math.floor(Date.now() / 1000))).toBe(true);
    expect(verifySignatureHeader(header, 'whsec_wrong', delivery.json, Math.floor(Date.now() / 1000))).toBe(false);
    expect(delivery.event).toMatchObject({ specversion: '1.0', type: 'target-group-updated', datacontenttype: 'application/json', source: `/v1/demand/accounts/1001/projects/${project.id}/target-groups/${tg.id}` });
    expect(delivery.event.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(Date.parse(delivery.event.time)).not.toBeNaN();
    expect(delivery.event.data).toEqual({ account_id: 1001, project_id: project.id, target_group_id: tg.id, changes: [{ object: 'field_change', field: 'filling_goal', previous: 200, current: 321 }] });
    const records = await until(deliveries, (list) => list.some((d) => d.status === 'delivered'), 'a delivered record');
    expect(records[0]).toMatchObject({ webhook_id: webhook.id, event_type: 'target-group-updated', status: 'delivered' });
    expect(records[0]).not.toHaveProperty('payload');
  });

  it('with compression gzip every delivery carries Content-Encoding: gzip, Content-Type stays application/json, the signature covers the uncompressed JSON', async () => {
    const webhook = await createWebhook({ compression: 'gzip' });
    await liveGroup();
    const [delivery] = await until(() => eventsOfType('target-group-updated'), (list) => list.length > 0, 'a gzip delivery');
    expect(delivery.headers['content-encoding']).toBe('gzip');
    expect(delivery.headers['content-type']).toBe('application/json');
    expect(delivery.raw.subarray(0, 2)).toEqual(Buffer.from([0x1f, 0x8b]));
    expect(verifySignatureHeader(String(delivery.headers['svc-signature']), webhook.secret, delivery.json, Math.floor(Date.now() / 1000))).toBe(true);
    expect(delivery.event.data.changes).toContainEqual({ object: 'status_change', previous: 'draft', current: 'live' });
  });

  it('retries failed deliveries with backoff and records every attempt; gives up after max_attempts', async () => {
    await createWebhook({ events: ['target-group-updated'] });
    answers = [500, 503];
    await liveGroup();
    const records = await until(deliveries, (list) => list.some((d) => d.status === 'delivered'), 'a delivery after retries');
    const record = records.find((d) => d.status === 'delivered')!;
    expect(record.attempts.map((a: { status_code: number }) => a.status_code)).toEqual([500, 503, 204]);
    const times = record.attempts.map((a: { at: string }) => Date.parse(a.at));
    // Exponential backoff (base 10 ms, then 20 ms): each wait lasts at least its delay (load only lengthens
    // a wait, so the bound holds on a busy machine; 1 ms for the timestamps' rounding).
    expect(times[1] - times[0]).toBeGreaterThanOrEqual(10 - 1);
    expect(times[2] - times[1]).toBeGreaterThanOrEqual(20 - 1);
    // Unreachable receiver: every attempt is a network error, then failed.
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const dead = await api.req('POST', WEBHOOKS, { body: { url: `http://127.0.0.1:${port}/gone`, events: ['target-group-updated'] } });
    await liveGroup();
    const failed = await until(deliveries, (list) => list.some((d) => d.webhook_id === dead.body.id && d.status === 'failed'), 'a failed delivery');
    const deadRecord = failed.find((d) => d.webhook_id === dead.body.id && d.status === 'failed')!;
    expect(deadRecord.attempts).toHaveLength(4);
    expect(deadRecord.attempts.every((a: { error: string | null }) => a.error !== null)).toBe(true);
    expect(await api.state()).toMatchObject({ records: { slices: { webhooks: { deliveries: expect.any(Object) } } } });
  });

  it('exchange-allocation changes: twelve allocations_* objects and private_exchange_cpi_change, only for webhooks of 2025-05-27 or later', async () => {
    await createWebhook({ events: ['target-group-updated'] });
    await createWebhook({ url: `${receiverUrl}/old`, events: ['target-group-updated'] }, V_OLD);
    const { tg } = await api.projectWithTargetGroup();
    const group = (id: string, percentage: number, supplier_ids: number[]) => ({ allocation_group_id: id, percentage, supplier_ids });
    const base = {
      open_exchange: { enabled: true, percentage: 100, groups: [group('o1', 50, [1]), group('o2', 50, [2])] },
      private_exchange: { enabled: true, percentage: 20, groups: [group('p1', 50, [3]), group('p2', 50, [4])], supplier_cpis: [{ supplier_id: 3, cpi: { value: '1.00', currency_code: 'USD' } }] },
    };
    expect((await api.admin('PUT', `/target-groups/${tg.id}/exchange-allocations`, base)).status).toBe(200);
    await until(() => received.filter((r) => r.path === '/hook'), (list) => list.length >= 1, 'first allocation event');
    received = [];
    const next = {
      open_exchange: { enabled: false, percentage: 80, groups: [group('o1', 40, [1, 9]), group('o3', 60, [5])] },
      private_exchange: { enabled: false, percentage: 10, groups: [group('p1', 90, [3, 8]), group('p3', 10, [6])], supplier_cpis: [{ supplier_id: 3, cpi: { value: '1.25', currency_code: 'USD' } }] },
    };
    const put = await api.admin('PUT', `/target-groups/${tg.id}/exchange-allocations`, next);
    expect(put.status, put.text).toBe(200);
    const [delivery] = await until(() => received.filter((r) => r.path === '/hook'), (list) => list.length >= 1, 'allocation changes');
    const objects = delivery.event.data.changes.map((c: { object: string }) => c.object);
    expect(objects.filter((o: string) => o.startsWith('allocations_'))).toHaveLength(12);
    expect(new Set(objects).size).toBe(13);
    expect(delivery.event.data.changes).toContainEqual({ object: 'private_exchange_cpi_change', supplier_id: 3, previous: { value: '1.00', currency_code: 'USD', currency_scale: 2 }, current: { value: '1.25', currency_code: 'USD', currency_scale: 2 } });
    for (const change of delivery.event.data.changes.filter((c: { object: string }) => c.object.includes('_group_'))) expect(change.allocation_group_id).toMatch(/^[op]\d$/);
    await sb.events.idle();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(received.filter((r) => r.path === '/old')).toHaveLength(0);
    expect((await api.admin('PUT', `/target-groups/${tg.id}/exchange-allocations`, { open_exchange: { enabled: 'yes' } })).status).toBe(400);
  });

  it('com.svc.session.updated carries session records with both timestamps (absent for 2025-02-17 webhooks)', async () => {
    await createWebhook({ events: ['com.svc.session.updated'] });
    await createWebhook({ url: `${receiverUrl}/old`, events: ['com.svc.session.updated'] }, V_OLD);
    await api.admin('PUT', '/fielding/settings', { pool_size: 2000, speed: 1 });
    await liveGroup(5);
    await api.admin('POST', '/fielding/advance', { minutes: 120 });
    const events = await until(() => eventsOfType('com.svc.session.updated'), (list) => list.filter((r) => r.path === '/hook').length > 0 && list.some((r) => r.path === '/old'), 'session events');
    const current = events.filter((r) => r.path === '/hook').flatMap((r) => r.event.data.sessions);
    expect(current.length).toBeGreaterThan(0);
    for (const session of current) {
      expect(session).toHaveProperty('respondent_update_date');
      expect(session).toHaveProperty('respondent_last_date_change');
      if (session.status !== 'Started') expect(session.respondent_last_date_change).not.toBeNull();
    }
    for (const session of events.filter((r) => r.path === '/old').flatMap((r) => r.event.data.sessions)) {
      expect(session).not.toHaveProperty('respondent_update_date');
      expect(session).not.toHaveProperty('respondent_last_date_change');
    }
    // Updates of one session: the update date moves, the last-date-change stays.
    const bySession = new Map<string, any[]>();
    for (const session of current) bySession.set(session.session_id, [...(bySession.get(session.session_id) ?? []), session]);
    const changed = [...bySession.values()].filter((list) => list.length > 1);
    expect(changed.length).toBeGreaterThan(0);
    for (const list of changed) {
      const terminal = list.filter((s) => s.status !== 'Started');
      expect(new Set(terminal.map((s) => s.respondent_last_date_change)).size).toBe(1);
      expect(Date.parse(list[list.length - 1].respondent_update_date)).toBeGreaterThan(Date.parse(list[0].respondent_update_date));
    }
  });

  it('deleting a webhook cancels its pending deliveries; deliveries go only to the named URL', async () => {
    await api.admin('PUT', '/webhooks/settings', { base_delay_ms: 60_000, max_delay_ms: 60_000 });
    const webhook = await createWebhook({ events: ['target-group-updated'] });
    answers = [500];
    await liveGroup();
    await until(deliveries, (list) => list.some((d) => d.attempts.length === 1), 'a first failed attempt');
    expect((await api.req('DELETE', `${WEBHOOKS}/${webhook.id}`)).status).toBe(204);
    const records = await deliveries();
    expect(records.every((d) => d.status === 'cancelled')).toBe(true);
    // Only this webhook's events count: a delivery of an earlier test may still be on the wire.
    const ours = new Set(records.filter((d) => d.webhook_id === webhook.id).map((d) => d.event_id));
    const arrived = received.filter((r) => ours.has(r.event.id));
    expect(arrived.length).toBeGreaterThan(0);
    expect(arrived.every((r) => r.path === '/hook')).toBe(true);
  });
});
