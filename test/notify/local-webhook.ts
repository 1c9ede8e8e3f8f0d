// A local incoming-webhook receiver for tests: node:http on 127.0.0.1 and a free port, recording every request,
// answering from a script (one status per request, the last one repeated), closed by the test.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedNotification {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: unknown;
}

export interface LocalWebhook {
  /** `http://127.0.0.1:<port>` plus the path given, e.g. a Slack-like `/services/T000/B000/secret-token`. */
  url: string;
  received: ReceivedNotification[];
  close(): Promise<void>;
}

export async function startLocalWebhook(
  statuses: number[] = [200],
  options: { path?: string; headers?: (n: number) => Record<string, string> } = {},
): Promise<LocalWebhook> {
  const received: ReceivedNotification[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        // kept as text
      }
      received.push({ path: req.url ?? '', headers: req.headers, body });
      const n = received.length;
      const status = statuses[Math.min(n - 1, statuses.length - 1)];
      res.writeHead(status, { 'content-type': 'text/plain', ...(options.headers?.(n) ?? {}) }).end(status < 300 ? 'ok' : 'no');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${options.path ?? '/services/T000/B000/secret-token'}`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
