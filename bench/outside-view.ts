// Speed as an outsider measures it: `studyflow dev` as a user runs it (its own process: the Temporal dev server
// with its UI, SQLite file and flags, the sandbox, a worker that stays warm, payloads encrypted), and in the
// same directory, as a second shell would, the installed `studyflow` command (bin/studyflow.js run through its
// shebang, as node_modules/.bin/studyflow runs it) applying a study with `--require-live`, timed from spawn to
// exit. Beside it, on the same sandbox in the same run, bench/hand-written-client.mjs. Nothing of the stack runs
// in this process: it only spawns, times and reads the sandbox's request log.
//
//   node bin/run-ts.js bench/outside-view.ts [--sizes 1,50,200] [--runs 3] [--latency 50] [--job 500]
//       [--compare LABEL=BIN] [--budget-s 420]
//
// --compare runs another build's bin (e.g. the code before a change) against the same dev stack in the same
// runs. The order of the clients rotates from run to run. Per run: wall times, the ms from the spawn to the
// first API call (sandbox request log), the CLI's own phases (STUDYFLOW_TIMELINE) and CPU, and the load.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { RequestLogEntry } from '../sandbox';
import { benchStudyYaml, loadAverage, numberArg, REPO_ROOT, runContext, stringArg, writeResult } from './bench-stack';
import { processNamed, waitForIdleProcesses } from './process-cpu';
import { median, ratio } from './stats';
import type { OutsideViewClientRun, OutsideViewResult, OutsideViewRow } from './result-types';
import { shellEnv, startDevProcess } from './dev-process';

const sizes = stringArg('sizes', '1,50,200').split(',').map(Number);
const runs = numberArg('runs', 3);
const latencyMs = numberArg('latency', 50);
const jobMs = numberArg('job', 500);
const budgetS = numberArg('budget-s', 420);
const compare = stringArg('compare', '');
if (sizes.some((n) => !Number.isInteger(n) || n < 1)) throw new Error(`--sizes must be positive integers, got ${sizes.join(',')}`);
const [compareLabel, compareBin] = compare ? compare.split('=') : [];
if (compare && (!compareLabel || !compareBin || !fs.existsSync(compareBin))) throw new Error(`--compare takes LABEL=BIN (a built bin/studyflow.js), got "${compare}"`);

const ACCOUNT = '1001';
const POLL_MS = 50;
const BOUND_CALLS = ['POST …/oauth/token', 'POST …/projects', 'POST …/projects/{project_id}/target-groups', 'POST …/launch-from-draft', 'GET …/launch-from-draft/{job_id} (Completed)'];
const boundMs = BOUND_CALLS.length * latencyMs + jobMs;
const deadline = performance.now() + budgetS * 1000;
const BIN = path.join(REPO_ROOT, 'bin', 'studyflow.js');

interface Spawned {
  code: number | null;
  ms: number;
  spawnedAt: number;
  stdout: string;
  stderr: string;
}

function timed(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<Spawned> {
  const spawnedAt = Date.now();
  const started = performance.now();
  const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, ms: Math.round(performance.now() - started), spawnedAt, stdout, stderr })));
}

/** `studyflow dev` in `dir` on free ports, as its own process (the bin through its shebang), set up for the benchmark. */
async function startDev(dir: string) {
  const { child, ports, stop, tail } = await startDevProcess(dir, BIN);
  const sandboxUrl = `http://127.0.0.1:${ports.sandbox}`;
  const admin = async (method: string, what: string, body?: unknown) => {
    const res = await fetch(`${sandboxUrl}/_sandbox/${what}`, { method, ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }) });
    if (!res.ok) throw new Error(`sandbox ${method} /_sandbox/${what} answered ${res.status}`);
    return res.status === 204 ? undefined : ((await res.json()) as unknown);
  };
  // The benchmark's API: every call answers after --latency ms, launch jobs take --job ms. The fielding
  // simulation `dev` starts is switched off, so the live target groups of earlier runs do not load later ones.
  await admin('POST', 'faults', { latency_ms: latencyMs, job_duration_ms: jobMs });
  await admin('PUT', 'fielding/settings', { auto_advance: false });
  return { child, ports, sandboxUrl, admin, stop, tail, temporalPid: processNamed(child.pid, 'temporal') };
}

type Dev = Awaited<ReturnType<typeof startDev>>;

async function requestsSince(dev: Dev, fromMs: number): Promise<RequestLogEntry[]> {
  const log = ((await dev.admin('GET', 'requests')) as { data: RequestLogEntry[] }).data;
  return log.filter((e) => Date.parse(e.time) >= fromMs && !e.path.startsWith('/_sandbox'));
}

