import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { installVersitygw } from './versitygw.mjs';
import { findFreePort } from './free-port';
import { spawnServer } from './server-process';

/** Options of a local S3 server (versitygw over a directory: `studyflow dev --blob s3` and the tests). */
export interface S3DevServerOptions {
  /** The directory versitygw serves (posix backend): each subdirectory is a bucket. */
  rootDir: string;
  /** Buckets to create before the server starts (directories under rootDir). Default ["studyflow"]. */
  buckets?: string[];
  /** Port on 127.0.0.1; 0 or undefined picks a free one. */
  port?: number;
  /** Root access key id and secret; random ones by default. */
  accessKeyId?: string;
  secretAccessKey?: string;
  /** Stop the server when this process dies, even by SIGKILL (tests). */
  stopWithParent?: boolean;
  /** Where the server's output goes (default `<rootDir>.log`). */
  logFile?: string;
  startTimeoutMs?: number;
  /** Working directory and environment of the server process (default: this process's). */
  cwd?: string;
  env?: Record<string, string>;
}

export interface RunningS3DevServer {
  /** `http://127.0.0.1:<port>`: AWS_ENDPOINT_URL for clients. */
  endpoint: string;
  accessKeyId: string;
  secretAccessKey: string;
  region: string;
  pid: number;
  /** The AWS_* variables a client of this server needs. */
  env: Record<string, string>;
  stop(): Promise<void>;
}

const HEALTH_PATH = '/_health';

/** Starts versitygw (built by dev/versitygw.mjs on first use) on loopback and waits until it answers. */
export async function startS3DevServer(options: S3DevServerOptions): Promise<RunningS3DevServer> {
  const bin = installVersitygw();
  const port = options.port || (await findFreePort());
  const accessKeyId = options.accessKeyId ?? `studyflow${randomBytes(4).toString('hex')}`;
  const secretAccessKey = options.secretAccessKey ?? randomBytes(24).toString('base64url');
  const region = 'us-east-1';
  fs.mkdirSync(options.rootDir, { recursive: true, mode: 0o700 });
  for (const bucket of options.buckets ?? ['studyflow']) fs.mkdirSync(path.join(options.rootDir, bucket), { recursive: true, mode: 0o700 });
  const args = ['--port', `127.0.0.1:${port}`, '--quiet', '--health', HEALTH_PATH, '--region', region, 'posix', options.rootDir];
  // The credential goes by environment, not argv (ps shows argv to every user of the machine).
  const env = { ...(options.env ?? process.env), ROOT_ACCESS_KEY_ID: accessKeyId, ROOT_SECRET_ACCESS_KEY: secretAccessKey };
  const logFile = options.logFile ?? `${options.rootDir.replace(/\/+$/, '')}.log`;
  const log = fs.openSync(logFile, 'a');
  const child = spawnServer(bin, args, { log, env, cwd: options.cwd, stopWithParent: options.stopWithParent });
  fs.closeSync(log);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const endpoint = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + (options.startTimeoutMs ?? 30_000);
  for (;;) {
    if (child.exitCode !== null) throw new Error(`versitygw exited with code ${child.exitCode}; see ${logFile}`);
    try {
      const res = await fetch(`${endpoint}${HEALTH_PATH}`);
      if (res.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGTERM');
      throw new Error(`versitygw did not answer on ${endpoint}; see ${logFile}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    endpoint,
    accessKeyId,
    secretAccessKey,
    region,
    pid: child.pid ?? -1,
    env: { AWS_ENDPOINT_URL: endpoint, AWS_REGION: region, AWS_ACCESS_KEY_ID: accessKeyId, AWS_SECRET_ACCESS_KEY: secretAccessKey },
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
