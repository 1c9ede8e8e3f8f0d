// Deliveries under the cint profile's event names: `session-updated` carries sessions as the spec's
// `com.svc.session.updated` does; `quota-fill-registered` reaches its target group without payload details.
import { describe, expect, it } from 'vitest';
import { readCloudEvent, toWebhookEventSignal, type CloudEventEnvelope } from '../../webhooks/webhook-events';
import { envelope, sessionRecord } from './delivery-fixtures';

const RECEIVED_AT = '2026-03-01T12:00:00.000Z';
const convert = (event: unknown) => toWebhookEventSignal(readCloudEvent(event) as CloudEventEnvelope, RECEIVED_AT);

describe('toWebhookEventSignal under the cint names', () => {
  const record = sessionRecord({ status: 'Complete', respondent_update_date: '2026-03-01T10:00:00.000Z', respondent_last_date_change: '2026-03-01T10:00:00.000Z' });

  it('session-updated gives the same sessions as com.svc.session.updated, under its own type', () => {
    const spec = convert(envelope('com.svc.session.updated', { sessions: [record] }, { id: 'e-1' })).signal;
    const cint = convert(envelope('session-updated', { sessions: [record] }, { id: 'e-1' })).signal;
    expect(cint.sessions).toEqual(spec.sessions);
    expect(cint.sessions).toHaveLength(1);
    expect(cint).toMatchObject({ type: 'session-updated', targetGroupId: spec.targetGroupId });
    expect(JSON.stringify(cint)).not.toContain(String(record.respondent_id));
  });

  it('session-updated without a target group in its source finds it in its records', () => {
    const { signal } = convert(envelope('session-updated', [record], { source: '/v1/demand/accounts/1001' }));
    expect(signal.targetGroupId).toBe(record.target_group_id);
  });

  it('quota-fill-registered reaches its target group with id, type and time only', () => {
    const { signal } = convert(envelope('quota-fill-registered', { quota_id: 'q-1', respondent_id: 'r-secret' }, { id: 'e-q' }));
    expect(signal).toEqual({ id: 'e-q', type: 'quota-fill-registered', time: expect.any(String), targetGroupId: expect.any(String) });
    expect(JSON.stringify(signal)).not.toContain('r-secret');
  });
});
