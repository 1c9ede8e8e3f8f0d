import { DefaultLogger, Runtime, type LogEntry, type LogLevel } from '@temporalio/worker';

const LEVELS: LogLevel[] = ['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR'];
let installed = false;

/** Options of the runtime beyond logging. */
export interface RuntimeTelemetry {
  /** `host:port` where the SDK serves its own Prometheus metrics (worker/sdk-metrics.ts reads them from there). */
  prometheusBindAddress?: string;
}

/**
 * Installs the Temporal runtime once per process with a compact logger: one line per entry
 * (time, level, message, workflow / activity and the error's message), no stack traces unless
 * STUDYFLOW_LOG_LEVEL is DEBUG or TRACE. Level from STUDYFLOW_LOG_LEVEL (default WARN). With
 * `telemetry.prometheusBindAddress`, the SDK's metrics are exported there. True when this call installed
 * the runtime (false: it was installed or instantiated before, and keeps its own settings).
 */
export function installRuntimeLogging(env: NodeJS.ProcessEnv | Record<string, string | undefined> = process.env, telemetry: RuntimeTelemetry = {}): boolean {
  if (installed) return false;
  installed = true;
  const requested = (env.STUDYFLOW_LOG_LEVEL ?? 'WARN').toUpperCase() as LogLevel;
  const level = LEVELS.includes(requested) ? requested : 'WARN';
  const verbose = level === 'DEBUG' || level === 'TRACE';
  const logger = new DefaultLogger(level, (entry: LogEntry) => {
    // studyflow splits workflows and API activities over two workers on purpose.
    if (/^No (activities|workflows|Nexus services) registered/.test(entry.message)) return;
    process.stderr.write(`${formatLogEntry(entry, verbose)}\n`);
  });
  const metrics = telemetry.prometheusBindAddress ? { metrics: { prometheus: { bindAddress: telemetry.prometheusBindAddress } } } : {};
  try {
    Runtime.install({ logger, telemetryOptions: metrics });
    return true;
  } catch {
    // Already installed by the embedding program: keep its logger.
    return false;
  }
}

export function formatLogEntry(entry: LogEntry, verbose: boolean): string {
  const meta = entry.meta ?? {};
  const time = new Date(Number(entry.timestampNanos / 1_000_000n)).toISOString();
  const parts = [`${time} ${entry.level.padEnd(5)} ${entry.message}`];
  const where = [meta.workflowId, meta.activityType ?? meta.workflowType, meta.attempt ? `attempt ${String(meta.attempt)}` : undefined].filter(Boolean);
  if (where.length) parts.push(`[${where.join(' ')}]`);
  const error = meta.error as { message?: string; stack?: string } | undefined;
  if (error?.message) parts.push(`: ${error.message}`);
  if (verbose && error?.stack) parts.push(`\n${error.stack}`);
  return parts.join(' ');
}
