// `studyflow worker --metrics-port 0` and `studyflow receiver --metrics-port 0` as their own processes (the
// compiled bin) against the suite's real Temporal dev server: /metrics is strict Prometheus text holding the
// Temporal SDK's metrics (the worker's runtime exporter, read through) and studyflow's named metrics, bound to
// 127.0.0.1; /healthz answers 200 with JSON while they run; SIGTERM stops both. (503 and the counters moving
// are shown in test/telemetry/ops-endpoints.test.ts.)
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { parsePrometheusText } from '../helpers/prometheus-text';
import { REPO_ROOT } from './harness';

let address: string;
let dir: string;
const suffix = Math.random().toString(36).slice(2, 8);

beforeAll(() => {
  address = inject('temporalAddress');
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'studyflow-ops-'));
});
afterAll(() => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

/** Starts `studyflow <args>`; resolves with the metrics URL it prints, and a stop that sends SIGTERM and awaits the exit. */
async function startWithMetrics(args: string[]): Promise<{ base: string; stop(): Promise<number | null>; stderr(): string }> {
  const child = spawn(process.execPath, [path.join(REPO_ROOT, 'bin/studyflow.js'), ...args], {
    cwd: dir,
    env: { ...process.env, TEMPORAL_ADDRESS: address, TEMPORAL_NAMESPACE: 'default', STUDYFLOW_TASK_QUEUE: `test-ops-${suffix}`, NO_COLOR: '1', STUDYFLOW_METRICS_PORT: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const base = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no metrics address within 60 s; stderr: ${stderr}`)), 60_000);
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString();
      const m = /metrics on (http:\/\/127\.0\.0\.1:\d+)\/metrics/.exec(stderr);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    void exited.then((code) => reject(new Error(`exited ${code} before serving metrics; stderr: ${stderr}`)));
  });
  return {
    base,
    stderr: () => stderr,
    async stop() {
      child.kill('SIGTERM');
      return await exited;
    },
  };
}

describe('the operations endpoints of the running processes', () => {
  it('the worker serves the SDK\'s and studyflow\'s metrics and a healthy /healthz', async () => {
    const worker = await startWithMetrics(['worker', '--metrics-port', '0']);
    try {
      const res = await fetch(`${worker.base}/metrics`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
      const parsed = parsePrometheusText(await res.text());
      const families = [...parsed.types.keys()];
      expect(families.filter((name) => name.startsWith('temporal_')).length, families.join(' ')).toBeGreaterThan(0);
      for (const name of ['studyflow_api_calls_total', 'studyflow_api_retries_total', 'studyflow_notifications_sent_total', 'studyflow_notifications_failed_total', 'studyflow_guard_trips_total', 'studyflow_target_groups']) {
        expect(families).toContain(name);
      }
      const health = await fetch(`${worker.base}/healthz`);
      expect(health.status).toBe(200);
      expect(await health.json()).toEqual({ status: 'ok', checks: { temporal: { ok: true }, workers: { ok: true, detail: 'polling' } } });
    } finally {
      expect(await worker.stop()).toBe(0);
    }
    expect(worker.stderr()).toContain('worker stopped');
  });

  it('the receiver serves its delivery counts and a healthy /healthz', async () => {
    const receiver = await startWithMetrics(['receiver', '--port', '0', '--metrics-port', '0']);
    try {
      const parsed = parsePrometheusText(await (await fetch(`${receiver.base}/metrics`)).text());
      expect([...parsed.types.keys()]).toEqual(expect.arrayContaining(['studyflow_webhook_requests_total', 'studyflow_webhook_rejected_total', 'studyflow_webhook_routed_total']));
      const health = await fetch(`${receiver.base}/healthz`);
      expect(health.status).toBe(200);
      expect(await health.json()).toEqual({ status: 'ok', checks: { temporal: { ok: true }, receiver: { ok: true, detail: 'accepting deliveries' } } });
    } finally {
      expect(await receiver.stop()).toBe(0);
    }
  });
});
