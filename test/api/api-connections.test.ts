// How many connections the process-wide client opens to the API: at most STUDYFLOW_API_MAX_CONNECTIONS
// (default 512), with the calls beyond it waiting for a free one rather than failing.
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiConfig } from '../../api/http/api-config';
import { createDemandApiClient } from '../../api/http/demand-api-client';
import { closeSharedApiDispatchers, DEFAULT_MAX_CONNECTIONS } from '../../api/http/shared-dispatcher';
import { createWorkerActivities } from '../../worker/worker-activities';

let baseUrl = '';
let sockets = 0;
let inFlight = 0;
let mostInFlight = 0;
/** Held answers: released together once `hold` calls are in flight, or by `releaseAll`. */
const held: ServerResponse[] = [];
let hold = 0;
const server = createServer((req, res) => {
  req.resume();
  if (req.url === '/auth/oauth/token') {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ access_token: 'loopback-token', expires_in: 86400, token_type: 'Bearer' }));
    return;
  }
  inFlight += 1;
  mostInFlight = Math.max(mostInFlight, inFlight);
  const answer = () => {
    inFlight -= 1;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"data":[]}');
  };
  held.push(Object.assign(res, { answer }));
  if (held.length >= hold) releaseAll();
});
function releaseAll(): void {
  for (const res of held.splice(0)) (res as ServerResponse & { answer: () => void }).answer();
}
server.on('connection', () => (sockets += 1));

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await closeSharedApiDispatchers();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

async function burst(calls: number, maxConnections?: number): Promise<{ sockets: number; mostInFlight: number }> {
  // Agents are shared per setting: close them so each burst opens its connections afresh.
  await closeSharedApiDispatchers();
  sockets = 0;
  mostInFlight = 0;
  const config = createApiConfig({ baseUrl, authUrl: `${baseUrl}/auth`, audience: 'a', clientId: 'c', clientSecret: 'secret-connections' });
  const client = createDemandApiClient({ config, maxConnections });
  // Fewer connections than calls: the server answers once it holds all it can get, then the rest.
  hold = Math.min(calls, maxConnections ?? DEFAULT_MAX_CONNECTIONS);
  const answers = await Promise.all(Array.from({ length: calls }, () => client.request({ method: 'GET', path: '/v1/accounts', apiVersion: '2025-12-18' })));
  expect(answers.every((a) => a.status === 200)).toBe(true);
  // The token request has its own connection (to the auth URL's origin, the same here).
  return { sockets, mostInFlight };
}

describe('connections to the API', () => {
  it('sends 40 calls at once over 40 connections by default', async () => {
    const seen = await burst(40);
    expect(seen.mostInFlight).toBe(40);
    expect(seen.sockets).toBeGreaterThanOrEqual(40);
  });

  it('opens no more than maxConnections; the other calls wait for a free one and all succeed', async () => {
    const seen = await burst(12, 3);
    expect(seen.mostInFlight).toBe(3);
    expect(seen.sockets).toBeLessThanOrEqual(3);
  });

  it('refuses a STUDYFLOW_API_MAX_CONNECTIONS that is not a positive whole number', () => {
    for (const bad of ['0', '-4', '2.5', 'many']) {
      expect(() => createWorkerActivities({ STUDYFLOW_API_MAX_CONNECTIONS: bad })).toThrow(`STUDYFLOW_API_MAX_CONNECTIONS must be a positive whole number, got "${bad}"`);
    }
  });
});
