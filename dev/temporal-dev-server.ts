import fs from 'node:fs';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import { installTemporalCli } from './temporal-cli.mjs';
import { SEARCH_ATTRIBUTE_TYPES } from '../workflows/search-attributes';
import { findFreePort } from './free-port';
import { spawnServer } from './server-process';

/** Options for a local Temporal dev server (the embedded default of `studyflow dev` and the tests). */
export interface DevServerOptions {
  /** SQLite file that keeps workflow state across restarts. */
  dbFile: string;
  /** gRPC port; 0 or undefined picks a free one. */
  port?: number;
  /** Web UI port; undefined picks port + 1000, `false` runs headless. */
  uiPort?: number | false;
  /** Bind address (default 127.0.0.1). */
  ip?: string;
  /** Remote codec endpoint the UI uses to decode payloads. */
  uiCodecEndpoint?: string;
  /** Stop the server when this process dies, even by SIGKILL (tests). */
  stopWithParent?: boolean;
  /** Where the server's own log goes (default: a file beside dbFile). */
  logFile?: string;
  /** How long to wait until the frontend answers. */
  startTimeoutMs?: number;
  /** Dynamic config values (default DEV_SERVER_DYNAMIC_CONFIG); `{}` runs Temporal's own defaults. */
  dynamicConfig?: Readonly<Record<string, number | string>>;
  /** SQLite pragmas (default SQLITE_PRAGMAS); `[]` runs the dev server's own. */
  sqlitePragmas?: readonly string[];
}

/**
 * Server settings for one process on one machine. The defaults suit a multi-host cluster: the
 * history service reads its transfer queue at most 20 times a second and never fires a timer
 * earlier than a second after it was created, which made every activity step of a workflow cost
 * about 100 ms and every sub-second timer about one second on the dev server (bench/engine-overhead.ts,
 * docs/benchmarks.md). Values are JSON, as `--dynamic-config-value` wants them.
 */
export const DEV_SERVER_DYNAMIC_CONFIG: Readonly<Record<string, number | string>> = Object.freeze({
  'history.transferProcessorMaxPollRPS': 1000,
  'history.timerProcessorMaxTimeShift': '10ms',
  // A task that finds a busy workflow waits for it (one history host: nobody else can take it)
  // instead of giving up after 500 ms and backing off for seconds: the study workflow is busy
  // while its children start and report.
  'history.cacheNonUserContextLockTimeout': '10s',
});

/**
 * SQLite in write-ahead-log mode, synced at checkpoints rather than on every commit: a killed server
 * loses nothing (the log is in the file), a lost machine may lose its last commits. Syncing every
 * commit made the server wait on the disk for each workflow step; a 50-target-group study took
 * 11.7 s to go live instead of 6.8 s (bench/, docs/benchmarks.md).
 */
export const SQLITE_PRAGMAS: readonly string[] = Object.freeze(['journal_mode=wal', 'synchronous=normal']);

export interface RunningDevServer {
  address: string;
  port: number;
  uiUrl?: string;
  dbFile: string;
  pid: number;
  stop(): Promise<void>;
}

export async function startTemporalDevServer(options: DevServerOptions): Promise<RunningDevServer> {
  const bin = installTemporalCli();
  const ip = options.ip ?? '127.0.0.1';
  const port = options.port || (await findFreePort(ip));
  fs.mkdirSync(path.dirname(options.dbFile), { recursive: true });
  const args = [
    'server', 'start-dev',
    '--db-filename', options.dbFile,
    '--ip', ip,
    '--port', String(port),
    '--log-level', 'warn',
    ...(options.sqlitePragmas ?? SQLITE_PRAGMAS).flatMap((pragma) => ['--sqlite-pragma', pragma]),
  ];
  let uiUrl: string | undefined;
  if (options.uiPort === false) {
    args.push('--headless');
  } else {
    const uiPort = options.uiPort ?? port + 1000;
    args.push('--ui-port', String(uiPort));
    uiUrl = `http://${ip}:${uiPort}`;
    if (options.uiCodecEndpoint) args.push('--ui-codec-endpoint', options.uiCodecEndpoint);
  }
  for (const [name, type] of Object.entries(SEARCH_ATTRIBUTE_TYPES)) {
    args.push('--search-attribute', `${name}=${type}`);
  }
  for (const [key, value] of Object.entries(options.dynamicConfig ?? DEV_SERVER_DYNAMIC_CONFIG)) {
    args.push('--dynamic-config-value', `${key}=${JSON.stringify(value)}`);
  }
  const logFile = options.logFile ?? `${options.dbFile}.log`;
  const log = fs.openSync(logFile, 'a');
  const child = spawnServer(bin, args, { log, stopWithParent: options.stopWithParent });
  fs.closeSync(log);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const address = `${ip}:${port}`;
  const deadline = Date.now() + (options.startTimeoutMs ?? 60_000);
  let lastError: unknown;
  for (;;) {
    if (child.exitCode !== null) {
      throw new Error(`temporal dev server exited with code ${child.exitCode}; see ${logFile}`);
    }
    try {
      const connection = await Connection.connect({ address, connectTimeout: 1000 });
      try {
        await connection.workflowService.getSystemInfo({});
      } finally {
        await connection.close();
      }
      break;
    } catch (error) {
      lastError = error;
      if (Date.now() > deadline) {
        child.kill('SIGTERM');
        throw new Error(`temporal dev server did not answer on ${address}: ${String(lastError)}; see ${logFile}`);
      }
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  return {
    address,
    port,
    uiUrl,
    dbFile: options.dbFile,
    pid: child.pid ?? -1,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
