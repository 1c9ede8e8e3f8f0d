import { createHmac } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../sandbox/core/api-error';
import { buildCloudEvent, SESSION_UPDATED, TARGET_GROUP_UPDATED } from '../../sandbox/model/cloud-event';
import { changeSessionStatus, sessionForVersion, startSession, TERMINAL_STATUSES, type SessionRecord } from '../../sandbox/model/session-record';
import { ALLOCATION_CHANGE_OBJECTS, changesForVersion, diffExchangeAllocations, diffTargetGroupFields, emptyExchangeAllocations, type ExchangeAllocations } from '../../sandbox/model/target-group-changes';
import { retryDelayMs, WebhookDeliveryEngine, type DeliveryRecord, type DeliveryTransport, type WebhookEndpoint } from '../../sandbox/model/webhook-delivery-engine';
import { signatureHeaderValue, verifySignatureHeader } from '../../sandbox/model/webhook-signature';
import { newWebhookSecret, readWebhookInput } from '../../sandbox/model/webhook-subscription';

const rejection = (run: () => unknown): ApiError => {
  try {
    run();
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('expected a rejection');
};

describe('Svc-Signature', () => {
  it('is t=<seconds>,v1=<hex HMAC-SHA256(secret, "t.body")>', () => {
    const header = signatureHeaderValue('s3cret', '{"a":1}', 1_700_000_000);
    const expected = createHmac('sha256', 's3cret').update('1700000000.{"a":1}').digest('hex');
    expect(header).toBe(`t=1700000000,v1=${expected}`);
  });

  it('verifies only the same secret, body and a timestamp within tolerance (property)', () => {
    fc.assert(
      fc.property(fc.string(), fc.string({ minLength: 1 }), fc.integer({ min: 0, max: 2_000_000_000 }), fc.string(), (body, secret, t, other) => {
        const header = signatureHeaderValue(secret, body, t);
        expect(verifySignatureHeader(header, secret, body, t)).toBe(true);
        expect(verifySignatureHeader(header, secret, body, t + 301)).toBe(false);
        if (other !== body) expect(verifySignatureHeader(header, secret, other, t)).toBe(false);
        if (other !== secret && other.length > 0) expect(verifySignatureHeader(header, other, body, t)).toBe(false);
      }),
      { numRuns: 200 },
    );
  });
});

describe('webhook subscriptions', () => {
  it('reads {url, events, compression?}; omitted compression is off', () => {
    expect(readWebhookInput({ url: 'http://127.0.0.1:9/hook', events: [SESSION_UPDATED] })).toEqual({ url: 'http://127.0.0.1:9/hook', events: [SESSION_UPDATED], compression: null });
    expect(readWebhookInput({ url: 'https://x.example/h', events: [TARGET_GROUP_UPDATED, SESSION_UPDATED], compression: 'gzip' }).compression).toBe('gzip');
    expect(readWebhookInput({ url: 'https://x.example/h', events: [TARGET_GROUP_UPDATED], compression: null }).compression).toBeNull();
  });

  it('400s on other compression values, unknown or repeated events, bad URLs and a client-chosen secret', () => {
    const valid = { url: 'https://x.example/h', events: [TARGET_GROUP_UPDATED] };
    for (const [body, name] of [
      [{ ...valid, compression: 'deflate' }, 'compression'],
      [{ ...valid, compression: 'GZIP' }, 'compression'],
      [{ ...valid, events: [] }, 'events'],
      [{ ...valid, events: ['nope'] }, 'events[0]'],
      [{ ...valid, events: [TARGET_GROUP_UPDATED, TARGET_GROUP_UPDATED] }, 'events[1]'],
      [{ ...valid, url: 'ftp://x.example' }, 'url'],
      [{ ...valid, url: 'not a url' }, 'url'],
      [{ ...valid, secret: 'mine' }, 'secret'],
      [{ events: valid.events }, 'url'],
    ] as const) {
      const error = rejection(() => readWebhookInput(body));
      expect(error.status).toBe(400);
      expect(error.invalidParams!.map((param) => param.name)).toContain(name);
    }
  });

  it('makes distinct secrets', () => {
    expect(newWebhookSecret()).toMatch(/^whsec_[0-9a-f]{48}$/);
    expect(newWebhookSecret()).not.toBe(newWebhookSecret());
  });
});

describe('target-group-updated change objects', () => {
  const allocations = (mutate: (value: ExchangeAllocations) => void): ExchangeAllocations => {
    const value = emptyExchangeAllocations();
    value.open_exchange.groups = [{ allocation_group_id: 'og1', percentage: 50, supplier_ids: [1, 2] }, { allocation_group_id: 'og2', percentage: 50, supplier_ids: [3] }];
    value.private_exchange = { enabled: true, percentage: 20, groups: [{ allocation_group_id: 'pg1', percentage: 100, supplier_ids: [9] }, { allocation_group_id: 'pg2', percentage: 0, supplier_ids: [8] }], supplier_cpis: [{ supplier_id: 9, cpi: { value: '1.00', currency_code: 'USD', currency_scale: 2 } }] };
    mutate(value);
    return value;
  };

  it('produces each of the twelve allocations_* objects, group-scoped ones with allocation_group_id', () => {
    const before = allocations(() => undefined);
    const after = allocations((value) => {
      value.open_exchange.enabled = false;
      value.open_exchange.percentage = 80;
      value.open_exchange.groups = [{ allocation_group_id: 'og1', percentage: 40, supplier_ids: [1, 5] }, { allocation_group_id: 'og3', percentage: 60, supplier_ids: [4] }];
      value.private_exchange.enabled = false;
      value.private_exchange.percentage = 10;
      value.private_exchange.groups = [{ allocation_group_id: 'pg1', percentage: 90, supplier_ids: [9, 7] }, { allocation_group_id: 'pg3', percentage: 10, supplier_ids: [6] }];
      value.private_exchange.supplier_cpis = [{ supplier_id: 9, cpi: { value: '1.25', currency_code: 'USD', currency_scale: 2 } }, { supplier_id: 7, cpi: { value: '2.00', currency_code: 'USD', currency_scale: 2 } }];
    });
    const changes = diffExchangeAllocations(before, after);
    expect(new Set(changes.filter((change) => change.object.startsWith('allocations_')).map((change) => change.object))).toEqual(new Set(ALLOCATION_CHANGE_OBJECTS));
    expect(ALLOCATION_CHANGE_OBJECTS).toHaveLength(12);
    for (const change of changes) {
      if (change.object.includes('_group_')) expect(change).toHaveProperty('allocation_group_id');
      else if (change.object.startsWith('allocations_')) expect(change).not.toHaveProperty('allocation_group_id');
    }
    expect(changes.find((change) => change.object === 'allocations_open_exchange_group_removed')).toMatchObject({ allocation_group_id: 'og2' });
    const cpiChanges = changes.filter((change) => change.object === 'private_exchange_cpi_change');
    expect(cpiChanges).toEqual([
      { object: 'private_exchange_cpi_change', supplier_id: 7, previous: null, current: { value: '2.00', currency_code: 'USD', currency_scale: 2 } },
      { object: 'private_exchange_cpi_change', supplier_id: 9, previous: { value: '1.00', currency_code: 'USD', currency_scale: 2 }, current: { value: '1.25', currency_code: 'USD', currency_scale: 2 } },
    ]);
  });

  it('no changes for equal allocations (suppliers compared as sets)', () => {
    const a = allocations(() => undefined);
    const b = allocations((value) => {
      value.open_exchange.groups[0].supplier_ids = [2, 1];
    });
    expect(diffExchangeAllocations(a, b)).toEqual([]);
  });

  it('status and field changes; webhooks older than 2025-05-27 do not get the allocation and CPI objects', () => {
    const fieldChanges = diffTargetGroupFields({ status: 'draft', filling_goal: 10 }, { status: 'live', filling_goal: 20 }, ['status', 'filling_goal']);
    expect(fieldChanges).toEqual([{ object: 'status_change', previous: 'draft', current: 'live' }, { object: 'field_change', field: 'filling_goal', previous: 10, current: 20 }]);
    const all = [...fieldChanges, ...diffExchangeAllocations(emptyExchangeAllocations(), allocations(() => undefined))];
    expect(changesForVersion(all, '2025-02-17')).toEqual(fieldChanges);
    expect(changesForVersion(all, '2025-05-27')).toEqual(all);
    expect(changesForVersion(all, '2025-12-18')).toEqual(all);
  });
});

describe('session records', () => {
  const start = { session_id: 's1', account_id: 1, project_id: 'p', target_group_id: 't', supplier_id: 3, respondent_id: 'r', quota_target_ids: [] };

  it('sets respondent_last_date_change once at the first terminal status and moves respondent_update_date on every change (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.constantFrom(...TERMINAL_STATUSES), fc.integer({ min: 0, max: 10_000_000 })), { minLength: 1, maxLength: 8 }), (changes) => {
        let session: SessionRecord = startSession(start, 1_000_000);
        expect(session.respondent_last_date_change).toBeNull();
        let firstTerminal: string | null = null;
        for (const [status, delay] of changes) {
          if (status === session.status) continue;
          const previousUpdate = session.respondent_update_date;
          session = changeSessionStatus(session, status, 1_000_000 + delay);
          firstTerminal ??= session.respondent_update_date;
          expect(Date.parse(session.respondent_update_date)).toBeGreaterThan(Date.parse(previousUpdate));
          expect(session.respondent_last_date_change).toBe(firstTerminal);
        }
      }),
      { numRuns: 200 },
    );
  });

  it('hides the two timestamps from webhooks of 2025-02-17', () => {
    const session = changeSessionStatus(startSession(start, 0), 'Complete', 5, { value: '1.00', currency_code: 'USD', currency_scale: 2 });
    expect(sessionForVersion(session, '2025-02-17')).not.toHaveProperty('respondent_update_date');
    expect(sessionForVersion(session, '2025-05-27')).toHaveProperty('respondent_last_date_change');
    expect(session.cost_per_interview).not.toBeNull();
    expect(changeSessionStatus(session, 'Terminate', 10).cost_per_interview).toBeNull();
  });
});

