// A CLI in another shell finds a `studyflow dev` stack started on other ports and another --state-dir: dev writes
// everything about the stack to <state-dir>/dev-stack.json and prints the `export` line; the compiled CLI (run
// `node scripts/build.mjs` first), started in an unrelated directory with only that variable, plans and applies
// against that stack (not against an empty remote), and the stack's --metrics-port endpoint counts the API calls
// its worker made. The default webhook port, taken (held here if nothing else holds it), falls back to a free
// one, printed and written to the file. This file runs `studyflow dev` with its own Temporal dev server.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run as dev } from '../../cli/commands/dev';
import type { CliContext } from '../../cli/main';
import { Output } from '../../cli/output';
import type { DevStackInfo } from '../../client/dev-stack';
import { DEV_WEBHOOK_PORT } from '../../dev/embedded-stack';
import { findFreePort } from '../../dev/free-port';
import { parsePrometheusText } from '../helpers/prometheus-text';
import { quickLaunchFields } from '../helpers/study-yaml';
import { eventually, REPO_ROOT, writeStudy } from './harness';

/** `studyflow <args>` as its own process in `cwd`, with `env` as its whole environment. */
function studyflow(cwd: string, env: Record<string, string>, args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(REPO_ROOT, 'bin/studyflow.js'), ...args], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Holds `port` on 127.0.0.1 when nothing does; undefined when something else already holds it. */
async function hold(port: number): Promise<net.Server | undefined> {
  const server = net.createServer();
  return await new Promise((resolve) => {
    server.once('error', () => resolve(undefined));
    server.listen(port, '127.0.0.1', () => resolve(server));
  });
}

