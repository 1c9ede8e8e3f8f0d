// Webhooks: the secret goes only to the secret store; updates always carry compression.
import { describe, expect, it } from 'vitest';
import { apiError, rejectionOf } from './helpers/mock-api';
import { createMockActivities, type MockActivities } from './helpers/mock-activities';
import { MOCK_CTX as ctx, expectMockApiUsedAfterEach } from '../fixtures/activities';

const HOOKS = '/v1/accounts/1001/webhooks';
const desired = { url: 'https://hooks.example.com/studyflow', events: ['target-group-updated'] };
const SECRET = 'whsec_0123456789abcdef';
let m: MockActivities;
expectMockApiUsedAfterEach(() => m);

describe('webhooks', () => {
  it('createWebhook hands the secret to the store and never returns it', async () => {
    m = createMockActivities();
    m.on('GET', `${HOOKS}?page_size=2`, () => ({ status: 200, body: { webhooks: [], has_more: false } }));
    m.on('POST', HOOKS, () => ({ status: 201, body: { id: 'w1', ...desired, compression: null, secret: SECRET } }));
    const out = await m.activities.createWebhook({ ctx, idempotencyKey: 'wh-k', desired });
    expect(out).toEqual({ webhook: { id: 'w1', ...desired, compression: null }, created: true });
    expect(JSON.stringify(out)).not.toContain(SECRET);
    expect(m.secrets.get('1001/w1')).toBe(SECRET);
    expect(m.requests[1].body).toEqual({ ...desired, compression: null });
    expect(m.requests[1].headers['idempotency-key']).toBe('wh-k');
  });

  it('reuses an existing webhook for the URL when its secret is held', async () => {
    m = createMockActivities();
    m.secrets.set('1001/w1', SECRET);
    m.on('GET', `${HOOKS}?page_size=2`, () => ({ status: 200, body: { webhooks: [{ id: 'w1', ...desired }], has_more: false } }));
    expect(await m.activities.createWebhook({ ctx, idempotencyKey: 'wh-k', desired })).toEqual({ webhook: { id: 'w1', ...desired }, created: false });
  });

  it('a create answer without a secret is a non-retryable wire_mismatch (a retry would replay the same answer)', async () => {
    m = createMockActivities();
    m.on('GET', `${HOOKS}?page_size=2`, () => ({ status: 200, body: { webhooks: [], has_more: false } }));
    m.on('POST', HOOKS, () => ({ status: 201, body: { id: 'w1', ...desired } }));
    const f = await rejectionOf(m.activities.createWebhook({ ctx, idempotencyKey: 'wh-k', desired }));
    expect(f.type).toBe('wire_mismatch');
    expect(f.nonRetryable).toBe(true);
    expect(f.message).toContain('create_webhook');
    expect(f.message).toContain('secret');
    expect(m.secrets.size).toBe(0);
  });

  it('pages the webhook list by has_more and the last id (get_webhooks has no cursor field)', async () => {
    m = createMockActivities();
    m.on('GET', `${HOOKS}?page_size=2`, () => ({ status: 200, body: { webhooks: [{ id: 'w1', ...desired }, { id: 'w2', ...desired }], has_more: true } }));
    m.on('GET', `${HOOKS}?page_size=2&start_after=w2`, () => ({ status: 200, body: { webhooks: [{ id: 'w3', ...desired }], has_more: false } }));
    expect((await m.activities.listWebhooks({ ctx })).webhooks.map((w) => w.id)).toEqual(['w1', 'w2', 'w3']);
  });

  it('updateWebhook always sends compression, null when not wanted, and strips a secret from the answer', async () => {
    m = createMockActivities();
    m.on('PUT', `${HOOKS}/w1`, (req) => ({ status: 200, body: { id: 'w1', ...(req.body as object), secret: SECRET } }), 2);
    const out = await m.activities.updateWebhook({ ctx, webhookId: 'w1', desired });
    await m.activities.updateWebhook({ ctx, webhookId: 'w1', desired: { ...desired, compression: 'gzip' } });
    expect(m.requests.map((r) => (r.body as { compression: unknown }).compression)).toEqual([null, 'gzip']);
    expect(JSON.stringify(out)).not.toContain(SECRET);
  });

  it('refuses a compression other than gzip', async () => {
    m = createMockActivities();
    const f = await rejectionOf(m.activities.updateWebhook({ ctx, webhookId: 'w1', desired: { ...desired, compression: 'br' as never } }));
    expect(f.type).toBe('invalid_activity_input');
  });

  it('lists without secrets; delete tolerates a webhook already gone', async () => {
    m = createMockActivities();
    m.on('GET', `${HOOKS}?page_size=2`, () => ({ status: 200, body: { webhooks: [{ id: 'w1', ...desired, secret: SECRET }], has_more: false } }));
    m.on('DELETE', `${HOOKS}/w1`, () => ({ status: 404, body: apiError('not_found') }));
    expect(JSON.stringify(await m.activities.listWebhooks({ ctx }))).not.toContain(SECRET);
    expect(await m.activities.deleteWebhook({ ctx, webhookId: 'w1' })).toEqual({ deleted: false });
  });
});
