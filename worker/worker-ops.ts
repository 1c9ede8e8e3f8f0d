// The worker's operations endpoint: /metrics (studyflow's counters and, proxied, the Temporal SDK's own
// exporter) and /healthz (Temporal answers, and both workers poll).
import { freePort, startOpsServer, type HealthCheck, type RunningOpsServer } from '../telemetry/ops-server';
import { createStudyflowMetrics, type StudyflowMetrics } from '../telemetry/studyflow-metrics';
import { installRuntimeLogging } from './runtime-logging';

/** What /healthz asks of Temporal: any cheap call the frontend answers (the same one `--check` makes first). */
export interface TemporalPing {
  workflowService: { getSystemInfo(request: object): Promise<unknown> };
}

export interface WorkerOpsOptions {
  metrics: StudyflowMetrics;
  port: number;
  host?: string;
  /** The worker's Temporal connection. */
  connection: TemporalPing;
  /** Whether the workflow and API workers still run (false once either stopped or failed). */
  workersRunning: () => boolean;
  /** `host:port` of the SDK's Prometheus exporter, when the runtime was installed with one. */
  sdkMetricsAddress?: string;
  /** Runs before each scrape renders (the target groups by phase, recounted when stale); its failure is its own to report. */
  beforeScrape?: () => Promise<void>;
}

/** Reads the SDK's exporter at scrape time; its families start `temporal_`, studyflow's `studyflow_`. */
export function sdkMetricsReader(address: string, timeoutMs = 2_000): () => Promise<string> {
  return async () => {
    const res = await fetch(`http://${address}/metrics`, { signal: AbortSignal.timeout(timeoutMs) });
    if (!res.ok) throw new Error(`the Temporal SDK's exporter answered ${res.status}`);
    return await res.text();
  };
}

/** What a scrape does before studyflow's registry renders: the collectors' refresh, then the SDK's text. */
function scrapeExtras(options: WorkerOpsOptions): (() => Promise<string>) | undefined {
  const sdk = options.sdkMetricsAddress ? sdkMetricsReader(options.sdkMetricsAddress) : undefined;
  const before = options.beforeScrape;
  if (!before) return sdk;
  return async () => {
    await before().catch(() => undefined);
    return sdk ? await sdk() : '';
  };
}

export function temporalHealthCheck(connection: TemporalPing): HealthCheck {
  return async () => {
    await connection.workflowService.getSystemInfo({});
    return { ok: true };
  };
}

export function startWorkerOps(options: WorkerOpsOptions): Promise<RunningOpsServer> {
  return startOpsServer({
    registry: options.metrics.registry,
    port: options.port,
    host: options.host,
    extraMetrics: scrapeExtras(options),
    checks: {
      temporal: temporalHealthCheck(options.connection),
      workers: () => Promise.resolve(options.workersRunning() ? { ok: true, detail: 'polling' } : { ok: false, detail: 'the workers have stopped' }),
    },
  });
}

export interface WorkerTelemetry {
  metrics: StudyflowMetrics;
  /** Where the SDK's exporter listens, when this process installed the runtime with it. */
  sdkMetricsAddress?: string;
}

/**
 * Metrics of a worker process, set up before its Temporal connection: with `withSdkExporter`, the runtime is
 * installed with the SDK's Prometheus exporter on a free loopback port, which /metrics reads through. (A runtime
 * installed earlier in the process, e.g. by an embedding program, keeps its settings: then only studyflow's own
 * metrics are served.)
 */
export async function prepareWorkerTelemetry(env: NodeJS.ProcessEnv | Record<string, string | undefined>, withSdkExporter: boolean): Promise<WorkerTelemetry> {
  const metrics = createStudyflowMetrics();
  if (!withSdkExporter) return { metrics };
  const address = `127.0.0.1:${await freePort()}`;
  return { metrics, sdkMetricsAddress: installRuntimeLogging(env, { prometheusBindAddress: address }) ? address : undefined };
}
