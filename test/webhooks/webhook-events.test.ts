// Spec "Events" and "Session record": target-group-updated change objects (unknown ones ignored,
// private_exchange_cpi_change with supplier_id, allocations_* with allocation_group_id) and
// com.svc.session.updated (respondent_update_date, respondent_last_date_change).
import { describe, expect, it } from 'vitest';
import { MAX_ITEMS_PER_SIGNAL, readCloudEvent, toWebhookEventSignal, type CloudEventEnvelope } from '../../webhooks/webhook-events';
import { envelope, sessionRecord } from './delivery-fixtures';

const RECEIVED_AT = '2026-03-01T12:00:00.000Z';

function convert(event: unknown) {
  const read = readCloudEvent(event);
  if ('problem' in read) throw new Error(read.problem);
  return toWebhookEventSignal(read, RECEIVED_AT);
}

describe('readCloudEvent', () => {
  it('accepts a CloudEvents 1.0 envelope', () => {
    const event = envelope('target-group-updated', { changes: [] });
    expect(readCloudEvent(event)).toEqual(event);
  });

  it.each([
    ['an array', [], /JSON object/],
    ['a string', 'hello', /JSON object/],
    ['no specversion', { ...envelope('x', {}), specversion: undefined }, /specversion/],
    ['specversion 0.3', { ...envelope('x', {}), specversion: '0.3' }, /specversion/],
    ['no id', { ...envelope('x', {}), id: undefined }, /id/],
    ['an empty id', { ...envelope('x', {}), id: '' }, /id/],
    ['a numeric id', { ...envelope('x', {}), id: 7 }, /id/],
    ['an id of 257 characters', { ...envelope('x', {}), id: 'i'.repeat(257) }, /id/],
    ['no source', { ...envelope('x', {}), source: undefined }, /source/],
    ['no type', { ...envelope('x', {}), type: undefined }, /type/],
    ['an unparseable time', { ...envelope('x', {}), time: 'yesterday' }, /time/],
    ['a numeric datacontenttype', { ...envelope('x', {}), datacontenttype: 1 }, /datacontenttype/],
  ])('rejects %s', (_case, value, problem) => {
    const result = readCloudEvent(value);
    expect(result).toHaveProperty('problem');
    expect((result as { problem: string }).problem).toMatch(problem);
  });
});

describe('toWebhookEventSignal: target-group-updated', () => {
  const changes = [
    { object: 'status_change', previous: 'draft', current: 'live' },
    { object: 'private_exchange_cpi_change', supplier_id: 41, previous: null, current: { value: '3.10', currency_code: 'USD', currency_scale: 2 } },
    { object: 'allocations_private_exchange_group_percentage_change', allocation_group_id: 'ag-2', previous: 20, current: 35 },
    { object: 'allocations_open_exchange_enabled_change', previous: true, current: false },
    { object: 'quota_teleport_change', previous: 1, current: 2 },
    { object: 'Allocations_Shouting' },
    { object: 42 },
    'not an object',
    null,
  ];

  it('keeps the known change kinds with supplier_id / allocation_group_id and ignores unknown or malformed ones', () => {
    const { signal, truncated } = convert(envelope('target-group-updated', { target_group_id: 'tg-9', changes }, { id: 'evt-1' }));
    expect(truncated).toBe(0);
    expect(signal).toEqual({
      id: 'evt-1',
      type: 'target-group-updated',
      time: '2026-03-01T10:00:00.000Z',
      targetGroupId: 'tg-9',
      changes: [
        { object: 'status_change' },
        { object: 'private_exchange_cpi_change', supplier_id: '41' },
        { object: 'allocations_private_exchange_group_percentage_change', allocation_group_id: 'ag-2' },
        { object: 'allocations_open_exchange_enabled_change' },
      ],
    });
  });

  it('takes the target group id from the source path when data has none', () => {
    const { signal } = convert(envelope('target-group-updated', { changes: [] }, { source: '/v1/demand/accounts/1001/projects/p-1/target-groups/tg%2F5' }));
    expect(signal.targetGroupId).toBe('tg/5');
  });

  it('gives an empty change list when data has no changes array', () => {
    expect(convert(envelope('target-group-updated', { changes: 'all of them' })).signal.changes).toEqual([]);
    expect(convert(envelope('target-group-updated', null)).signal.changes).toEqual([]);
  });

  it(`carries at most ${MAX_ITEMS_PER_SIGNAL} change objects and reports how many it left out`, () => {
    const many = Array.from({ length: MAX_ITEMS_PER_SIGNAL + 7 }, () => ({ object: 'status_change' }));
    const { signal, truncated } = convert(envelope('target-group-updated', { changes: many }));
    expect(signal.changes).toHaveLength(MAX_ITEMS_PER_SIGNAL);
    expect(truncated).toBe(7);
  });
});

