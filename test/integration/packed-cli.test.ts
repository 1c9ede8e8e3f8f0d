// studyflow as a buyer gets it. The GitHub Action's own install step (action.yml, run as the Actions runner
// runs a composite action: inputs as INPUT_* variables, GITHUB_OUTPUT and GITHUB_STEP_SUMMARY files) packs a
// copy of this checkout with `npm ci` and `npm pack` and installs the tarball into an empty directory without
// dev dependencies, so without a TypeScript compiler. Every command then runs from there, and the action's
// run step drives validate, plan and apply.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findFreePort } from '../../dev/free-port';
import { REPO_ROOT } from './harness';

const MANIFEST = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string };

interface ActionStep {
  id: string;
  shell: string;
  run: string;
  env?: Record<string, string>;
  'working-directory'?: string;
}
interface ActionDefinition {
  inputs: Record<string, { default?: string; required?: boolean }>;
  outputs: Record<string, { value: string }>;
  runs: { using: string; steps: ActionStep[] };
}

let workDir: string;
let actionCheckout: string;
let buyerRepo: string;
let bin: string;
let installed: string;
const children: ChildProcess[] = [];

/** The environment of a buyer's shell: none of this checkout's or the test run's studyflow settings. */
function buyerEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!/^(STUDYFLOW_|TEMPORAL_ADDRESS|TEMPORAL_NAMESPACE|VITEST|NODE_OPTIONS|GITHUB_|RUNNER_|INPUT_|npm_)/i.test(key)) env[key] = value;
  }
  return { ...env, NO_COLOR: '1', ...extra };
}

/** The files of this checkout as `git` sees them (tracked and untracked, not ignored), copied as they are now. */
function copyCheckout(to: string): void {
  const listed = spawnSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: REPO_ROOT, encoding: 'utf8' });
  expect(listed.status, listed.stderr).toBe(0);
  for (const file of listed.stdout.split('\0').filter(Boolean)) {
    const from = path.join(REPO_ROOT, file);
    if (!fs.existsSync(from)) continue; // deleted in the working tree
    fs.mkdirSync(path.dirname(path.join(to, file)), { recursive: true });
    fs.copyFileSync(from, path.join(to, file));
  }
}

/** Runs one step of action.yml the way the runner does; returns its exit code, output and GITHUB_OUTPUT values. */
function runActionStep(
  stepId: string,
  inputs: Record<string, string>,
  context: { steps?: Record<string, Record<string, string>>; env?: Record<string, string>; cwd: string },
) {
  const action = parse(fs.readFileSync(path.join(actionCheckout, 'action.yml'), 'utf8')) as ActionDefinition;
  expect(action.runs.using).toBe('composite');
  const step = action.runs.steps.find((s) => s.id === stepId)!;
  expect(step.shell).toBe('bash');
  const values: Record<string, string> = {};
  for (const [name, input] of Object.entries(action.inputs)) values[name] = inputs[name] ?? input.default ?? '';
  const expand = (text: string) =>
    text.replace(/\$\{\{\s*([^}]+?)\s*\}\}/g, (_, expression: string) => {
      const input = /^inputs\.([\w-]+)$/.exec(expression);
      if (input) return values[input[1]] ?? '';
      const output = /^steps\.([\w-]+)\.outputs\.([\w-]+)$/.exec(expression);
      if (output) return context.steps?.[output[1]]?.[output[2]] ?? '';
      throw new Error(`expression the test runner does not know: ${expression}`);
    });
  const outputFile = path.join(workDir, `output-${stepId}-${Math.random().toString(36).slice(2)}`);
  const summaryFile = path.join(workDir, `summary-${stepId}-${Math.random().toString(36).slice(2)}`);
  fs.writeFileSync(outputFile, '');
  fs.writeFileSync(summaryFile, '');
  const stepEnv = Object.fromEntries(Object.entries(step.env ?? {}).map(([k, v]) => [k, expand(v)]));
  const cwd = path.resolve(context.cwd, expand(step['working-directory'] ?? '.'));
  const result = spawnSync('bash', ['-e', '-c', expand(step.run)], {
    cwd,
    encoding: 'utf8',
    timeout: 280_000,
    env: buyerEnv({
      ...context.env,
      ...stepEnv,
      GITHUB_ACTION_PATH: actionCheckout,
      GITHUB_ACTIONS: 'true',
      GITHUB_WORKSPACE: context.cwd,
      RUNNER_TEMP: workDir,
      GITHUB_OUTPUT: outputFile,
      GITHUB_STEP_SUMMARY: summaryFile,
    }),
  });
  const outputs = Object.fromEntries(
    fs
      .readFileSync(outputFile, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
  );
  return { code: result.status, stdout: result.stdout, stderr: result.stderr, outputs, summary: fs.readFileSync(summaryFile, 'utf8') };
}