describe('WebhookDeliveryEngine', () => {
  const event = buildCloudEvent({ id: 'evt-1', source: '/x', type: TARGET_GROUP_UPDATED, time: '2026-01-01T00:00:00.000Z', data: { changes: [] } });

  function harness(answers: (number | Error)[], endpoint: WebhookEndpoint | undefined = { id: 'wh', url: 'http://127.0.0.1:1/h', secret: 'sec', compression: null }) {
    const records: Record<string, DeliveryRecord> = {};
    const calls: { url: string; headers: Record<string, string>; body: Buffer }[] = [];
    const delays: number[] = [];
    let webhook: WebhookEndpoint | undefined = endpoint;
    let now = 1_767_225_600_000;
    let next = 0;
    const transport: DeliveryTransport = async (url, headers, body) => {
      calls.push({ url, headers, body });
      const answer = answers[Math.min(calls.length - 1, answers.length - 1)];
      if (answer instanceof Error) throw answer;
      return answer;
    };
    const queue: (() => void)[] = [];
    const engine = new WebhookDeliveryEngine({
      transport,
      findWebhook: () => webhook,
      records: () => records,
      now: () => now,
      newId: () => `d${++next}`,
      maxAttempts: 4,
      baseDelayMs: 100,
      maxDelayMs: 250,
      schedule: (run, delay) => {
        delays.push(delay);
        queue.push(run);
        return { cancel: () => undefined };
      },
    });
    const step = async () => {
      queue.shift()!();
      now += 1000;
      await engine.idle();
    };
    const drain = async () => {
      while (queue.length > 0) await step();
    };
    return { engine, records, calls, delays, drain, step, setWebhook: (value: WebhookEndpoint | undefined) => (webhook = value) };
  }

  it('delivers once on 2xx, signed over the JSON body, Content-Type application/json', async () => {
    const h = harness([204]);
    const record = h.engine.enqueue('wh', event);
    await h.drain();
    expect(h.records[record.id]).toMatchObject({ status: 'delivered', payload: null, next_attempt_at: null });
    expect(h.calls).toHaveLength(1);
    const [call] = h.calls;
    expect(call.headers['content-type']).toBe('application/json');
    expect(call.headers['content-encoding']).toBeUndefined();
    const t = Number(/t=(\d+)/.exec(call.headers['svc-signature'])![1]);
    expect(verifySignatureHeader(call.headers['svc-signature'], 'sec', call.body.toString('utf8'), t)).toBe(true);
    expect(JSON.parse(call.body.toString('utf8'))).toEqual(event);
  });

  it('retries non-2xx and network errors with exponential backoff, then gives up after maxAttempts', async () => {
    const h = harness([500, new Error('ECONNREFUSED'), 503, 429]);
    const record = h.engine.enqueue('wh', event);
    await h.drain();
    expect(h.delays).toEqual([0, 100, 200, 250]);
    expect(h.records[record.id].status).toBe('failed');
    expect(h.records[record.id].attempts.map((attempt) => [attempt.status_code, attempt.error])).toEqual([[500, null], [null, 'ECONNREFUSED'], [503, null], [429, null]]);
    expect(retryDelayMs(2, 1000, 60_000)).toBe(1000);
    expect(retryDelayMs(5, 1000, 60_000)).toBe(8000);
    expect(retryDelayMs(12, 1000, 60_000)).toBe(60_000);
  });

  it('succeeds on a later attempt', async () => {
    const h = harness([502, 200]);
    const record = h.engine.enqueue('wh', event);
    await h.drain();
    expect(h.records[record.id].status).toBe('delivered');
    expect(h.records[record.id].attempts).toHaveLength(2);
  });

  it('gzips every attempt while compression is gzip; the signature covers the uncompressed JSON', async () => {
    const h = harness([500, 200], { id: 'wh', url: 'http://127.0.0.1:1/h', secret: 'sec', compression: 'gzip' });
    h.engine.enqueue('wh', event);
    await h.drain();
    for (const call of h.calls) {
      expect(call.headers['content-encoding']).toBe('gzip');
      expect(call.headers['content-type']).toBe('application/json');
      const json = gunzipSync(call.body).toString('utf8');
      const t = Number(/t=(\d+)/.exec(call.headers['svc-signature'])![1]);
      expect(verifySignatureHeader(call.headers['svc-signature'], 'sec', json, t)).toBe(true);
    }
  });

  it('applies a compression toggle to queued retries, and cancels deliveries of a deleted webhook', async () => {
    const toggled = harness([500, 200]);
    toggled.engine.enqueue('wh', event);
    await toggled.step(); // first attempt, uncompressed, answered 500
    toggled.setWebhook({ id: 'wh', url: 'http://127.0.0.1:1/h', secret: 'sec', compression: 'gzip' });
    await toggled.step(); // the retry reads the current setting
    expect(toggled.calls.map((call) => call.headers['content-encoding'] ?? null)).toEqual([null, 'gzip']);

    const deleted = harness([500]);
    const record = deleted.engine.enqueue('wh', event);
    deleted.setWebhook(undefined);
    await deleted.drain();
    expect(deleted.records[record.id].status).toBe('cancelled');
    expect(deleted.calls).toHaveLength(0);
  });
});