describe('toWebhookEventSignal: com.svc.session.updated', () => {
  const first = sessionRecord({ status: 'Complete', respondent_update_date: '2026-03-01T10:00:00.000Z', respondent_last_date_change: '2026-03-01T10:00:00.000Z' });
  const reconciled = sessionRecord({ status: 'SecurityFailure', respondent_update_date: '2026-03-02T08:30:00.000Z', respondent_last_date_change: '2026-03-01T10:00:00.000Z' });
  const started = sessionRecord({ status: 'Started', respondent_update_date: '2026-03-01T09:55:00.000Z', respondent_last_date_change: null });

  it('orders sessions by respondent_update_date and keeps only statuses and the two timestamps', () => {
    const event = envelope('com.svc.session.updated', { sessions: [reconciled, first, started] }, { id: 'evt-s' });
    const { signal } = convert(event);
    expect(signal).toEqual({
      id: 'evt-s',
      type: 'com.svc.session.updated',
      time: '2026-03-01T10:00:00.000Z',
      targetGroupId: 'tg-77',
      sessions: [
        { status: 'Started', respondent_update_date: '2026-03-01T09:55:00.000Z', respondent_last_date_change: null },
        { status: 'Complete', respondent_update_date: '2026-03-01T10:00:00.000Z', respondent_last_date_change: '2026-03-01T10:00:00.000Z' },
        { status: 'SecurityFailure', respondent_update_date: '2026-03-02T08:30:00.000Z', respondent_last_date_change: '2026-03-01T10:00:00.000Z' },
      ],
    });
  });

  it('never carries respondent ids, session ids, supplier ids, quota targets or costs', () => {
    const records = [first, reconciled, started];
    const { signal } = convert(envelope('com.svc.session.updated', { sessions: records }));
    const text = JSON.stringify(signal);
    for (const record of records) {
      expect(text).not.toContain(record.respondent_id as string);
      expect(text).not.toContain(record.session_id as string);
    }
    expect(text).not.toMatch(/respondent_id|session_id|quota_target|cost_per_interview|supplier|entry_date|2\.50/);
  });

  it('reads one bare session record or an array of them as data', () => {
    const bare = convert(envelope('com.svc.session.updated', first, { source: '/v1/demand/accounts/1001' })).signal;
    expect(bare.sessions).toEqual([{ status: 'Complete', respondent_update_date: '2026-03-01T10:00:00.000Z', respondent_last_date_change: '2026-03-01T10:00:00.000Z' }]);
    expect(bare.targetGroupId).toBe('tg-77');
    const list = convert(envelope('com.svc.session.updated', [reconciled, first], { source: '/v1/demand/accounts/1001' })).signal;
    expect(list.sessions?.map((s) => s.status)).toEqual(['Complete', 'SecurityFailure']);
    expect(list.targetGroupId).toBe('tg-77');
  });

  it('leaves the target group out when sessions of several target groups share an event without a source path', () => {
    const other = sessionRecord({ target_group_id: 'tg-78' });
    const { signal } = convert(envelope('com.svc.session.updated', [first, other], { source: '/v1/demand/accounts/1001' }));
    expect(signal.targetGroupId).toBeUndefined();
  });

  it('uses the event time for records of versions before 2025-05-27 (no timestamps) and skips records without a status', () => {
    const old = sessionRecord({ status: 'OverQuota' });
    delete old.respondent_update_date;
    delete old.respondent_last_date_change;
    const { signal } = convert(envelope('com.svc.session.updated', { sessions: [old, { respondent_id: 'r-1' }, 'x'] }));
    expect(signal.sessions).toEqual([{ status: 'OverQuota', respondent_update_date: '2026-03-01T10:00:00.000Z' }]);
  });
});

describe('toWebhookEventSignal: other events', () => {
  it('passes an unknown event type through with id, type, time and target group only', () => {
    const event: CloudEventEnvelope = { id: 'e-x', specversion: '1.0', source: '/v1/demand/accounts/1/projects/p/target-groups/tg-3', type: 'com.svc.future.thing', data: { respondent_id: 'r-secret' } };
    expect(toWebhookEventSignal(event, RECEIVED_AT).signal).toEqual({ id: 'e-x', type: 'com.svc.future.thing', time: RECEIVED_AT, targetGroupId: 'tg-3' });
  });
});
