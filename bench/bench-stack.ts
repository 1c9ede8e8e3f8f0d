// The stack the benchmarks run on: a private Temporal dev server, the sandbox API in its own
// process, and studyflow workers (as `studyflow worker` processes, or one in this process).
// Everything binds loopback and is stopped at the end.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import type { NativeConnection } from '@temporalio/worker';
import { devSandboxEnv } from '../api/http/api-environment';
import { connectClient } from '../temporal/temporal-connection';
import { connectWorker } from '../worker/worker-connection';
import { startStudyflowWorkers, type RunningWorkers } from '../worker/studyflow-worker';
import { startTemporalDevServer, type RunningDevServer } from '../dev/temporal-dev-server';
import { createWorkerActivities } from '../worker/worker-activities';
import type { Faults, RequestLogEntry } from '../sandbox';
import type { Client } from '@temporalio/client';
import { statusQuery, type StudyStatus } from '../workflows/messages';

export const REPO_ROOT = path.resolve(import.meta.dirname, '..');

/** The sandbox API running in a child process, controlled through its admin surface. */
export interface SandboxProcess {
  pid?: number;
  baseUrl: string;
  authUrl: string;
  /** The request log (no bodies, no tokens), oldest first; holds at most 10,000 entries. */
  requests(): Promise<RequestLogEntry[]>;
  /** Defaults overlaid by `faults`. */
  setFaults(faults: Partial<Faults>): Promise<void>;
  /** Empties state and the request log and restores default faults (tokens stay valid). */
  reset(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * The sandbox in its own Node process, without a state file: its CPU time and its event loop are
 * not this process's, as a remote API's would not be.
 */
export async function startSandboxProcess(faults: Partial<Faults> = {}, root = REPO_ROOT): Promise<SandboxProcess> {
  const entry = pathToFileURL(path.join(root, 'sandbox/index.ts')).href;
  const code = `const { startSandbox } = await import(${JSON.stringify(entry)});
const sandbox = await startSandbox({ quiet: true });
process.stdout.write(JSON.stringify({ baseUrl: sandbox.baseUrl, authUrl: sandbox.authUrl }) + '\\n');
process.on('SIGTERM', () => { sandbox.close().then(() => process.exit(0)); });`;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve);
    child.once('exit', (status) => reject(new Error(`sandbox process exited with ${status} before it listened`)));
  });
  const { baseUrl, authUrl } = JSON.parse(line) as { baseUrl: string; authUrl: string };
  const admin = async (method: 'GET' | 'POST', what: string, body?: unknown): Promise<unknown> => {
    const res = await fetch(`${baseUrl}/_sandbox/${what}`, {
      method,
      ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
    });
    if (!res.ok) throw new Error(`sandbox admin ${method} /_sandbox/${what} answered ${res.status}: ${await res.text()}`);
    return res.status === 204 ? undefined : await res.json();
  };
  const sandbox: SandboxProcess = {
    pid: child.pid,
    baseUrl,
    authUrl,
    requests: async () => ((await admin('GET', 'requests')) as { data: RequestLogEntry[] }).data,
    setFaults: async (f) => void (await admin('POST', 'faults', f)),
    reset: async () => void (await admin('POST', 'reset')),
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
  await sandbox.setFaults(faults);
  return sandbox;
}

export interface BenchStackOptions {
  faults: Partial<Faults>;
  /** API activity starts per second across all workers (STUDYFLOW_API_RATE_LIMIT); studyflow's default is 20. */
  apiRatePerSecond?: number;
  /** Run one worker in this process (default true); false: the benchmark spawns `studyflow worker` processes. */
  inProcessWorker?: boolean;
  /**
   * The studyflow checkout whose sandbox runs and whose `studyflow worker` processes spawnWorker starts (built,
   * with its node_modules); default this one. Lets one benchmark run compare two versions of studyflow.
   */
  root?: string;
}

export interface BenchStack {
  dir: string;
  temporal: RunningDevServer;
  sandbox: SandboxProcess;
  client: Awaited<ReturnType<typeof connectClient>>['client'];
  /** The settings a CLI run or a worker process needs to reach this stack. */
  env: Record<string, string>;
  /** Starts a `studyflow worker` process; resolves once it polls its task queues. */
  spawnWorker(): Promise<ChildProcess>;
  /** Resolves once the sandbox has logged no call for `quietMs` (at most `maxMs`). */
  waitForQuietApi(quietMs?: number, maxMs?: number): Promise<void>;
  stop(): Promise<void>;
}

/** How long a worker process may take to bundle the workflows and start polling. */
const WORKER_START_TIMEOUT_MS = 120_000;