describe('a CLI in another shell finds a dev stack on other ports and another state directory', () => {
  let launchDir: string;
  let stateDir: string;
  let shellDir: string;
  let stopDev: () => void;
  let devDone: Promise<number>;
  const devText = { stdout: '', stderr: '' };
  let ports: { temporal: number; ui: number; sandbox: number };
  let held: net.Server | undefined;
  let shellEnv: Record<string, string>;

  beforeAll(async () => {
    launchDir = fs.mkdtempSync(path.join(os.tmpdir(), 'studyflow-dev-launch-'));
    stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'studyflow-dev-state-'));
    shellDir = fs.mkdtempSync(path.join(os.tmpdir(), 'studyflow-dev-shell-'));
    ports = { temporal: await findFreePort(), ui: await findFreePort(), sandbox: await findFreePort() };
    held = await hold(DEV_WEBHOOK_PORT);
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    stdout.on('data', (c: Buffer) => (devText.stdout += c.toString()));
    stderr.on('data', (c: Buffer) => (devText.stderr += c.toString()));
    const env = { ...process.env, NO_COLOR: '1' };
    const stopped = new Promise<void>((resolve) => (stopDev = resolve));
    const ctx: CliContext = { out: new Output({ stdout, stderr }, env), env, cwd: launchDir, interrupted: stopped };
    devDone = dev(ctx, { temporalPort: String(ports.temporal), uiPort: String(ports.ui), sandboxPort: String(ports.sandbox), metricsPort: '0', stateDir });
    await eventually(async () => (devText.stderr.includes('Ctrl-C stops everything.') ? true : undefined), 120_000, 100);
    // Another terminal: none of this process's STUDYFLOW_* or TEMPORAL_* settings, another directory.
    shellEnv = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? shellDir, NO_COLOR: '1', STUDYFLOW_WATCH_INTERVAL_MS: '1000' };
  });
  afterAll(async () => {
    stopDev?.();
    await devDone;
    await new Promise<void>((resolve) => (held ? held.close(() => resolve()) : resolve()));
    for (const d of [launchDir, stateDir, shellDir]) if (d) fs.rmSync(d, { recursive: true, force: true });
  });

  it('writes the whole stack to <state-dir>/dev-stack.json and prints the line to export', () => {
    const info = JSON.parse(fs.readFileSync(path.join(stateDir, 'dev-stack.json'), 'utf8')) as DevStackInfo;
    expect(info).toMatchObject({
      pid: process.pid,
      state_dir: stateDir,
      profile: 'sandbox',
      temporal_address: `127.0.0.1:${ports.temporal}`,
      ui_url: `http://127.0.0.1:${ports.ui}`,
      api: { base_url: `http://127.0.0.1:${ports.sandbox}`, auth_url: `http://127.0.0.1:${ports.sandbox}/auth` },
      codec_key_file: path.join(stateDir, 'codec-key.json'),
      blob: { dir: path.join(stateDir, 'blobs') },
    });
    expect(info.ports).toMatchObject({ temporal: ports.temporal, ui: ports.ui, sandbox: ports.sandbox });
    // The default webhook port was taken: a free one, in the file and on the screen.
    expect(info.ports!.webhook).not.toBe(DEV_WEBHOOK_PORT);
    expect(info.webhook_url).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${info.ports!.webhook}/`));
    expect(devText.stderr).toContain(`Webhooks     ${info.webhook_url}   (use it as a webhook url in study files; port ${DEV_WEBHOOK_PORT} was taken, so a free one)`);
    expect(info.metrics_url).toBe(`http://127.0.0.1:${info.ports!.metrics}/metrics`);
    expect(devText.stderr).toContain(`\n  export STUDYFLOW_DEV_STATE_DIR=${stateDir}\n`);
  });

  it('plans and applies against that stack from another directory with STUDYFLOW_DEV_STATE_DIR alone', async () => {
    const file = writeStudy(shellDir, 'study.yaml', `format: studyflow/v1
study: dev-discovery
account: "1001"
business_unit: "2001"
project:
  name: Dev discovery
  project_customer_reference_number: PO-DEV-DISCOVERY
target_groups:
  us:
    locale: en_US
    live_url: https://survey.example.com/s/dev-discovery?rid=[%RID%]
${quickLaunchFields('    ', 50)}
`);
    const env = { ...shellEnv, STUDYFLOW_DEV_STATE_DIR: stateDir };
    const planned = await studyflow(shellDir, env, ['plan', 'study.yaml', '--json']);
    expect(planned.code, planned.stderr).toBe(0);
    const plan = JSON.parse(planned.stdout) as { offline: boolean; apiUnreachable?: string; studies: { checks: unknown[] }[] };
    expect(plan.offline).toBe(false);
    expect(plan.apiUnreachable).toBeUndefined();
    expect(plan.studies[0].checks.length).toBeGreaterThan(0);

    const applied = await studyflow(shellDir, env, ['apply', 'study.yaml', '--require-live', '--timeout', '120']);
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    expect(applied.stdout).toMatch(/us\s+live/);
    expect(applied.stdout).toContain(`Temporal UI: http://127.0.0.1:${ports.ui}/namespaces/default/workflows/`);

    // Planned against the stack it applied to: nothing left to change.
    const again = await studyflow(shellDir, env, ['plan', file, '--detailed-exitcode']);
    expect(again.code, again.stdout + again.stderr).toBe(0);

    // The dev stack's worker made the calls, and its /metrics counts them.
    const info = JSON.parse(fs.readFileSync(path.join(stateDir, 'dev-stack.json'), 'utf8')) as DevStackInfo;
    const samples = parsePrometheusText(await (await fetch(info.metrics_url!)).text()).samples;
    const created = samples.filter((s) => s.name === 'studyflow_api_calls_total' && s.value > 0);
    expect(created.length).toBeGreaterThan(0);
  });

  it('removes the file when dev stops', async () => {
    stopDev();
    expect(await devDone).toBe(0);
    expect(fs.existsSync(path.join(stateDir, 'dev-stack.json'))).toBe(false);
  });
});
