// A tiny real HTTP server on 127.0.0.1:0 for streaming tests: token endpoint plus a recording catch-all.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: Buffer;
  /** Bytes that had arrived when the handler started reading (after any pause). */
  firstChunkAt: number;
}

export interface LoopbackApi {
  baseUrl: string;
  authUrl: string;
  received: ReceivedRequest[];
  /** Answer for /v1 calls; default 201 {job_id}. */
  respond: (req: ReceivedRequest, res: ServerResponse) => void;
  /** Called once the request headers arrived, before the body is read; may delay reading. */
  beforeBody: (req: IncomingMessage) => Promise<void>;
  close(): Promise<void>;
}

export async function startLoopbackApi(): Promise<LoopbackApi> {
  let tokens = 0;
  const api: LoopbackApi = {
    baseUrl: '',
    authUrl: '',
    received: [],
    respond: (_req, res) => {
      res.writeHead(201, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ job_id: `job-${api.received.length}` }));
    },
    beforeBody: async () => undefined,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  const server: Server = createServer((req, res) => {
    (async () => {
      if (req.url === '/auth/oauth/token') {
        req.resume();
        tokens += 1;
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ access_token: `loopback-token-${tokens}`, expires_in: 86400, token_type: 'Bearer' }));
        return;
      }
      await api.beforeBody(req);
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const received: ReceivedRequest = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks), firstChunkAt: Date.now() };
      api.received.push(received);
      api.respond(received, res);
    })().catch(() => {
      // The client aborted mid-body (integrity tests): nothing to answer.
      res.destroy();
    });
  });
  server.keepAliveTimeout = 1000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  api.baseUrl = `http://127.0.0.1:${port}`;
  api.authUrl = `http://127.0.0.1:${port}/auth`;
  return api;
}