async function handWritten(dev: Dev, dir: string, n: number, runId: string): Promise<OutsideViewClientRun> {
  const info = (await dev.admin('GET', 'info')) as { auth_url: string; audience: string; client_id: string; client_secret: string; accounts: { account_id: string | number; business_unit_ids: (string | number)[]; project_manager_ids: (string | number)[] }[] };
  const account = info.accounts.find((a) => String(a.account_id) === ACCOUNT);
  if (!account) throw new Error(`the sandbox has no account ${ACCOUNT}`);
  const args = [
    path.join(REPO_ROOT, 'bench', 'hand-written-client.mjs'),
    ...['--base-url', dev.sandboxUrl, '--auth-url', info.auth_url, '--audience', info.audience, '--client-id', info.client_id, '--client-secret', info.client_secret],
    ...['--account', ACCOUNT, '--business-unit', String(account.business_unit_ids[0]), '--project-manager', String(account.project_manager_ids[0])],
    ...['--target-groups', String(n), '--poll-ms', String(POLL_MS), '--run-id', runId],
  ];
  const loadAtStart = loadAverage()[0];
  const result = await timed(process.execPath, args, dir, shellEnv({}));
  if (result.code !== 0) throw new Error(`the hand-written client failed at ${n}: ${result.stderr.slice(-2000)}`);
  const calls = await requestsSince(dev, result.spawnedAt);
  const first = calls[0] ? Date.parse(calls[0].time) - result.spawnedAt : null;
  return { ms: result.ms, firstCallMs: first, load1: loadAtStart };
}

/** One line for a failed run: the lines of its error that say what failed, without stacks or the timeline line. */
function failureReason(error: unknown): string {
  const lines = String((error as Error)?.message ?? error)
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('studyflow-timeline') && !l.startsWith('at ') && /error|ECONN|failed|exited/i.test(l));
  return [...new Set(lines)].slice(0, 3).join(' ').slice(0, 400);
}

/** The CLI's phases from its STUDYFLOW_TIMELINE line, as ms after the spawn, and its CPU. */
function phasesOf(stderr: string, spawnedAt: number): Pick<OutsideViewClientRun, 'phasesMs' | 'cpuMs'> {
  const line = stderr.split('\n').find((l) => l.startsWith('studyflow-timeline '));
  if (!line) return {};
  const { origin, marks } = JSON.parse(line.slice('studyflow-timeline '.length)) as { origin: number; marks: [string, number, number][] };
  const startedAfterSpawn = origin - spawnedAt;
  return {
    phasesMs: { processStart: Math.round(startedAfterSpawn), ...Object.fromEntries(marks.map(([phase, ms]) => [phase, Math.round(startedAfterSpawn + ms)])) },
    cpuMs: marks[marks.length - 1]?.[2],
  };
}

async function studyflowApply(dev: Dev, dir: string, bin: string, n: number, studyId: string): Promise<OutsideViewClientRun> {
  const file = path.join(dir, `${studyId}.yaml`);
  fs.writeFileSync(file, benchStudyYaml(studyId, n));
  // Live target groups are re-read every 10 minutes (the default is 5), as in the other benchmarks: no watcher
  // of an earlier run calls the API during a later one.
  const env = shellEnv({ TEMPORAL_ADDRESS: `127.0.0.1:${dev.ports.temporal}`, STUDYFLOW_TIMELINE: '1', STUDYFLOW_WATCH_INTERVAL_MS: '600000' });
  const loadAtStart = loadAverage()[0];
  const result = await timed(bin, ['apply', path.basename(file), '--require-live', '--timeout', '300'], dir, env);
  if (result.code !== 0) throw new Error(`studyflow apply (${bin}) of ${n} target groups exited ${result.code}: ${result.stderr.slice(-2000)}`);
  const calls = await requestsSince(dev, result.spawnedAt);
  const first = calls[0] ? Date.parse(calls[0].time) - result.spawnedAt : null;
  return { ms: result.ms, firstCallMs: first, load1: loadAtStart, ...phasesOf(result.stderr, result.spawnedAt) };
}