function studyflow(args: string[], env: NodeJS.ProcessEnv = buyerEnv()) {
  return spawnSync(bin, args, { cwd: buyerRepo, env, encoding: 'utf8', timeout: 120_000 });
}

/** Starts a long-running command from the installed package and resolves once stderr matches `ready`. */
async function startLongRunning(args: string[], ready: RegExp): Promise<{ child: ChildProcess; stderr: () => string }> {
  const child = spawn(bin, args, { cwd: buyerRepo, env: buyerEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  child.stdout!.resume();
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`studyflow ${args.join(' ')} was not ready in 120 s:\n${stderr}`)), 120_000);
    child.stderr!.on('data', () => {
      if (ready.test(stderr)) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`studyflow ${args.join(' ')} exited ${code} before it was ready:\n${stderr}`));
    });
  });
  return { child, stderr: () => stderr };
}

/** The Demand API settings of a running sandbox, as a buyer would put them in CI secrets. */
async function sandboxConnection(baseUrl: string): Promise<Record<string, string>> {
  const info = (await (await fetch(`${baseUrl}/_sandbox/info`)).json()) as { auth_url: string; audience: string; client_id: string; client_secret: string };
  return {
    STUDYFLOW_API_BASE_URL: baseUrl,
    STUDYFLOW_AUTH_URL: info.auth_url,
    STUDYFLOW_AUDIENCE: info.audience,
    STUDYFLOW_CLIENT_ID: info.client_id,
    STUDYFLOW_CLIENT_SECRET: info.client_secret,
  };
}

async function stop(child: ChildProcess, signal: NodeJS.Signals = 'SIGINT'): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  child.kill(signal);
  const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
  const code = await exited;
  clearTimeout(timer);
  return code;
}

beforeAll(() => {
  workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'studyflow-packed-'));
  actionCheckout = path.join(workDir, 'action-checkout');
  copyCheckout(actionCheckout);
  buyerRepo = path.join(workDir, 'buyer-studies');
  fs.mkdirSync(path.join(buyerRepo, 'studies'), { recursive: true });
  const install = runActionStep('install', {}, { cwd: buyerRepo });
  expect(install.code, install.stdout + install.stderr).toBe(0);
  // npm ci of the checkout and npm install of the tarball warn about nothing of ours: no install scripts left
  // undeclared (allowScripts), no lock file out of step. (Warnings about the machine's own npm config are not ours.)
  const warnings = install.stderr.split('\n').filter((line) => /npm (warn|WARN)/.test(line) && !/Unknown (user|env|global) config/.test(line));
  expect(warnings).toEqual([]);
  bin = install.outputs.studyflow;
  expect(bin).toMatch(/node_modules\/\.bin\/studyflow$/);
  installed = path.join(path.dirname(path.dirname(bin)), 'studyflow');
}, 600_000);

afterAll(async () => {
  for (const child of children) await stop(child);
  if (workDir) fs.rmSync(workDir, { recursive: true, force: true });
});

