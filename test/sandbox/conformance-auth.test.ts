// Spec section "Authentication" (and account access).
import { describe, expect, it } from 'vitest';
import { useTestSandbox } from '../fixtures/sandbox';
import { ACCOUNT, P } from './sandbox-test-client';

let now = Date.parse('2030-01-01T00:00:00Z');
const { sb, api } = useTestSandbox({ start: { clock: () => now } });

describe('Authentication', () => {
  it('issues a bearer token for the seeded client credentials (expires_in 86400, token_type Bearer)', async () => {
    const res = await api.requestToken();
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['access_token', 'expires_in', 'token_type']);
    expect(res.body.expires_in).toBe(86_400);
    expect(res.body.token_type).toBe('Bearer');
    expect(res.body.access_token.split('.')).toHaveLength(3);
  });

  it.each([['client_id'], ['client_secret']])('answers 401 {code: 401, message: unauthorized} for a wrong %s', async (field) => {
    const res = await api.requestToken({ [field]: 'wrong' });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ code: 401, message: 'unauthorized' });
  });

  it.each([
    ['grant_type', 'password'],
    ['auth_scopes', 'app:admin'],
    ['audience', 'https://other.example'],
  ])('answers 400 naming %s when it is not the required value', async (field, value) => {
    const res = await api.requestToken({ [field]: value });
    expect(res.status).toBe(400);
    expect(res.body.invalid_params.map((p: { name: string }) => p.name)).toEqual([field]);
  });

  it('answers 400 naming every missing token parameter', async () => {
    const res = await api.send('POST', `${sb.authUrl}/oauth/token`, { body: { client_id: sb.info.client_id }, version: null });
    expect(res.status).toBe(400);
    expect(res.body.invalid_params.map((p: { name: string }) => p.name).sort()).toEqual(['audience', 'auth_scopes', 'client_secret', 'grant_type']);
  });

  it('requires a JSON token request (form encoding is 415)', async () => {
    const form = new URLSearchParams(api.tokenBody() as Record<string, string>).toString();
    const res = await api.send('POST', `${sb.authUrl}/oauth/token`, { raw: form, contentType: 'application/x-www-form-urlencoded', version: null });
    expect(res.status).toBe(415);
  });

  it('answers 401 unauthorized without a bearer token, with a malformed header, and with a forged token', async () => {
    const token = await api.token();
    const [h, p] = token.split('.');
    for (const headers of [{} as Record<string, string>, { authorization: 'Basic abc' }, { authorization: `Bearer ${h}.${p}.AAAA` }, { authorization: 'Bearer not-a-token' }]) {
      const res = await api.req('GET', '/v1/accounts', { token: null, headers });
      expect(res.status).toBe(401);
      expect(res.body.object).toBe('unauthorized');
    }
  });

  it('accepts a token until its lifetime ends, then answers 403 authorization_error', async () => {
    const issuedAt = now;
    const token = (await api.requestToken()).body.access_token;
    now = issuedAt + 86_399_000;
    expect((await api.req('GET', '/v1/accounts', { token })).status).toBe(200);
    now = issuedAt + 86_401_000;
    const res = await api.req('GET', '/v1/accounts', { token });
    expect(res.status).toBe(403);
    expect(res.body.object).toBe('authorization_error');
    expect(res.body.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(typeof res.body.detail).toBe('string');
    now = issuedAt;
  });

  it('lets several tokens be valid at the same time', async () => {
    const a = (await api.requestToken()).body.access_token;
    const b = (await api.requestToken()).body.access_token;
    expect(a).not.toBe(b);
    expect((await api.req('GET', '/v1/accounts', { token: a })).status).toBe(200);
    expect((await api.req('GET', '/v1/accounts', { token: b })).status).toBe(200);
  });

  it('honours the token_ttl_seconds fault for new tokens', async () => {
    sb.setFaults({ token_ttl_seconds: 60 });
    const start = now;
    const res = await api.requestToken();
    expect(res.body.expires_in).toBe(60);
    now = start + 61_000;
    expect((await api.req('GET', '/v1/accounts', { token: res.body.access_token })).status).toBe(403);
    now = start;
    sb.setFaults({});
  });
});

describe('Endpoints › Accounts', () => {
  it('lists the seeded accounts', async () => {
    const res = await api.req('GET', '/v1/accounts');
    expect(res.status).toBe(200);
    // get_user_accounts: {accounts: [{id, name}]} with integer ids.
    expect(res.body).toEqual({ accounts: [{ id: 1001, name: 'Sandbox Research Buyer' }, { id: 1002, name: 'Sandbox Basic Buyer' }] });
  });

  it('lists the business units of an account (get_business_units)', async () => {
    const res = await api.req('GET', '/v1/accounts/1001/business-units');
    expect(res.status).toBe(200);
    expect(res.body.business_units.map((b: { id: number }) => b.id)).toEqual([2001, 2002]);
    expect(res.body.business_units[0]).toMatchObject({ currency_code: 'USD', pricing_models: ['rate_card', 'dynamic'] });
    expect((await api.req('GET', '/v1/accounts/9999/business-units')).status).toBe(404);
  });

  it('gives a token access to every seeded account and 404 for any other account', async () => {
    expect((await api.req('GET', `${P(ACCOUNT)}/projects`)).status).toBe(200);
    expect((await api.req('GET', `${P(1002)}/projects`)).status).toBe(200);
    const res = await api.req('GET', `${P(9999)}/projects`);
    expect(res.status).toBe(404);
    expect(res.body.object).toBe('not_found_error');
  });
});