const context = runContext();
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'studyflow-outside-'));
const dev = await startDev(dir);
const onSignal = () => void dev.stop().finally(() => process.exit(143));
process.once('SIGTERM', onSignal);
process.once('SIGINT', onSignal);
const rows: OutsideViewRow[] = [];
const incomplete: number[] = [];
const failures: string[] = [];
try {
  const idle = () => waitForIdleProcesses([dev.child.pid, dev.temporalPid]);
  const clients: { label: string; run: (n: number, id: string) => Promise<OutsideViewClientRun> }[] = [
    { label: 'hand-written', run: (n, id) => handWritten(dev, dir, n, id) },
    { label: 'studyflow', run: (n, id) => studyflowApply(dev, dir, BIN, n, `ov-${id}`) },
    ...(compareBin ? [{ label: compareLabel, run: (n: number, id: string) => studyflowApply(dev, dir, path.resolve(compareBin), n, `ovc-${id}`) }] : []),
  ];
  // Warm-up, not counted: the worker's first workflows, the server's first writes, the file cache.
  for (const c of clients.slice(1)) await c.run(10, `warm-${c.label}`);
  for (const n of sizes) {
    if (performance.now() > deadline) {
      incomplete.push(n);
      continue;
    }
    const byClient = new Map<string, OutsideViewClientRun[]>(clients.map((c) => [c.label, []]));
    const failed: string[] = [];
    for (let r = 0; r < runs; r += 1) {
      // Each run rotates who goes first, so no client always meets the others' leftovers.
      const order = clients.map((_, i) => clients[(i + r) % clients.length]);
      const measuredRun = new Map<string, OutsideViewClientRun>();
      for (const c of order) {
        await idle();
        try {
          const measured = await c.run(n, `${n}-${r}-${process.pid}`);
          measuredRun.set(c.label, measured);
          process.stderr.write(`${n} TG run ${r + 1}: ${c.label} ${measured.ms} ms (first call after ${measured.firstCallMs} ms, load ${measured.load1})\n`);
        } catch (error) {
          // A failed run is reported, not timed; the run's other clients are left out too, so every ratio stays paired.
          failed.push(`run ${r + 1}, ${c.label}: ${failureReason(error)}`);
          process.stderr.write(`${n} TG run ${r + 1}: ${c.label} FAILED: ${(error as Error).message.slice(0, 500)}\n`);
          process.stderr.write(`studyflow dev, its last lines:\n${dev.tail().slice(-40).join('\n')}\n`);
        }
      }
      if (measuredRun.size === clients.length) for (const [label, measured] of measuredRun) byClient.get(label)!.push(measured);
    }
    if (!byClient.get('studyflow')!.length) {
      incomplete.push(n);
      failures.push(...failed.map((f) => `${n} target groups, ${f}`));
      continue;
    }
    const med = (label: string, f: (x: OutsideViewClientRun) => number | null | undefined) => {
      const values = (byClient.get(label) ?? []).map(f).filter((v): v is number => typeof v === 'number');
      return values.length ? median(values) : null;
    };
    const hand = med('hand-written', (x) => x.ms)!;
    const sf = med('studyflow', (x) => x.ms)!;
    const cmp = compareBin ? med(compareLabel, (x) => x.ms) : null;
    rows.push({
      targetGroups: n,
      handWrittenMs: hand,
      studyflowMs: sf,
      ratio: ratio(sf, hand),
      pairedRatios: byClient.get('studyflow')!.map((s, i) => Number((s.ms / byClient.get('hand-written')![i].ms).toFixed(2))),
      firstCallMs: { handWritten: med('hand-written', (x) => x.firstCallMs), studyflow: med('studyflow', (x) => x.firstCallMs), ...(compareBin ? { compare: med(compareLabel, (x) => x.firstCallMs) } : {}) },
      ...(compareBin ? { compareMs: cmp, compareRatio: ratio(cmp!, hand) } : {}),
      runs: Object.fromEntries(byClient),
    });
    failures.push(...failed.map((f) => `${n} target groups, ${f}`));
  }
} finally {
  await dev.stop();
  fs.rmSync(dir, { recursive: true, force: true });
}
const loads = rows.flatMap((r) => Object.values(r.runs).flat().map((x) => x.load1));
const result: OutsideViewResult = {
  benchmark: 'outside-view',
  command: `node bin/run-ts.js bench/outside-view.ts ${process.argv.slice(2).join(' ')}`.trim(),
  ...context,
  latencyMs,
  jobMs,
  pollMs: POLL_MS,
  boundMs,
  boundCalls: BOUND_CALLS,
  runsPerSize: runs,
  ...(compareBin ? { compare: { label: compareLabel, bin: compareBin } } : {}),
  load1Range: loads.length ? [Math.min(...loads), Math.max(...loads)] : null,
  rows,
  incomplete,
  failures,
};
writeResult('outside-view', result);
process.stderr.write('outside-view: wrote bench/out/outside-view.json\n');
