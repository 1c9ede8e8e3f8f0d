// The operations endpoint of a worker or receiver: GET /metrics (Prometheus text 0.0.4) and GET /healthz
// (200 with JSON when every check passes, 503 otherwise). It binds 127.0.0.1 unless told otherwise.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { MetricsRegistry } from './metrics';

export const PROMETHEUS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

/** One health check: resolves with a short detail when up, throws (or resolves `ok: false`) when down. */
export type HealthCheck = () => Promise<{ ok: boolean; detail?: string }>;

export interface OpsServerOptions {
  registry: MetricsRegistry;
  /** Named checks /healthz runs, each bounded by `checkTimeoutMs`. */
  checks: Record<string, HealthCheck>;
  /** More exposition text appended to /metrics (e.g. the Temporal SDK's exporter, read at scrape time). */
  extraMetrics?: () => Promise<string>;
  port?: number;
  host?: string;
  /** Longest a health check may take before it counts as down. Default 2,000 ms. */
  checkTimeoutMs?: number;
}

export interface RunningOpsServer {
  /** `http://host:port` */
  url: string;
  port: number;
  close(): Promise<void>;
}

/** Thrown when the endpoint cannot listen (port taken, bad host). */
export class OpsServerStartError extends Error {
  override readonly name = 'OpsServerStartError';
}

export interface HealthReport {
  status: 'ok' | 'unavailable';
  checks: Record<string, { ok: boolean; detail?: string }>;
}

/** Runs every check side by side; a check that throws or takes too long is down, with its reason. */
export async function runHealthChecks(checks: Record<string, HealthCheck>, timeoutMs = 2_000): Promise<HealthReport> {
  const entries = await Promise.all(
    Object.entries(checks).map(async ([name, check]) => {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<{ ok: boolean; detail: string }>((resolve) => {
        timer = setTimeout(() => resolve({ ok: false, detail: `no answer within ${timeoutMs} ms` }), timeoutMs);
      });
      try {
        const result = await Promise.race([check(), timeout]);
        return [name, result] as const;
      } catch (error) {
        return [name, { ok: false, detail: error instanceof Error ? error.message : String(error) }] as const;
      } finally {
        clearTimeout(timer);
      }
    }),
  );
  const report = Object.fromEntries(entries);
  return { status: entries.every(([, r]) => r.ok) ? 'ok' : 'unavailable', checks: report };
}

export async function startOpsServer(options: OpsServerOptions): Promise<RunningOpsServer> {
  const host = options.host ?? '127.0.0.1';
  const server = http.createServer((req, res) => {
    const pathname = new URL(req.url ?? '/', 'http://localhost').pathname;
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain; charset=utf-8' }).end('method not allowed\n');
      return;
    }
    if (pathname === '/metrics') {
      void (async () => {
        let extra = '';
        try {
          extra = options.extraMetrics ? await options.extraMetrics() : '';
        } catch {
          // The SDK's exporter unreachable: studyflow's own metrics are still worth serving.
          extra = '';
        }
        const text = options.registry.render() + (extra && !extra.endsWith('\n') ? `${extra}\n` : extra);
        res.writeHead(200, { 'content-type': PROMETHEUS_CONTENT_TYPE, 'cache-control': 'no-store' }).end(req.method === 'HEAD' ? undefined : text);
      })();
      return;
    }
    if (pathname === '/healthz') {
      void runHealthChecks(options.checks, options.checkTimeoutMs).then((report) => {
        res
          .writeHead(report.status === 'ok' ? 200 : 503, { 'content-type': 'application/json', 'cache-control': 'no-store' })
          .end(req.method === 'HEAD' ? undefined : `${JSON.stringify(report)}\n`);
      });
      return;
    }
    res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('not found: /metrics and /healthz are served here\n');
  });
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException) => reject(new OpsServerStartError(`cannot serve /metrics and /healthz on ${host}:${options.port ?? 0}: ${error.code ?? error.message}`));
    server.once('error', onError);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', onError);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const shown = host.includes(':') ? `[${host}]` : host;
  let closed: Promise<void> | undefined;
  return {
    url: `http://${shown}:${port}`,
    port,
    close() {
      closed ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
        server.closeAllConnections();
      });
      return closed;
    },
  };
}

/** A port nothing listens on now at `host` (for a second exporter the process starts itself; a race is possible but rare). */
export async function freePort(host = '127.0.0.1'): Promise<number> {
  const probe = http.createServer();
  await new Promise<void>((resolve, reject) => {
    probe.once('error', reject);
    probe.listen(0, host, () => resolve());
  });
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}