export async function startBenchStack(options: BenchStackOptions): Promise<BenchStack> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'studyflow-bench-'));
  const cleanups: (() => Promise<void>)[] = [async () => fs.rmSync(dir, { recursive: true, force: true })];
  const stop = async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
  };
  try {
    const temporal = await startTemporalDevServer({ dbFile: path.join(dir, 'temporal.sqlite'), uiPort: false, stopWithParent: true });
    cleanups.push(() => temporal.stop());
    const root = options.root ?? REPO_ROOT;
    const sandbox = await startSandboxProcess(options.faults, root);
    cleanups.push(() => sandbox.stop());
    const env: Record<string, string> = {
      ...devSandboxEnv(sandbox.baseUrl, sandbox.authUrl),
      TEMPORAL_ADDRESS: temporal.address,
      TEMPORAL_NAMESPACE: 'default',
      STUDYFLOW_TASK_QUEUE: `bench-${process.pid}`,
      STUDYFLOW_BLOB_DIR: path.join(dir, 'blobs'),
      STUDYFLOW_WEBHOOK_SECRETS_FILE: path.join(dir, 'secrets', 'webhooks.json'),
      STUDYFLOW_WATCH_INTERVAL_MS: '600000',
      NO_COLOR: '1',
      ...(options.apiRatePerSecond ? { STUDYFLOW_API_RATE_LIMIT: String(options.apiRatePerSecond) } : {}),
    };
    const { client, connection } = await connectClient({ address: temporal.address, namespace: 'default', connectionOptions: {} }, env);
    cleanups.push(() => connection.close());

    if (options.inProcessWorker ?? true) {
      const workerConnection: NativeConnection = await connectWorker({ address: temporal.address, namespace: 'default', connectionOptions: {} });
      cleanups.push(() => workerConnection.close());
      const activities = createWorkerActivities(env);
      const workers: RunningWorkers = await startStudyflowWorkers({
        connection: workerConnection,
        namespace: 'default',
        activities: activities.activities,
        apiRatePerSecond: options.apiRatePerSecond,
        taskQueue: env.STUDYFLOW_TASK_QUEUE,
      });
      cleanups.push(() => workers.shutdown());
    }

    // Stopped from outside (run-all's time limit, Ctrl-C): take the servers and workers down too.
    const onSignal = (signal: NodeJS.Signals) => {
      void stop().finally(() => process.exit(signal === 'SIGINT' ? 130 : 143));
    };
    process.once('SIGTERM', onSignal);
    process.once('SIGINT', onSignal);
    cleanups.push(async () => {
      process.off('SIGTERM', onSignal);
      process.off('SIGINT', onSignal);
    });
    const children: ChildProcess[] = [];
    cleanups.push(async () => {
      for (const w of children) if (w.exitCode === null && w.signalCode === null) w.kill('SIGTERM');
      await Promise.all(children.map((w) => (w.exitCode === null && w.signalCode === null ? new Promise((r) => w.once('exit', r)) : undefined)));
    });
    return {
      dir,
      temporal,
      sandbox,
      client,
      env,
      async waitForQuietApi(quietMs = 1000, maxMs = 15_000) {
        // The log keeps its last 10,000 entries: its length alone stops changing once full.
        const marker = (log: RequestLogEntry[]) => `${log.length}@${log[log.length - 1]?.time ?? ''}`;
        const deadline = Date.now() + maxMs;
        let seen = marker(await sandbox.requests());
        let quietSince = Date.now();
        while (Date.now() < deadline && Date.now() - quietSince < quietMs) {
          await new Promise((r) => setTimeout(r, 200));
          const now = marker(await sandbox.requests());
          if (now !== seen) {
            seen = now;
            quietSince = Date.now();
          }
        }
      },
      async spawnWorker() {
        // STUDYFLOW_BENCH_WORKER_NODE_ARGS: Node flags for the worker processes, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof".
        const nodeArgs = (process.env.STUDYFLOW_BENCH_WORKER_NODE_ARGS ?? '').split(/\s+/).filter(Boolean);
        const child = spawn(process.execPath, [...nodeArgs, path.join(root, 'bin/studyflow.js'), 'worker'], {
          cwd: dir,
          env: { ...process.env, ...env },
          stdio: ['ignore', 'ignore', 'pipe'],
        });
        children.push(child);
        const tail: string[] = [];
        const lines = createInterface({ input: child.stderr! });
        await new Promise<void>((resolve, reject) => {
          const timer = setTimeout(() => reject(new Error(`studyflow worker did not start polling within ${WORKER_START_TIMEOUT_MS / 1000} s`)), WORKER_START_TIMEOUT_MS);
          lines.on('line', (line) => {
            tail.push(line);
            if (tail.length > 40) tail.shift();
            if (line.includes('worker polling')) {
              clearTimeout(timer);
              resolve();
            }
          });
          child.once('exit', (status) => {
            clearTimeout(timer);
            reject(new Error(`studyflow worker exited with ${status}:\n${tail.join('\n')}`));
          });
        });
        // Later lines are warnings of a running worker: keep them visible, one prefix per line.
        lines.removeAllListeners('line');
        lines.on('line', (line) => process.stderr.write(`[worker ${child.pid}] ${line}\n`));
        return child;
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/**
 * How the benchmark studies poll their jobs (`timing` in the study file): every 50 ms, as the hand-written
 * client (bench/hand-written-client.mjs) does, so both see a job done equally soon. A buyer who wants target
 * groups live soon polls this often; the API economy tables count every poll.
 */
export const BENCH_JOB_POLL_MS = { initial: 50, max: 50 } as const;

/** How a benchmark study differs from the default one ({@link benchStudyYaml}). */
export interface BenchStudyOptions {
  /** The project's name before the study id (default `Benchmark`). */
  projectName?: string;
  /** The i-th target group's filling goal (default 50 to 56). */
  goal?: (i: number) => number;
  /** The `launch` block of `defaults` (default `{ mode: auto }`). */
  launch?: string;
  /** The job polling (default BENCH_JOB_POLL_MS), in milliseconds. */
  poll?: { initial: number; max: number };
}

/** A duration in the study file's form: whole seconds as `Ns`, anything else as `Nms`. */
const durationText = (ms: number) => (ms >= 1000 && ms % 1000 === 0 ? `${ms / 1000}s` : `${ms}ms`);

/** A study with `n` target groups across locales, auto launch, no uploads, polls as BENCH_JOB_POLL_MS (unless `options` say otherwise). */
export function benchStudyYaml(studyId: string, n: number, options: BenchStudyOptions = {}): string {
  const { projectName = 'Benchmark', goal = (i: number) => 50 + (i % 7), launch = '{ mode: auto }', poll = BENCH_JOB_POLL_MS } = options;
  const locales = ['en_US', 'en_GB', 'de_DE', 'fr_FR', 'es_ES', 'it_IT'];
  const tgs = Array.from({ length: n }, (_, i) => {
    const key = `tg_${String(i).padStart(3, '0')}`;
    return `  ${key}:
    locale: ${locales[i % locales.length]}
    live_url: https://survey.example.com/s/${studyId}/${key}?rid=[%RID%]
    filling_goal: ${goal(i)}
`;
  }).join('');
  return `format: studyflow/v1
study: ${studyId}
account: "1001"
business_unit: "2001"
project:
  name: ${projectName} ${studyId}
  project_customer_reference_number: PO-${studyId}
defaults:
  expected_incidence_rate: 0.6
  expected_length_of_interview_minutes: 8
  project_manager_id: "6f1c2a4e-3001-4c8e-9d2b-000000003001"
  collects_pii: false
  launch: ${launch}
  timing: { job_poll_initial: ${durationText(poll.initial)}, job_poll_max: ${durationText(poll.max)} }
target_groups:
${tgs}`;
}

export function writeResult(name: string, result: unknown): string {
  const dir = path.join(REPO_ROOT, 'bench', 'out');
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${name}.json`);
  fs.writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
  return file;
}

/** The machine a result was measured on. */
export interface MachineFacts {
  cpus: number;
  cpuModel: string;
  memoryGiB: number;
  node: string;
  platform: string;
}

export function machineFacts(): MachineFacts {
  return {
    cpus: os.cpus().length,
    cpuModel: os.cpus()[0]?.model ?? 'unknown',
    memoryGiB: Math.round(os.totalmem() / 2 ** 30),
    node: process.version,
    platform: `${os.platform()} ${os.release()}`,
  };
}

/**
 * The study workflow's status query, asked again while the Temporal server answers UNAVAILABLE (gRPC 14).
 * Right after a big apply the dev server's SQLite can refuse reads for longer than the client's own retries
 * (about 20 s) while it records the new child workflows; a benchmark must not lose its figures to that.
 * Each retry is printed; after `limitMs` the last error is thrown.
 */
export async function queryStudyStatus(client: Client, workflowId: string, limitMs = 60_000): Promise<StudyStatus> {
  const started = Date.now();
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await client.workflow.getHandle(workflowId).query(statusQuery);
    } catch (error) {
      const code = (error as { cause?: { code?: unknown } }).cause?.code;
      if (code !== 14 || Date.now() - started > limitMs) throw error;
      process.stderr.write(`status query of ${workflowId}: server unavailable (${(error as Error).message}); attempt ${attempt}, ${Math.round((Date.now() - started) / 1000)} s so far\n`);
      await new Promise((r) => setTimeout(r, 2000));
    }
  }
}

/** 1, 5 and 15 minute load averages, rounded to 0.01. */
export function loadAverage(): [number, number, number] {
  const [a, b, c] = os.loadavg().map((v) => Math.round(v * 100) / 100);
  return [a, b, c];
}

/** What every result records besides its figures: the machine, the time, and the load when it started. */
export interface RunContext {
  machine: MachineFacts;
  /** ISO timestamp of the start of the benchmark. */
  startedAt: string;
  /** os.loadavg() when the benchmark started: other engineers share this machine. */
  loadAverageAtStart: [number, number, number];
}

export function runContext(): RunContext {
  return { machine: machineFacts(), startedAt: new Date().toISOString(), loadAverageAtStart: loadAverage() };
}

/** `--name value` from the command line, or the fallback. */
export function stringArg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] !== undefined ? process.argv[i + 1] : fallback;
}

/** A numeric `--name value`; a non-number is an error, not a silent fallback. */
export function numberArg(name: string, fallback: number): number {
  const raw = stringArg(name, String(fallback));
  const value = Number(raw);
  if (!Number.isFinite(value)) throw new Error(`--${name} must be a number, got "${raw}"`);
  return value;
}
