// A worker and a receiver as an operator meets them on a cluster whose namespace is not (fully) set up: the
// compiled `studyflow` binary as its own process against the suite's real dev server, in a namespace that
// does not exist, one created with the temporal CLI without studyflow's search attributes, and one with only
// two of them. The worker refuses to start there (exit 1, the namespace or each missing attribute named)
// instead of polling nothing forever; `--check` names the same; and a running worker stops on one SIGTERM.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { installTemporalCli } from '../../dev/temporal-cli.mjs';
import { connectClient } from '../../temporal/temporal-connection';
import { SEARCH_ATTRIBUTE_TYPES } from '../../workflows/search-attributes';
import { eventually, REPO_ROOT } from './harness';

const ALL = Object.keys(SEARCH_ATTRIBUTE_TYPES);
const suffix = Math.random().toString(36).slice(2, 8);
const MISSING = `sf-missing-${suffix}`;
const BARE = `sf-bare-${suffix}`;
const PARTIAL = `sf-partial-${suffix}`;
const PARTIAL_HAS = ['StudyflowStudy', 'StudyflowPhase'];

let address: string;
let dir: string;

/** The temporal CLI against the suite's dev server (what docs/operations.md tells an operator to run). */
function temporalCli(args: string[]): void {
  const run = spawnSync(installTemporalCli(), [...args, '--address', address], { encoding: 'utf8', timeout: 60_000 });
  expect(run.status, `temporal ${args.join(' ')}: ${run.stderr}`).toBe(0);
}

interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** `studyflow <args>` as its own process (the compiled bin), in a working directory of its own. */
function studyflow(args: string[], namespace: string, onStderr?: (all: string) => void) {
  const child = spawn(process.execPath, [path.join(REPO_ROOT, 'bin/studyflow.js'), ...args], {
    cwd: dir,
    env: { ...process.env, TEMPORAL_ADDRESS: address, TEMPORAL_NAMESPACE: namespace, STUDYFLOW_TASK_QUEUE: `test-worker-namespace-${suffix}`, NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => {
    stderr += c.toString();
    onStderr?.(stderr);
  });
  // A process that never ends fails the test here (the bug this file guards against), not by the suite's timeout.
  const exited = new Promise<Exit>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`studyflow ${args.join(' ')} (namespace ${namespace}) did not exit within 60 s; stderr: ${stderr}`));
    }, 60_000);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
  return { child, exited };
}

const checks = (result: Exit) => (JSON.parse(result.stdout) as { ok: boolean; checks: { name: string; ok: boolean; detail: string }[] }).checks;
const lacks = (namespace: string, missing: string[]) =>
  `namespace ${namespace} lacks ${missing.length} of studyflow's search attributes: ${missing.map((name) => `${name} (${SEARCH_ATTRIBUTE_TYPES[name]})`).join(', ')}; ` +
  `register each with temporal operator search-attribute create --namespace ${namespace} --name NAME --type TYPE (docs/operations.md, "Setting up a cluster")`;

