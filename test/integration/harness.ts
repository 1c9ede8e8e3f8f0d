import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import type { Client, Connection } from '@temporalio/client';
import { inject } from 'vitest';
import { main } from '../../cli/main';
import { startEmbeddedStack, type EmbeddedStack } from '../../worker/embedded-stack';
import { connectClient } from '../../worker/temporal-connection';
import type { StudyStatus } from '../../workflows/messages';
import { statusQuery, studyWorkflowId } from '../../workflows/messages';

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
  /** Starts `studyflow worker` as its own process. */
  spawnWorker(): ChildProcess;
  status(accountId: string, studyId: string): Promise<StudyStatus>;
  stop(): Promise<void>;
}

/**
 * The embedded stack on the suite's Temporal dev server: a fresh sandbox, a task queue of this
 * test file's own (so no other file's workflows reach it), and a worker in this process unless
 * `inProcessWorker` is false.
 */
export async function startTestStack(name: string, options: { inProcessWorker?: boolean } = {}): Promise<TestStack> {
  const temporalAddress = inject('temporalAddress');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `studyflow-${name}-`));
  const taskQueue = `test-${name}-${Math.random().toString(36).slice(2, 8)}`;
  const stack = await startEmbeddedStack({
    stateDir: dir,
    temporalAddress,
    taskQueue,
    sandboxPort: 0,
    inProcessWorker: options.inProcessWorker,
  });
  const env = { ...stack.env, STUDYFLOW_WATCH_INTERVAL_MS: '2000', NO_COLOR: '1' };
  const { client, connection } = await connectClient({ address: temporalAddress, namespace: 'default', connectionOptions: {} });
  const workers: ChildProcess[] = [];
  return {
    stack,
    client,
    connection,
    taskQueue,
    dir,
    env,
    async cli(args, extraEnv = {}) {
      const stdout = new PassThrough();
      const stderr = new PassThrough();
      let out = '';
      let err = '';
      stdout.on('data', (c: Buffer) => (out += c.toString()));
      stderr.on('data', (c: Buffer) => (err += c.toString()));
      const code = await main(args, { stdout, stderr }, { ...process.env, ...env, ...extraEnv });
      return { code, stdout: out, stderr: err };
    },
    spawnWorker() {
      const child = spawn(process.execPath, [path.join(REPO_ROOT, 'bin/studyflow.js'), 'worker'], {
        cwd: dir,
        env: { ...process.env, ...env },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      child.stderr?.on('data', () => undefined);
      workers.push(child);
      return child;
    },
    async status(accountId, studyId) {
      return await client.workflow.getHandle(studyWorkflowId(accountId, studyId)).query(statusQuery);
    },
    async stop() {
      for (const w of workers) if (w.exitCode === null && w.signalCode === null) w.kill('SIGKILL');
      // End this file's workflows so the shared server stays quiet for the next file.
      for await (const wf of client.workflow.list({ query: `TaskQueue = "${taskQueue}" AND ExecutionStatus = "Running"` })) {
        await client.workflow.getHandle(wf.workflowId, wf.runId).terminate('test finished').catch(() => undefined);
      }
      await connection.close();
      await stack.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
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
