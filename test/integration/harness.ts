import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import type { Client, Connection } from '@temporalio/client';
import { startSandbox, type RunningSandbox } from '../../sandbox';
import { testProfile, testSandboxOptions } from '../helpers/test-profile';
import { inject } from 'vitest';
import { main } from '../../cli/main';
import { startEmbeddedStack, type EmbeddedStack } from '../../dev/embedded-stack';
import { connectClient } from '../../temporal/temporal-connection';
import type { StudyStatus } from '../../workflows/messages';
import { statusQuery, studyWorkflowId } from '../../workflows/messages';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { quickLaunchFields } from '../helpers/study-yaml';

export const REPO_ROOT = path.resolve(import.meta.dirname, '../..');

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface TestStack {
  stack: EmbeddedStack;
  client: Client;
  connection: Connection;
  taskQueue: string;
  dir: string;
  env: Record<string, string>;
  /** Runs `studyflow …` in this process against the stack. */
  cli(args: string[], extraEnv?: Record<string, string>): Promise<CliResult>;
  /** Starts `studyflow worker` as its own process (options: extra env, a stderr listener). */
  spawnWorker(options?: WorkerProcessOptions): ChildProcess;
  /**
   * Closes the sandbox (cutting open connections), waits `downForMs` (default 0) and starts it again
   * on the same port from the same state file; its request log starts empty. `stack.sandbox` is the
   * restarted one afterwards.
   */
  restartSandbox(options?: { downForMs?: number }): Promise<RunningSandbox>;
  status(accountId: string, studyId: string): Promise<StudyStatus>;
  /**
   * Every history of this file's workflows as JSON text; asserts none contains a forbidden string
   * (the client secret, bearer tokens, respondent IDs) and, with STUDYFLOW_RECORD_HISTORIES=1,
   * writes them to test/replay/histories/ for the replay test.
   */
  scanHistories(forbidden: string[], recordAs?: string): Promise<{ workflows: number; bytes: number }>;
  stop(): Promise<void>;
}

/** How a test starts a `studyflow worker` process. */
export interface WorkerProcessOptions {
  /** Variables over the stack's environment (e.g. STUDYFLOW_API_RATE_LIMIT). */
  env?: Record<string, string>;
  /** Receives everything the worker writes to stderr (it is discarded otherwise). */
  onStderr?: (text: string) => void;
}

/** Runs `studyflow …` in this process with `env` (over process.env) and captured streams. */
export async function runCli(env: Record<string, string>, args: string[], extraEnv: Record<string, string> = {}): Promise<CliResult> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (c: Buffer) => (out += c.toString()));
  stderr.on('data', (c: Buffer) => (err += c.toString()));
  const code = await main(args, { stdout, stderr }, { ...process.env, ...env, ...extraEnv });
  return { code, stdout: out, stderr: err };
}

