// `studyflow dev --ui-port N` and the Temporal UI link of apply in another shell of the same directory: the
// link names the UI's real port (read from .studyflow/dev-stack.json, which dev writes while it runs and
// removes when it stops); from a directory without it, and without STUDYFLOW_TEMPORAL_UI_URL, apply prints
// no link rather than one to port 8233. This file runs `studyflow dev` with its own Temporal dev server.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run as apply } from '../../cli/commands/apply';
import { run as dev } from '../../cli/commands/dev';
import type { CliContext } from '../../cli/main';
import { Output } from '../../cli/output';
import { findFreePort } from '../../dev/free-port';
import { eventually, writeStudy } from './harness';

function context(cwd: string, env: NodeJS.ProcessEnv, interrupted: Promise<void> = new Promise(() => undefined)) {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const text = { stdout: '', stderr: '' };
  stdout.on('data', (c: Buffer) => (text.stdout += c.toString()));
  stderr.on('data', (c: Buffer) => (text.stderr += c.toString()));
  const ctx: CliContext = { out: new Output({ stdout, stderr }, env), env, cwd, interrupted };
  return { ctx, text };
}

describe('studyflow dev --ui-port: the UI link apply prints', () => {
  let dir: string;
  let elsewhere: string;
  let stopDev: () => void;
  let devDone: Promise<number>;
  let devText: { stdout: string; stderr: string };
  let ports: { temporal: number; ui: number; sandbox: number; webhook: number };
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'studyflow-dev-ui-'));
    elsewhere = fs.mkdtempSync(path.join(os.tmpdir(), 'studyflow-dev-ui-elsewhere-'));
    ports = { temporal: await findFreePort(), ui: await findFreePort(), sandbox: await findFreePort(), webhook: await findFreePort() };
    const stopped = new Promise<void>((resolve) => (stopDev = resolve));
    const started = context(dir, { ...process.env, NO_COLOR: '1' }, stopped);
    devText = started.text;
    devDone = dev(started.ctx, {
      temporalPort: String(ports.temporal),
      uiPort: String(ports.ui),
      sandboxPort: String(ports.sandbox),
      webhookPort: String(ports.webhook),
      stateDir: '.studyflow',
    });
    await eventually(async () => (devText.stderr.includes('Ctrl-C stops everything.') ? true : undefined), 120_000, 100);
    // A shell in another terminal: the dev stack's Temporal and payload key, no UI variable.
    const { STUDYFLOW_TEMPORAL_UI_URL: _ignored, ...rest } = process.env;
    env = {
      ...rest,
      NO_COLOR: '1',
      TEMPORAL_ADDRESS: `127.0.0.1:${ports.temporal}`,
      STUDYFLOW_CODEC_KEY_FILE: path.join(dir, '.studyflow', 'codec-key.json'),
      STUDYFLOW_BLOB_DIR: path.join(dir, '.studyflow', 'blobs'),
    };
  });
  afterAll(async () => {
    stopDev?.();
    await devDone;
    for (const d of [dir, elsewhere]) if (d) fs.rmSync(d, { recursive: true, force: true });
  });

  it('links to the UI on the port dev runs it on, from the directory dev runs in', async () => {
    const info = JSON.parse(fs.readFileSync(path.join(dir, '.studyflow', 'dev-stack.json'), 'utf8')) as Record<string, unknown>;
    expect(info).toMatchObject({
      temporal_address: `127.0.0.1:${ports.temporal}`,
      ui_url: `http://127.0.0.1:${ports.ui}`,
      pid: process.pid,
      ports: { temporal: ports.temporal, ui: ports.ui, sandbox: ports.sandbox, webhook: ports.webhook },
    });
    expect(devText.stderr).toContain(`Temporal UI  http://127.0.0.1:${ports.ui}`);

    const file = writeStudy(dir, 'study.yaml', `format: studyflow/v1
study: dev-ui-link
account: "1001"
business_unit: "2001"
project:
  name: Dev UI link
  project_customer_reference_number: PO-DEV-UI-LINK
target_groups:
  us:
    locale: en_US
    live_url: https://survey.example.com/s/dev-ui-link?rid=[%RID%]
    expected_incidence_rate: 0.6
    expected_length_of_interview_minutes: 8
    filling_goal: 50
    project_manager_id: "6f1c2a4e-3001-4c8e-9d2b-000000003001"
    collects_pii: false
    launch: { mode: manual }
`);
    const page = `/namespaces/default/workflows/${encodeURIComponent('study/1001/dev-ui-link')}`;
    const here = context(dir, env);
    expect(await apply(here.ctx, [file], { wait: true, timeout: '120' }), here.text.stderr).toBe(0);
    expect(here.text.stdout).toContain(`Temporal UI: http://127.0.0.1:${ports.ui}${page}\n`);
    expect(here.text.stdout).not.toContain(':8233');

    // Another directory knows no dev stack: no link at all, not one to 8233.
    const there = context(elsewhere, env);
    expect(await apply(there.ctx, [file], { wait: true, timeout: '120' }), there.text.stderr).toBe(0);
    expect(there.text.stdout).toContain('study dev-ui-link');
    expect(there.text.stdout).not.toContain('Temporal UI');
    const json = context(elsewhere, env);
    expect(await apply(json.ctx, [file], { wait: true, timeout: '120', json: true })).toBe(0);
    expect((JSON.parse(json.text.stdout) as { studies: { ui?: string }[] }).studies[0].ui).toBeUndefined();

    // STUDYFLOW_TEMPORAL_UI_URL says where the UI is, wherever the command runs.
    const told = context(elsewhere, { ...env, STUDYFLOW_TEMPORAL_UI_URL: 'https://temporal.example.com' });
    expect(await apply(told.ctx, [file], { wait: true, timeout: '120' })).toBe(0);
    expect(told.text.stdout).toContain(`Temporal UI: https://temporal.example.com${page}\n`);
  });

  it('removes the file when dev stops', async () => {
    stopDev();
    expect(await devDone).toBe(0);
    expect(fs.existsSync(path.join(dir, '.studyflow', 'dev-stack.json'))).toBe(false);
  });
});