describe('the packed studyflow, installed into an empty directory', () => {
  it('holds the compiled CLI, the workflow bundle, the schema, the examples and the docs, and no sources or tests', () => {
    for (const file of ['bin/studyflow.js', 'dist/cli/studyflow.js', 'dist/workflow-bundle.js', 'dist/workflow-sources/workflows/index.js', 'schema/study.schema.json', 'examples/quickstart/study.yaml', 'docs/cli.md', 'docs/study-format.md', 'README.md']) {
      expect(fs.existsSync(path.join(installed, file)), file).toBe(true);
    }
    for (const dir of ['test', 'bench', 'cli', 'workflows', 'activities', 'api', 'blobs', 'temporal', 'webhooks', 'dev', 'shared', 'sandbox', 'worker', 'plan', 'definitions', 'scripts', 'node_modules']) {
      expect(fs.existsSync(path.join(installed, dir)), dir).toBe(false);
    }
  });

  it('runs with no TypeScript compiler installed', () => {
    const modules = path.dirname(installed);
    expect(fs.existsSync(path.join(modules, 'tsx'))).toBe(false);
    expect(fs.existsSync(path.join(modules, 'typescript'))).toBe(false);
    const version = studyflow(['--version']);
    expect(version.status, version.stderr).toBe(0);
    expect(version.stdout.trim()).toBe(MANIFEST.version);
    const help = studyflow(['--help']);
    expect(help.status).toBe(0);
    expect(help.stdout).toContain('validate');
  });

  it('validates the examples it ships', () => {
    const result = studyflow(['validate', path.join(installed, 'examples')]);
    expect(result.status, result.stdout + result.stderr).toBe(0);
    expect(result.stderr).toMatch(/valid studies: 0 error\(s\)/);
  });

  it('prints the JSON Schema the repository keeps', () => {
    const result = studyflow(['schema']);
    expect(result.status, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual(JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'schema', 'study.schema.json'), 'utf8')));
  });

  it('bundles the workflows from the installed package', () => {
    const file = path.join(workDir, 'workflow-bundle.js');
    const result = studyflow(['worker', '--write-bundle', file]);
    expect(result.status, result.stderr).toBe(0);
    const code = fs.readFileSync(file, 'utf8');
    expect(code).toContain('studyWorkflow');
    expect(code).toContain('targetGroupWorkflow');
  });

  it('runs the sandbox and plans the quickstart against it, also through the action', async () => {
    const port = await findFreePort();
    const sandbox = await startLongRunning(['sandbox', '--port', String(port)], /Ctrl-C stops it/);
    const study = path.join(installed, 'examples', 'quickstart', 'study.yaml');
    fs.copyFileSync(study, path.join(buyerRepo, 'studies', 'quickstart.yaml'));
    const connection = await sandboxConnection(`http://127.0.0.1:${port}`);
    const env = buyerEnv(connection);
    const result = studyflow(['plan', '--json', study], env);
    expect(result.status, result.stderr).toBe(0);
    const plan = JSON.parse(result.stdout) as { studies: { actions: { kind: string }[] }[] };
    expect(plan.studies[0].actions.some((a) => a.kind === 'create')).toBe(true);

    const step = runActionStep('run', { command: 'plan', paths: 'studies/' }, { cwd: buyerRepo, steps: { install: { studyflow: bin } }, env: connection });
    expect(step.code, step.stdout + step.stderr).toBe(0);
    expect(step.outputs['exit-code']).toBe('2');
    expect(step.outputs.changes).toBe('true');
    expect(step.stdout).toMatch(/^::notice file=studies\/quickstart\.yaml,title=studyflow plan /m);
    expect(step.summary).toContain('quickstart');
    expect(await stop(sandbox.child)).toBe(0);
  });

  it('annotates every problem through the action and fails the step', () => {
    fs.mkdirSync(path.join(buyerRepo, 'broken'), { recursive: true });
    fs.writeFileSync(path.join(buyerRepo, 'broken', 'study.yaml'), 'format: studyflow/v1\nstudy: Not An Id\n');
    const broken = runActionStep('run', { command: 'validate', paths: 'broken/' }, { cwd: buyerRepo, steps: { install: { studyflow: bin } } });
    expect(broken.code).toBe(1);
    expect(broken.outputs['exit-code']).toBe('1');
    expect(broken.stdout).toMatch(/^::error file=broken\/study\.yaml,line=\d+,col=\d+/m);
    expect(broken.summary).toMatch(/### studyflow validate/);
    expect(broken.summary).toMatch(/\| `broken\/study\.yaml:\d+:\d+` \| error \|/);

    const valid = runActionStep('run', { command: 'validate', paths: 'studies/' }, { cwd: buyerRepo, steps: { install: { studyflow: bin } } });
    expect(valid.code, valid.stdout + valid.stderr).toBe(0);
    expect(valid.outputs['exit-code']).toBe('0');
    expect(valid.stdout).not.toContain('::error');
    expect(valid.summary).toMatch(/✅ 1 file\(s\) checked, 1 valid study: 0 error\(s\)/);

    const unknown = runActionStep('run', { command: 'destroy' }, { cwd: buyerRepo, steps: { install: { studyflow: bin } } });
    expect(unknown.code).toBe(1);
    expect(unknown.stdout).toContain('::error title=studyflow action::input command must be validate, plan or apply, got "destroy"');
  });

  it('brings up `studyflow dev` and applies the quickstart through the action until it is live', async () => {
    const [temporalPort, uiPort, sandboxPort, webhookPort] = await Promise.all([findFreePort(), findFreePort(), findFreePort(), findFreePort()]);
    const dev = await startLongRunning(
      ['dev', '--temporal-port', String(temporalPort), '--ui-port', String(uiPort), '--sandbox-port', String(sandboxPort), '--webhook-port', String(webhookPort)],
      /Ctrl-C stops everything/,
    );
    // Settings in the environment, as in CI: the payload key too (dev prints where it keeps the stack's file, which
    // names the key file).
    const stateDir = /export STUDYFLOW_DEV_STATE_DIR=(\S+)/.exec(dev.stderr())?.[1];
    expect(stateDir, dev.stderr()).toBeDefined();
    const keyFile = (JSON.parse(fs.readFileSync(path.join(stateDir!, 'dev-stack.json'), 'utf8')) as { codec_key_file?: string }).codec_key_file;
    expect(keyFile, 'dev-stack.json names the payload key file').toBeDefined();
    const env = {
      TEMPORAL_ADDRESS: `127.0.0.1:${temporalPort}`,
      ...(await sandboxConnection(`http://127.0.0.1:${sandboxPort}`)),
      STUDYFLOW_CODEC_KEY_FILE: keyFile!,
      GITHUB_SHA: 'a'.repeat(40),
    };
    const step = runActionStep('run', { command: 'apply', paths: 'studies/quickstart.yaml', args: '--require-live --timeout 120' }, { cwd: buyerRepo, steps: { install: { studyflow: bin } }, env });
    expect(step.code, step.stdout + step.stderr).toBe(0);
    expect(step.outputs['exit-code']).toBe('0');
    expect(step.stdout).toMatch(/^::notice file=studies\/quickstart\.yaml,title=studyflow apply [^:]+::converged: 1 of 1 target group\(s\) live/m);
    expect(step.stdout).not.toContain('::error');
    expect(step.summary).toMatch(/### studyflow apply/);
    expect(step.summary).toMatch(/\| \w+ \| live \|/);

    const status = studyflow(['status', 'studies/quickstart.yaml', '--json'], buyerEnv(env));
    expect(status.status, status.stderr).toBe(0);
    const study = JSON.parse(status.stdout) as { phase: string; targetGroups: Record<string, { phase: string }> };
    expect(study.phase).toBe('converged');
    expect(Object.values(study.targetGroups).map((t) => t.phase)).toEqual(['live']);
    // Stopped as a service manager stops it (docker stop, systemd): SIGTERM stops every server of the stack, exit 0.
    expect(await stop(dev.child, 'SIGTERM')).toBe(0);
    expect(dev.stderr()).toContain('stopped');
  });
});
