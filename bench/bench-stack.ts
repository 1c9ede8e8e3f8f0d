import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { connectClient } from '../worker/temporal-connection';
import { startEmbeddedStack, type EmbeddedStack } from '../worker/embedded-stack';
import { startTemporalDevServer, type RunningDevServer } from '../worker/temporal-dev-server';
import type { Faults } from '../sandbox';

export const REPO_ROOT = path.resolve(import.meta.dirname, '..');

export interface BenchStack {
  dir: string;
  temporal: RunningDevServer;
  stack: EmbeddedStack;
  client: Awaited<ReturnType<typeof connectClient>>['client'];
  env: Record<string, string>;
  spawnWorker(): ChildProcess;
  stop(): Promise<void>;
}

/**
 * A private Temporal dev server, the sandbox with the given faults, and either an in-process worker
 * or `studyflow worker` processes started by the benchmark. Everything on loopback, stopped at the end.
 */
export async function startBenchStack(options: {
  faults: Partial<Faults>;
  apiRatePerSecond?: number;
  inProcessWorker?: boolean;
}): Promise<BenchStack> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'studyflow-bench-'));
  const temporal = await startTemporalDevServer({ dbFile: path.join(dir, 'temporal.sqlite'), uiPort: false, stopWithParent: true });
  const stack = await startEmbeddedStack({
    stateDir: dir,
    temporalAddress: temporal.address,
    sandboxPort: 0,
    apiRatePerSecond: options.apiRatePerSecond,
    inProcessWorker: options.inProcessWorker,
    taskQueue: `bench-${process.pid}`,
  });
  stack.sandbox.setFaults(options.faults);
  const env = {
    ...stack.env,
    NO_COLOR: '1',
    STUDYFLOW_WATCH_INTERVAL_MS: '600000',
    ...(options.apiRatePerSecond ? { STUDYFLOW_API_RATE_LIMIT: String(options.apiRatePerSecond) } : {}),
  };
  const { client, connection } = await connectClient({ address: temporal.address, namespace: 'default', connectionOptions: {} });
  const workers: ChildProcess[] = [];
  return {
    dir,
    temporal,
    stack,
    client,
    env,
    spawnWorker() {
      const child = spawn(process.execPath, [path.join(REPO_ROOT, 'bin/studyflow.js'), 'worker'], {
        cwd: dir,
        env: { ...process.env, ...env },
        stdio: ['ignore', 'ignore', 'inherit'],
      });
      workers.push(child);
      return child;
    },
    async stop() {
      for (const w of workers) if (w.exitCode === null) w.kill('SIGTERM');
      await Promise.all(workers.map((w) => (w.exitCode === null ? new Promise((r) => w.once('exit', r)) : undefined)));
      await connection.close();
      await stack.stop();
      await temporal.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A study with `n` target groups across locales, auto launch, no uploads. */
export function benchStudyYaml(studyId: string, n: number): string {
  const locales = ['en_US', 'en_GB', 'de_DE', 'fr_FR', 'es_ES', 'it_IT'];
  const tgs = Array.from({ length: n }, (_, i) => {
    const key = `tg_${String(i).padStart(3, '0')}`;
    return `  ${key}:
    locale: ${locales[i % locales.length]}
    live_url: https://survey.example.com/s/${studyId}/${key}?rid=[%RID%]
    filling_goal: ${50 + (i % 7)}
`;
  }).join('');
  return `format: studyflow/v1
study: ${studyId}
account: "1001"
business_unit: "2001"
project:
  name: Benchmark ${studyId}
  project_customer_reference_number: PO-${studyId}
defaults:
  expected_incidence_rate: 0.6
  expected_length_of_interview_minutes: 8
  project_manager_id: "3001"
  collects_pii: false
  launch: { mode: auto }
  timing: { job_poll_initial: 100ms, job_poll_max: 200ms }
target_groups:
${tgs}`;
}

export function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

export function writeResult(name: string, result: unknown): string {
  const dir = path.join(REPO_ROOT, 'bench', 'out');
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${name}.json`);
  fs.writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
  return file;
}

export function machineFacts(): { cpus: number; cpuModel: string; memoryGiB: number; node: string; date: string } {
  return {
    cpus: os.cpus().length,
    cpuModel: os.cpus()[0]?.model ?? 'unknown',
    memoryGiB: Math.round(os.totalmem() / 2 ** 30),
    node: process.version,
    date: new Date().toISOString().slice(0, 10),
  };
}
