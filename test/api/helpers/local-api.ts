// A tiny Demand API on 127.0.0.1 for the API client's tests: it serves the token, answers /v1 calls from routes the
// test sets (JSON, text, or a body written chunk by chunk), and records each call with its raw body and whether it
// came chunked. Real sockets (not a MockAgent) so that streamed request and answer bodies are really streamed.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent } from 'undici';
import { createApiConfig } from '../../../api/http/api-config';
import { createDemandApiClient, type DemandApiClient } from '../../../api/http/demand-api-client';
import { apiCaller, type ApiCaller } from '../../../api/operations/caller';
import type { ApiProfileName } from '../../../shared/api-profile';

export interface LocalCall {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  body: Buffer;
}

export interface LocalReply {
  status: number;
  json?: unknown;
  text?: string;
  /** Written one chunk at a time, each after the previous promise (if any) resolved. */
  chunks?: () => AsyncIterable<string>;
  headers?: Record<string, string>;
}

type Route = { method: string; path: string | RegExp; reply: (call: LocalCall) => LocalReply | Promise<LocalReply>; times: number };

export interface LocalApi {
  baseUrl: string;
  calls: LocalCall[];
  tokenRequests: number;
  /** Answers the next `times` (default 1) calls matching method and path (a string: the path without query). */
  on(method: string, path: string | RegExp, reply: (call: LocalCall) => LocalReply | Promise<LocalReply>, times?: number): void;
  /** Called as body bytes of a request arrive (for tests that prove a body is streamed). */
  onBodyChunk?: (bytes: number) => void;
  client(profile?: ApiProfileName): DemandApiClient;
  caller(options?: { profile?: ApiProfileName; progress?: (p: Record<string, unknown>) => void }): ApiCaller;
  /** Routes not used up (a test ends with none). */
  pending(): string[];
  close(): Promise<void>;
}

export const ACCOUNT = '1001';
export const P = `/v1/demand/accounts/${ACCOUNT}`;

export async function startLocalApi(): Promise<LocalApi> {
  const routes: Route[] = [];
  const agent = new Agent({ keepAliveTimeout: 1000 });
  const api: LocalApi = {
    baseUrl: '',
    calls: [],
    tokenRequests: 0,
    on: (method, path, reply, times = 1) => void routes.push({ method, path, reply, times }),
    client: (profile = 'sandbox') =>
      createDemandApiClient({
        config: createApiConfig({ baseUrl: api.baseUrl, authUrl: `${api.baseUrl}/auth`, audience: 'https://demand-api.test', clientId: 'local', clientSecret: 'local-secret-value', profile }),
        dispatcher: agent,
      }),
    caller: (options = {}) => apiCaller(api.client(options.profile), { accountId: ACCOUNT, apiVersion: '2025-12-18', progress: options.progress }),
    pending: () => routes.filter((r) => r.times > 0).map((r) => `${r.method} ${String(r.path)}`),
    close: async () => {
      await agent.close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };

  const answer = async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) {
      chunks.push(chunk as Buffer);
      api.onBodyChunk?.((chunk as Buffer).length);
    }
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (url.pathname === '/auth/oauth/token') {
      api.tokenRequests += 1;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ access_token: `local-token-${api.tokenRequests}`, expires_in: 86400, token_type: 'Bearer' }));
      return;
    }
    const call: LocalCall = { method: req.method ?? 'GET', path: url.pathname, query: url.searchParams, headers: req.headers, body: Buffer.concat(chunks) };
    api.calls.push(call);
    const route = routes.find((r) => r.times > 0 && r.method === call.method && (typeof r.path === 'string' ? r.path === call.path : r.path.test(`${call.path}${url.search}`)));
    if (!route) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ object: 'not_found_error', detail: `no route for ${call.method} ${call.path}` }));
      return;
    }
    route.times -= 1;
    const reply = await route.reply(call);
    if (reply.chunks) {
      res.writeHead(reply.status, { 'content-type': 'text/csv', ...reply.headers });
      for await (const chunk of reply.chunks()) res.write(chunk);
      res.end();
      return;
    }
    const json = reply.json !== undefined;
    res.writeHead(reply.status, { 'content-type': json ? 'application/json' : 'text/csv', ...reply.headers });
    res.end(json ? JSON.stringify(reply.json) : (reply.text ?? ''));
  };
  const server = createServer((req, res) => {
    answer(req, res).catch((error: unknown) => {
      // A body broken off mid-answer (a test's connection lost): the socket goes, as a real one would.
      if (res.headersSent) return void res.destroy();
      res.writeHead(500, { 'content-type': 'text/plain' });
      res.end(String(error));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  api.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return api;
}

/** The reference's error object. */
export const apiError = (object: string, detail = `${object} happened`) => ({ id: 'err-1', object, detail });
