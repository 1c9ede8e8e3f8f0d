// What goes on the wire for every /v1 call: version header, bearer, traceparent, idempotency key, If-Match, body.
import { afterEach, describe, expect, it } from 'vitest';
import { createApiConfig } from '../../api/http/api-config';
import { API_ORIGIN, AUTH_ORIGIN, createMockApi, type MockApi } from '../activities/helpers/mock-api';

const opened: MockApi[] = [];
function open(options: Parameters<typeof createMockApi>[0] = {}): MockApi {
  const mock = createMockApi(options);
  opened.push(mock);
  mock.serveTokens();
  return mock;
}
afterEach(async () => {
  await Promise.all(opened.splice(0).map((m) => m.agent.close()));
});

const TRACEPARENT = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';

describe('Demand API client requests', () => {
  it('sends the version header of each call (the study version or the pinned one)', async () => {
    const mock = open();
    mock.on('GET', '/v1/accounts', () => ({ status: 200, body: { data: [] } }), 3);
    for (const apiVersion of ['2025-02-17', '2025-05-27', '2025-12-18']) {
      await mock.client.request({ method: 'GET', path: '/v1/accounts', apiVersion });
    }
    expect(mock.requests.map((r) => r.headers['svc-api-version'])).toEqual(['2025-02-17', '2025-05-27', '2025-12-18']);
  });

  it('uses a configured version header name', async () => {
    const config = createApiConfig({
      baseUrl: API_ORIGIN, authUrl: `${AUTH_ORIGIN}/auth`, audience: 'a', clientId: 'c', clientSecret: 'secret-1', versionHeader: 'X-Api-Version',
    });
    const mock = open({ config });
    mock.on('GET', '/v1/accounts', () => ({ status: 200, body: { data: [] } }));
    await mock.client.request({ method: 'GET', path: '/v1/accounts', apiVersion: '2025-12-18' });
    expect(mock.requests[0].headers['x-api-version']).toBe('2025-12-18');
    expect(mock.requests[0].headers['svc-api-version']).toBeUndefined();
  });

  it('passes a well-formed traceparent through and drops a malformed one', async () => {
    const mock = open();
    mock.on('GET', '/v1/accounts', () => ({ status: 200, body: { data: [] } }), 2);
    await mock.client.request({ method: 'GET', path: '/v1/accounts', apiVersion: '2025-12-18', traceparent: TRACEPARENT });
    await mock.client.request({ method: 'GET', path: '/v1/accounts', apiVersion: '2025-12-18', traceparent: 'not-a-trace' });
    expect(mock.requests[0].headers.traceparent).toBe(TRACEPARENT);
    expect(mock.requests[1].headers.traceparent).toBeUndefined();
  });

  it('sends JSON bodies, Idempotency-Key, If-Match and query parameters (undefined ones left out)', async () => {
    const mock = open();
    mock.on('POST', /^\/v1\/demand\/accounts\/1001\/projects\?/, () => ({ status: 201, body: { id: 'p1' } }));
    await mock.client.request({
      method: 'POST',
      path: '/v1/demand/accounts/1001/projects',
      apiVersion: '2025-12-18',
      query: { a: 'x y', b: undefined, c: 3 },
      json: { name: 'n' },
      idempotencyKey: 'study:project:create',
      ifMatch: '"etag-1"',
    });
    const [req] = mock.requests;
    expect(req.path).toBe('/v1/demand/accounts/1001/projects?a=x+y&c=3');
    expect(req.body).toEqual({ name: 'n' });
    expect(req.headers['content-type']).toBe('application/json');
    expect(req.headers['idempotency-key']).toBe('study:project:create');
    expect(req.headers['if-match']).toBe('"etag-1"');
  });

  it('returns accepted non-2xx statuses instead of throwing', async () => {
    const mock = open();
    mock.on('GET', '/v1/demand/accounts/1001/projects/x', () => ({ status: 404, body: { object: 'not_found' } }));
    const res = await mock.client.request({ method: 'GET', path: '/v1/demand/accounts/1001/projects/x', apiVersion: '2025-12-18', acceptStatuses: [404] });
    expect(res.status).toBe(404);
  });

  it('keeps a base URL path prefix', async () => {
    const config = createApiConfig({ baseUrl: `${API_ORIGIN}/gateway/`, authUrl: `${AUTH_ORIGIN}/auth`, audience: 'a', clientId: 'c', clientSecret: 'secret-1' });
    const mock = open({ config });
    mock.on('GET', '/gateway/v1/accounts', () => ({ status: 200, body: { data: [] } }));
    await mock.client.request({ method: 'GET', path: '/v1/accounts', apiVersion: '2025-12-18' });
    expect(mock.requests[0].path).toBe('/gateway/v1/accounts');
  });

  it('refuses paths outside /v1', async () => {
    const mock = open();
    await expect(mock.client.request({ method: 'GET', path: '/_sandbox/state', apiVersion: '2025-12-18' })).rejects.toThrow(/start with \/v1\//);
  });
});