/** Starts `studyflow worker` as its own process in `cwd` with `env` (over process.env). */
export function spawnWorkerProcess(cwd: string, env: Record<string, string>, options: WorkerProcessOptions = {}): ChildProcess {
  const child = spawn(process.execPath, [path.join(REPO_ROOT, 'bin/studyflow.js'), 'worker'], {
    cwd,
    env: { ...process.env, ...env, ...options.env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const onStderr = options.onStderr;
  child.stderr?.on('data', onStderr ? (c: Buffer) => onStderr(c.toString()) : () => undefined);
  return child;
}

/**
 * Every history of the workflows on `taskQueue` as JSON text; throws when one contains a forbidden
 * string, a bearer token or a JWT. With STUDYFLOW_RECORD_HISTORIES=1 and `recordAs`, writes them to
 * test/replay/histories/ for the replay test.
 */
export async function scanWorkflowHistories(
  client: Client,
  taskQueue: string,
  forbidden: string[],
  recordAs?: string,
): Promise<{ workflows: number; bytes: number }> {
  let workflows = 0;
  let bytes = 0;
  const problems: string[] = [];
  for await (const wf of client.workflow.list({ query: `TaskQueue = "${taskQueue}"` })) {
    const history = await client.workflow.getHandle(wf.workflowId, wf.runId).fetchHistory();
    const json = historyToJSON(history);
    const text = historyText(json);
    workflows += 1;
    bytes += text.length;
    for (const needle of forbidden) {
      if (needle && text.includes(needle)) problems.push(`${wf.workflowId}: contains a forbidden value (${needle.slice(0, 4)}…)`);
    }
    if (/Bearer\s+[A-Za-z0-9._-]{16,}/.test(text)) problems.push(`${wf.workflowId}: contains a bearer token`);
    if (/eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}/.test(text)) problems.push(`${wf.workflowId}: contains a JWT`);
    if (recordAs && process.env.STUDYFLOW_RECORD_HISTORIES === '1') {
      const dir = path.join(REPO_ROOT, 'test/replay/histories');
      fs.mkdirSync(dir, { recursive: true });
      const name = `${recordAs}--${wf.workflowId.replace(/[^a-z0-9-]+/gi, '_')}.json`;
      fs.writeFileSync(path.join(dir, name), json);
    }
  }
  if (problems.length) throw new Error(`history scan failed:\n${problems.join('\n')}`);
  return { workflows, bytes };
}

/**
 * The embedded stack on the suite's Temporal dev server: a fresh sandbox, a task queue of this
 * test file's own (so no other file's workflows reach it), and a worker in this process unless
 * `inProcessWorker` is false.
 */
export async function startTestStack(
  name: string,
  options: { inProcessWorker?: boolean; encryptPayloads?: boolean; blob?: 'local' | 's3'; apiProfile?: 'sandbox' | 'cint' } = {},
): Promise<TestStack> {
  const temporalAddress = inject('temporalAddress');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `studyflow-${name}-`));
  const taskQueue = `test-${name}-${Math.random().toString(36).slice(2, 8)}`;
  const stack = await startEmbeddedStack({
    stateDir: dir,
    temporalAddress,
    taskQueue,
    sandboxPort: 0,
    inProcessWorker: options.inProcessWorker,
    encryptPayloads: options.encryptPayloads,
    blob: options.blob,
    stopWithParent: options.blob === 's3' ? true : undefined,
    // STUDYFLOW_TEST_PROFILE=cint: the sandbox speaks the reference, and worker, receiver and CLI use the cint profile
    // (a test of a spec-only feature names its profile).
    apiProfile: options.apiProfile ?? testProfile(),
  });
  const env = { ...stack.env, STUDYFLOW_WATCH_INTERVAL_MS: '30000', NO_COLOR: '1' };
  const { client, connection } = await connectClient({ address: temporalAddress, namespace: 'default', connectionOptions: {} }, env);
  const workers: ChildProcess[] = [];
  let restarted: RunningSandbox | undefined;
  return {
    stack,
    client,
    connection,
    taskQueue,
    dir,
    env,
    async cli(args, extraEnv = {}) {
      return await runCli(env, args, extraEnv);
    },
    spawnWorker(options) {
      const child = spawnWorkerProcess(dir, env, options);
      workers.push(child);
      return child;
    },
    async restartSandbox(options = {}) {
      const port = Number(new URL(stack.sandbox.baseUrl).port);
      await stack.sandbox.close();
      if (options.downForMs) await new Promise((r) => setTimeout(r, options.downForMs));
      stack.sandbox = await startSandbox({ port, stateFile: path.join(dir, 'sandbox-state.json'), quiet: true, ...testSandboxOptions() });
      restarted = stack.sandbox;
      return stack.sandbox;
    },
    async status(accountId, studyId) {
      return await client.workflow.getHandle(studyWorkflowId(accountId, studyId)).query(statusQuery);
    },
    async scanHistories(forbidden, recordAs) {
      return await scanWorkflowHistories(client, taskQueue, forbidden, recordAs);
    },
    async stop() {
      for (const w of workers) if (w.exitCode === null && w.signalCode === null) w.kill('SIGKILL');
      // End this file's workflows so the shared server stays quiet for the next file.
      for await (const wf of client.workflow.list({ query: `TaskQueue = "${taskQueue}" AND ExecutionStatus = "Running"` })) {
        await client.workflow.getHandle(wf.workflowId, wf.runId).terminate('test finished').catch(() => undefined);
      }
      await connection.close();
      await stack.stop();
      await restarted?.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Every payload ({metadata, data}, both base64 in the JSON form) anywhere in a history's JSON. */
export function historyPayloads(json: string): { metadata: Record<string, string>; data: string }[] {
  const payloads: { metadata: Record<string, string>; data: string }[] = [];
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) node.forEach(walk);
    else if (node && typeof node === 'object') {
      const record = node as Record<string, unknown>;
      if (typeof record.data === 'string' && record.metadata && typeof record.metadata === 'object') {
        payloads.push(record as { metadata: Record<string, string>; data: string });
      }
      Object.values(record).forEach(walk);
    }
  };
  walk(JSON.parse(json));
  return payloads;
}

/** A history's JSON with every payload's data decoded to text appended, so plain values can be searched. */
export function historyText(json: string): string {
  return [json, ...historyPayloads(json).map((p) => Buffer.from(p.data, 'base64').toString('utf8'))].join('\n');
}

/**
 * The study the restart tests apply: us, uk and de target groups, us and uk excluding the RSIDs of
 * `past.txt`, an exclusion group `waves` with `waveMembers`, auto launch, job polls of 200-500 ms.
 */
export function threeMarketStudy(o: { studyId: string; title: string; reference: string; urlPrefix: string; waveMembers: string[] }): string {
  const market = (key: string, locale: string, goal: number, listed: boolean) =>
    `  ${key}:
    locale: ${locale}
    live_url: https://survey.example.com/s/${o.urlPrefix}-${key}?rid=[%RID%]
    filling_goal: ${goal}
${listed ? '    exclusions:\n      respondent_ids: { file: past.txt }\n' : ''}`;
  return `format: studyflow/v1
study: ${o.studyId}
account: "1001"
business_unit: "2001"
project:
  name: ${o.title}
  project_customer_reference_number: ${o.reference}
defaults:
${quickLaunchFields('  ')}
exclusion_groups:
  waves:
    name: ${o.title} waves
    target_groups: [${o.waveMembers.join(', ')}]
target_groups:
${market('us', 'en_US', 60, true)}${market('uk', 'en_GB', 50, true)}${market('de', 'de_DE', 40, false)}`;
}

/** POSTs that only compute (feasibility, validation, suggestions, the reference's price prediction): they change nothing in the API. */
const READ_ONLY_POSTS = [/\/calculate-feasibility$/, /\/generate-price-prediction$/, /\/profiles\/validate$/, /\/intelligent-calendar\//, /\/drafts\/generate-blended-profile$/, /\/supplier-quota-distribution\/draft$/];

/** The write calls among request-log entries: everything but reads and computing POSTs. */
export function writeCalls<T extends { method: string; path: string }>(entries: T[]): T[] {
  return entries.filter((r) => r.path.startsWith('/v1') && r.method !== 'GET' && !(r.method === 'POST' && READ_ONLY_POSTS.some((p) => p.test(r.path))));
}

/** Polls until `check` returns a value (not undefined) or the time runs out. */
export async function eventually<T>(check: () => Promise<T | undefined>, timeoutMs = 60_000, intervalMs = 250): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined) return value;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms${lastError ? `: ${String(lastError)}` : ''}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

/** A study file in a temp dir, from a YAML text. */
export function writeStudy(dir: string, name: string, yaml: string): string {
  const file = path.join(dir, name);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, yaml);
  return file;
}