beforeAll(async () => {
  address = inject('temporalAddress');
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'studyflow-worker-namespace-'));
  temporalCli(['operator', 'namespace', 'create', '--namespace', BARE]);
  temporalCli(['operator', 'namespace', 'create', '--namespace', PARTIAL]);
  for (const name of PARTIAL_HAS) temporalCli(['operator', 'search-attribute', 'create', '--namespace', PARTIAL, '--name', name, '--type', 'Keyword']);
  // A new namespace reaches the frontend's cache within seconds: wait until both are described and searchable.
  const { connection } = await connectClient({ address, namespace: 'default', connectionOptions: {} }, {});
  try {
    await eventually(async () => {
      for (const namespace of [BARE, PARTIAL]) {
        await connection.workflowService.describeNamespace({ namespace });
        await connection.workflowService.countWorkflowExecutions({ namespace, query: 'ExecutionStatus = "Running"' });
      }
      await connection.workflowService.countWorkflowExecutions({ namespace: PARTIAL, query: `${PARTIAL_HAS[1]} IS NOT NULL` });
      return true;
    }, 60_000, 500);
  } finally {
    await connection.close();
  }
});
afterAll(() => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

describe('studyflow worker in a namespace that is not set up', () => {
  it('exits 1 naming a namespace that does not exist, with the command that creates it', async () => {
    const result = await studyflow(['worker'], MISSING).exited;
    expect(result.code, result.stderr).toBe(1);
    expect(result.stderr).toBe(
      `error: namespace ${MISSING} does not exist on ${address}: create it (temporal operator namespace create --namespace ${MISSING} --address ${address}), ` +
        `then register studyflow's search attributes in it (docs/operations.md, "Setting up a cluster")\n`,
    );
  });

  it('exits 1 naming each search attribute a namespace lacks', async () => {
    const bare = await studyflow(['worker'], BARE).exited;
    expect(bare.code, bare.stderr).toBe(1);
    expect(bare.stderr).toBe(`error: ${lacks(BARE, ALL)}\n`);
    const partial = await studyflow(['worker'], PARTIAL).exited;
    expect(partial.code, partial.stderr).toBe(1);
    expect(partial.stderr).toBe(`error: ${lacks(PARTIAL, ALL.filter((name) => !PARTIAL_HAS.includes(name)))}\n`);
  });

  it('worker --check and receiver --check name the missing namespace and each missing search attribute', async () => {
    for (const role of ['worker', 'receiver']) {
      const missing = await studyflow([role, '--check', '--json'], MISSING).exited;
      expect(missing.code, missing.stderr).toBe(1);
      const [temporal, attributes] = checks(missing);
      expect(temporal).toMatchObject({ name: 'temporal', ok: false });
      expect(temporal.detail).toMatch(new RegExp(`^namespace ${MISSING} does not exist on ${address.replace(/\./g, '\\.')}: create it `));
      expect(attributes).toEqual({ name: 'search attributes', ok: false, detail: `not checked: namespace ${MISSING} is not reachable` });

      const partial = await studyflow([role, '--check', '--json'], PARTIAL).exited;
      expect(partial.code, partial.stderr).toBe(1);
      expect(checks(partial).slice(0, 2)).toEqual([
        expect.objectContaining({ name: 'temporal', ok: true }),
        { name: 'search attributes', ok: false, detail: lacks(PARTIAL, ALL.filter((name) => !PARTIAL_HAS.includes(name))) },
      ]);
    }
    // The human form names them too, on the failing line.
    const human = await studyflow(['receiver', '--check'], BARE).exited;
    expect(human.code).toBe(1);
    expect(human.stdout).toContain(`FAIL search attributes ${lacks(BARE, ALL)}`);
    // And in the suite's namespace, where the dev server registered them, both pass.
    const ready = await studyflow(['receiver', '--check', '--json'], 'default').exited;
    expect(checks(ready).slice(0, 2).map((c) => [c.name, c.ok, c.detail])).toEqual([
      ['temporal', true, `${address}, namespace default`],
      ['search attributes', true, `all ${ALL.length} registered in namespace default, visibility queries by them answer`],
    ]);
  });

  it('a running worker stops on the first SIGTERM', async () => {
    let polling: () => void = () => undefined;
    const started = new Promise<void>((resolve) => (polling = resolve));
    const worker = studyflow(['worker'], 'default', (all) => {
      if (all.includes('worker polling ')) polling();
    });
    await Promise.race([started, worker.exited.then((r) => Promise.reject(new Error(`the worker exited before polling: ${r.stderr}`)))]);
    worker.child.kill('SIGTERM');
    const result = await worker.exited;
    expect(result.signal).toBe(null);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/worker polling test-worker-namespace-\w+ and test-worker-namespace-\w+-api on .* \(namespace default\)\n/);
    expect(result.stderr.trimEnd().split('\n').at(-1)).toBe('worker stopped');
  });
});
