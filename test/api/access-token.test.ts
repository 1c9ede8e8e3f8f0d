// Token cache: one request per lifetime, single-flight, renewal 5 minutes before expiry, 403 -> one refresh + replay.
import { afterEach, describe, expect, it } from 'vitest';
import { ApiFailureType } from '../../api/http/errors';
import { apiError, AUTH_ORIGIN, CLIENT_SECRET, createMockApi, rejectionOf, type MockApi } from '../activities/helpers/mock-api';

const PATH = '/v1/accounts';
const opened: MockApi[] = [];
function open(options: Parameters<typeof createMockApi>[0] = {}): MockApi {
  const mock = createMockApi(options);
  opened.push(mock);
  return mock;
}
afterEach(async () => {
  await Promise.all(opened.splice(0).map((m) => m.agent.close()));
});

const get = (mock: MockApi) => mock.client.request({ method: 'GET', path: PATH, apiVersion: '2025-12-18' });

describe('access token', () => {
  it('sends the spec token request: JSON client_credentials, auth_scopes app:api, audience, client id and secret', async () => {
    const mock = open();
    let seen: { headers: Record<string, string>; body: unknown } | undefined;
    mock.auth.intercept({ path: '/auth/oauth/token', method: 'POST' }).reply((opts) => {
      seen = { headers: opts.headers as Record<string, string>, body: JSON.parse(String(opts.body)) };
      return { statusCode: 200, data: { access_token: 'tok-abcdef', expires_in: 86400, token_type: 'Bearer' } };
    });
    mock.on('GET', PATH, () => ({ status: 200, body: { data: [] } }));
    await get(mock);
    expect(seen?.body).toEqual({
      client_id: 'studyflow-test',
      client_secret: CLIENT_SECRET,
      grant_type: 'client_credentials',
      auth_scopes: 'app:api',
      audience: 'https://demand-api.test',
    });
    expect(seen?.headers['content-type']).toBe('application/json');
    expect(mock.requests[0].headers.authorization).toBe('Bearer tok-abcdef');
  });

  it('many concurrent calls share one token request', async () => {
    const mock = open();
    mock.serveTokens({ times: 5 });
    mock.on('GET', PATH, () => ({ status: 200, body: { data: [] } }), 50);
    await Promise.all(Array.from({ length: 50 }, () => get(mock)));
    expect(mock.client.tokenRequestCount).toBe(1);
    expect(new Set(mock.requests.map((r) => r.headers.authorization))).toEqual(new Set(['Bearer token-1-abcdef']));
  });

  it('reuses the token until 5 minutes before expiry, then renews it (injected clock)', async () => {
    let now = 1_000_000;
    const mock = open({ clock: () => now });
    mock.serveTokens({ expiresIn: 3600, times: 2 });
    mock.on('GET', PATH, () => ({ status: 200, body: { data: [] } }), 4);
    await get(mock);
    now += 3600_000 - 5 * 60_000 - 1; // one ms before the renewal point
    await get(mock);
    expect(mock.client.tokenRequestCount).toBe(1);
    now += 1; // exactly 5 minutes before expiry
    await get(mock);
    expect(mock.client.tokenRequestCount).toBe(2);
    await get(mock);
    expect(mock.client.tokenRequestCount).toBe(2);
    expect(mock.requests.map((r) => r.headers.authorization)).toEqual([
      'Bearer token-1-abcdef',
      'Bearer token-1-abcdef',
      'Bearer token-2-abcdef',
      'Bearer token-2-abcdef',
    ]);
  });

  it('a token shorter-lived than twice the margin is renewed at half its lifetime, not on every call', async () => {
    let now = 0;
    const mock = open({ clock: () => now });
    mock.serveTokens({ expiresIn: 60, times: 2 });
    mock.on('GET', PATH, () => ({ status: 200, body: { data: [] } }), 3);
    await get(mock);
    now = 29_999;
    await get(mock);
    expect(mock.client.tokenRequestCount).toBe(1);
    now = 30_000;
    await get(mock);
    expect(mock.client.tokenRequestCount).toBe(2);
  });

  it('403 authorization_error refreshes the token exactly once and replays the request once', async () => {
    const mock = open();
    mock.serveTokens({ times: 3 });
    mock.on('GET', PATH, () => ({ status: 403, body: apiError('authorization_error', 'token expired') }));
    mock.on('GET', PATH, () => ({ status: 200, body: { data: [{ id: '1001' }] } }));
    const res = await get(mock);
    expect(res.status).toBe(200);
    expect(mock.client.tokenRequestCount).toBe(2);
    expect(mock.requests.map((r) => r.headers.authorization)).toEqual(['Bearer token-1-abcdef', 'Bearer token-2-abcdef']);
  });

  it('a second 403 after the replay fails non-retryably without another refresh', async () => {
    const mock = open();
    mock.serveTokens({ times: 5 });
    mock.on('GET', PATH, () => ({ status: 403, body: apiError('authorization_error') }), 5);
    const f = await rejectionOf(get(mock));
    expect(f.type).toBe(ApiFailureType.authorizationError);
    expect(f.nonRetryable).toBe(true);
    expect(mock.client.tokenRequestCount).toBe(2);
    expect(mock.requests).toHaveLength(2);
  });

  it('concurrent 403s on the same token share one refresh', async () => {
    const mock = open();
    mock.serveTokens({ times: 5 });
    mock.on('GET', PATH, () => ({ status: 200, body: { data: [] } }));
    await get(mock); // caches token-1
    mock.on('GET', PATH, (req) => (req.headers.authorization === 'Bearer token-1-abcdef'
      ? { status: 403, body: apiError('authorization_error') }
      : { status: 200, body: { data: [] } }), 20);
    await Promise.all(Array.from({ length: 10 }, () => get(mock)));
    expect(mock.client.tokenRequestCount).toBe(2);
  });

  it('a 403 that is not authorization_error is not retried with a new token', async () => {
    const mock = open();
    mock.serveTokens({ times: 2 });
    mock.on('GET', PATH, () => ({ status: 403, body: apiError('feature_not_enabled') }));
    const f = await rejectionOf(get(mock));
    expect(f.type).toBe('feature_not_enabled');
    expect(mock.client.tokenRequestCount).toBe(1);
  });

  it('a failed token request is not cached: the next call asks again', async () => {
    const mock = open();
    mock.agent.get(AUTH_ORIGIN).intercept({ path: '/auth/oauth/token', method: 'POST' }).reply(503, apiError('unavailable'));
    mock.serveTokens();
    mock.on('GET', PATH, () => ({ status: 200, body: { data: [] } }));
    const f = await rejectionOf(get(mock));
    expect(f.type).toBe(ApiFailureType.serverError);
    expect(f.nonRetryable).toBe(false);
    await get(mock);
    expect(mock.client.tokenRequestCount).toBe(2);
  });

  it('a token answer without access_token or expires_in is an unexpected response', async () => {
    const mock = open();
    mock.auth.intercept({ path: '/auth/oauth/token', method: 'POST' }).reply(200, { token_type: 'Bearer' });
    const f = await rejectionOf(get(mock));
    expect(f.type).toBe(ApiFailureType.unexpectedResponse);
  });
});