/** One use of a client of the Temporal server at `address` (namespace default), its connection closed after it. */
export async function withTemporalClient<T>(address: string, use: (client: Client) => Promise<T>): Promise<T> {
  let opened: { client: Client; connection: Connection } | undefined;
  try {
    opened = await connectClient({ address, namespace: 'default', connectionOptions: {} });
    return await use(opened.client);
  } finally {
    await opened?.connection.close();
  }
}

/**
 * The end of a test on a private Temporal dev server and stack: the worker process killed, the task queue's running
 * workflows terminated, the stack and the server stopped and the directory removed (each part only if it was made).
 */
export async function tearDownPrivateStack(parts: {
  worker?: ChildProcess;
  temporal?: { address: string; stop(): Promise<unknown> };
  taskQueue: string;
  stack?: { stop(): Promise<unknown> };
  dir?: string;
}): Promise<void> {
  const { worker, temporal, taskQueue, stack, dir } = parts;
  if (worker && worker.exitCode === null && worker.signalCode === null) {
    worker.kill('SIGKILL');
    await new Promise((resolve) => worker.once('exit', resolve));
  }
  if (temporal) {
    await withTemporalClient(temporal.address, async (client) => {
      for await (const wf of client.workflow.list({ query: `TaskQueue = "${taskQueue}" AND ExecutionStatus = "Running"` })) {
        await client.workflow.getHandle(wf.workflowId, wf.runId).terminate('test finished').catch(() => undefined);
      }
    }).catch(() => undefined);
  }
  await stack?.stop();
  await temporal?.stop();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
}
