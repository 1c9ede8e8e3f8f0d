// The headline benchmark: speed as a buyer sees it. `studyflow apply FILE --require-live` runs as a process of
// its own and is timed from spawn to exit, until every target group is live; beside it, on the same sandbox in
// the same run, the fastest client a buyer could write by hand (bench/hand-written-client.mjs: no Temporal, no
// reads before writes, every target group in parallel). The bound is the least any client must do: a token, the
// project create, a draft create, the launch and the poll that sees the job done, one after the other, plus the
// job's own duration.
//
//   node bin/run-ts.js bench/buyer-view.ts [--sizes 1,10,50,200] [--runs 3] [--latency 50] [--job 500]
//       [--compare LABEL=DIR] [--hand-written no] [--trace yes] [--budget-s 420]
//
// The sandbox (its own process) answers every call after --latency ms and keeps every job Processing for --job
// ms. One `studyflow worker` process runs the workflows, against a private Temporal dev server. Per size and
// run: the wall time of each, the API calls and writes the apply made, the history events of its workflows and
// the CPU the worker and the Temporal server used, per target group, counted from the spawn until worker and
// server are idle again (work the workflows do after the command returned is counted); the first run of each size is re-applied
// unchanged, which must write nothing. --compare runs `studyflow apply` of another built checkout (its own
// sandbox and worker) on the same sizes in the same run, e.g. the code before a change.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { RequestLogEntry } from '../sandbox';
import proto from '@temporalio/proto';
import { studyWorkflowId } from '../workflows/messages';
import { STUDY_ID } from '../workflows/search-attributes';
import { benchStudyYaml, numberArg, REPO_ROOT, startBenchStack, stringArg, writeResult, runContext, type BenchStack } from './bench-stack';
import { apiCalls, apiWrites } from './critical-path';
import { applyTimeline, isJobPoll, type TimedEvent } from './timeline';
import { cpuMeter, processNamed, waitForIdleProcesses } from './process-cpu';
import { median, ratio } from './stats';
import type { BuyerViewResult, BuyerViewRow, BuyerViewRun } from './result-types';

const sizes = stringArg('sizes', '1,10,50,200').split(',').map(Number);
const runs = numberArg('runs', 3);
const latencyMs = numberArg('latency', 50);
const jobMs = numberArg('job', 500);
const budgetS = numberArg('budget-s', 420);
const compare = stringArg('compare', '');
/** `--hand-written no` leaves the hand-written client out (e.g. against a sandbox that speaks another wire). */
const withHandWritten = stringArg('hand-written', 'yes') !== 'no';
/** `--trace yes` prints each API call of the first studyflow run of every size: ms after spawn, method, route, status. */
const trace = stringArg('trace', 'no') === 'yes';
if (sizes.some((n) => !Number.isInteger(n) || n < 1)) throw new Error(`--sizes must be positive integers, got ${sizes.join(',')}`);
if (!Number.isInteger(runs) || runs < 1) throw new Error(`--runs must be a positive integer, got ${runs}`);

const ACCOUNT = '1001';
const POLL_MS = 50;
/** The least any client must do, one call after the other: token, project create, draft create, launch, the poll that sees the job done. */
const BOUND_CALLS = ['POST …/oauth/token', 'POST …/projects', 'POST …/projects/{project_id}/target-groups', 'POST …/launch-from-draft', 'GET …/launch-from-draft/{job_id} (Completed)'];
const boundMs = BOUND_CALLS.length * latencyMs + jobMs;
const deadline = performance.now() + budgetS * 1000;

interface Timed {
  code: number | null;
  ms: number;
  stdout: string;
  stderr: string;
}

/** Runs a command as its own process; the wall time from spawn to exit. */
function timedProcess(argv: string[], env: Record<string, string>, cwd: string): Promise<Timed> {
  const started = performance.now();
  const child = spawn(process.execPath, argv, { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, ms: Math.round(performance.now() - started), stdout, stderr })));
}

async function sandboxInfo(bench: BenchStack) {
  return (await (await fetch(`${bench.sandbox.baseUrl}/_sandbox/info`)).json()) as {
    auth_url: string;
    audience: string;
    client_id: string;
    client_secret: string;
    accounts: { account_id: string | number; business_unit_ids: (string | number)[]; project_manager_ids: (string | number)[] }[];
  };
}

/** One run of the hand-written client: its wall time and its calls (the token and the job polls included). */
interface HandRun {
  ms: number;
  calls: number;
  polls: number;
}

async function handWritten(bench: BenchStack, n: number, runId: string): Promise<HandRun> {
  const info = await sandboxInfo(bench);
  const account = info.accounts.find((a) => String(a.account_id) === ACCOUNT);
  if (!account) throw new Error(`the sandbox has no account ${ACCOUNT}`);
  const argv = [
    path.join(REPO_ROOT, 'bench', 'hand-written-client.mjs'),
    ...['--base-url', bench.sandbox.baseUrl, '--auth-url', info.auth_url, '--audience', info.audience, '--client-id', info.client_id, '--client-secret', info.client_secret],
    ...['--account', ACCOUNT, '--business-unit', String(account.business_unit_ids[0]), '--project-manager', String(account.project_manager_ids[0])],
    ...['--target-groups', String(n), '--poll-ms', String(POLL_MS), '--run-id', runId],
  ];
  const result = await timedProcess(argv, {}, REPO_ROOT);
  if (result.code !== 0) throw new Error(`the hand-written client failed at ${n}: ${result.stderr.slice(-2000)}`);
  const { calls, polls } = JSON.parse(result.stdout.trim().split('\n').pop()!) as { calls: number; polls: number };
  return { ms: result.ms, calls, polls };
}

/** History events of every workflow of a study (the study's and its target groups'), as they stand. */
async function historyEvents(bench: BenchStack, studyId: string): Promise<number> {
  let events = 0;
  for await (const wf of bench.client.workflow.list({ query: `${STUDY_ID.name} = "${studyId}"` })) {
    const history = await bench.client.workflow.getHandle(wf.workflowId, wf.runId).fetchHistory();
    events += history.events?.length ?? 0;
  }
  return events;
}

/** The study workflow's history events, ms after `fromMs`. */
async function studyEvents(bench: BenchStack, studyId: string, fromMs: number): Promise<TimedEvent[]> {
  const history = await bench.client.workflow.getHandle(studyWorkflowId(ACCOUNT, studyId)).fetchHistory();
  return (history.events ?? []).map((event) => ({
    type: (proto.temporal.api.enums.v1.EventType[event.eventType ?? 0] ?? String(event.eventType)).replace(/^EVENT_TYPE_/, '').toLowerCase(),
    atMs: Number(event.eventTime?.seconds ?? 0) * 1000 + Math.round((event.eventTime?.nanos ?? 0) / 1e6) - fromMs,
  }));
}

/**
 * `--trace yes`: the API calls and the study workflow's history events of a run, in one timeline of ms after
 * the spawn (a run of many target groups prints the calls of each route as one line: first, last, count).
 */
async function printTrace(bench: BenchStack, studyId: string, n: number, exitMs: number, fromMs: number, calls: RequestLogEntry[]): Promise<void> {
  const lines: { at: number; text: string }[] = [];
  const byRoute = new Map<string, { first: number; last: number; count: number }>();
  for (const e of calls) {
    const at = Date.parse(e.time) - fromMs;
    const key = `${e.method.padEnd(6)} ${shortRoute(e.route ?? e.path)}`;
    const seen = byRoute.get(key);
    if (seen && n > 1) {
      seen.last = at;
      seen.count += 1;
    } else if (!seen) byRoute.set(key, { first: at, last: at, count: 1 });
    if (n === 1) lines.push({ at, text: `API   ${key}  ${e.status}` });
  }
  if (n > 1) for (const [key, r] of byRoute) lines.push({ at: r.first, text: `API   ${key}  x${r.count}, last at +${Math.round(r.last)}` });
  for (const event of await studyEvents(bench, studyId, fromMs)) lines.push({ at: event.atMs, text: `study ${event.type}` });
  process.stderr.write(`trace of ${n} target group(s), ms after spawn (exit at ${exitMs} ms):\n`);
  for (const line of lines.sort((a, b) => a.at - b.at)) process.stderr.write(`  +${String(Math.round(line.at)).padStart(5)}  ${line.text}\n`);
}

function entriesDuring(log: RequestLogEntry[], fromMs: number, toMs: number): RequestLogEntry[] {
  return log.filter((e) => {
    const t = Date.parse(e.time);
    return t >= fromMs && t <= toMs;
  });
}

/** A route without the account prefix, and `TG` for a target group's path, for the trace. */
function shortRoute(route: string): string {
  return route.replace('/v1/demand/accounts/{account_id}', '').replace('/projects/{project_id}/target-groups/{target_group_id}', '/TG');
}

/**
 * The benchmark study in the format of the checkout under test: a --compare checkout from before a study
 * format change writes its study with its own bench/bench-stack.ts.
 */
async function studyYamlOf(root: string): Promise<typeof benchStudyYaml> {
  if (path.resolve(root) === REPO_ROOT) return benchStudyYaml;
  const theirs = (await import(pathToFileURL(path.join(root, 'bench', 'bench-stack.ts')).href)) as { benchStudyYaml: typeof benchStudyYaml };
  return theirs.benchStudyYaml;
}

async function studyflowRun(bench: BenchStack, root: string, workerPid: number | undefined, n: number, runId: string, reapply: boolean): Promise<BuyerViewRun> {
  const studyId = `bv-${runId}`;
  const file = path.join(bench.dir, `${studyId}.yaml`);
  fs.writeFileSync(file, (await studyYamlOf(root))(studyId, n));
  const temporalPid = processNamed(bench.temporal.pid, 'temporal');
  await waitForIdleProcesses([temporalPid, workerPid, bench.sandbox.pid]);
  const meter = cpuMeter({ temporalServer: temporalPid, worker: workerPid });
  const fromMs = Date.now();
  const applied = await timedProcess([path.join(root, 'bin', 'studyflow.js'), 'apply', file, '--require-live', '--timeout', '300'], bench.env, bench.dir);
  if (applied.code !== 0) throw new Error(`studyflow apply of ${n} target groups exited ${applied.code}: ${applied.stderr.slice(-2000)}`);
  // The workflows may go on a moment after the command returns (the watchers of target groups that went
  // live start once the revision settled): CPU, calls and history are counted until worker and server idle.
  await waitForIdleProcesses([temporalPid, workerPid]);
  const cpu = meter.stop();
  const during = entriesDuring(await bench.sandbox.requests(), fromMs, Date.now());
  if (trace && reapply) await printTrace(bench, studyId, n, applied.ms, fromMs, during);
  const calls = apiCalls(during);
  const timed = calls.map((c) => ({ method: c.method, route: c.route, atMs: c.startMs - fromMs }));
  const timeline = reapply ? applyTimeline(timed, await studyEvents(bench, studyId, fromMs), applied.ms) : undefined;
  const run: BuyerViewRun = {
    ms: applied.ms,
    calls: calls.length,
    polls: calls.filter(isJobPoll).length,
    writes: apiWrites(during),
    historyEvents: await historyEvents(bench, studyId),
    cpuMs: { worker: cpu.cpuMs.worker ?? 0, temporalServer: cpu.cpuMs.temporalServer ?? 0 },
    ...(timeline ? { timeline } : {}),
  };
  if (reapply) {
    const again = Date.now();
    const second = await timedProcess([path.join(root, 'bin', 'studyflow.js'), 'apply', file, '--require-live', '--timeout', '300'], bench.env, bench.dir);
    if (second.code !== 0) throw new Error(`re-apply of ${n} target groups exited ${second.code}: ${second.stderr.slice(-2000)}`);
    run.reapply = { ms: second.ms, writes: apiWrites(entriesDuring(await bench.sandbox.requests(), again, Date.now())) };
  }
  return run;
}

function row(n: number, handRuns: HandRun[], studyflowRuns: BuyerViewRun[]): BuyerViewRow {
  const sf = median(studyflowRuns.map((r) => r.ms));
  const hand = handRuns.length ? median(handRuns.map((r) => r.ms)) : null;
  const perTg = (f: (r: BuyerViewRun) => number) => Number((median(studyflowRuns.map(f)) / n).toFixed(1));
  return {
    targetGroups: n,
    boundMs,
    handWrittenMs: hand,
    handWrittenRunsMs: handRuns.map((r) => r.ms),
    handWrittenCallsPerTargetGroup: handRuns.length ? Number((median(handRuns.map((r) => r.calls)) / n).toFixed(1)) : null,
    handWrittenPollsPerTargetGroup: handRuns.length ? Number((median(handRuns.map((r) => r.polls)) / n).toFixed(1)) : null,
    studyflowMs: sf,
    studyflowRunsMs: studyflowRuns.map((r) => r.ms),
    ratioToHandWritten: ratio(sf, hand),
    ratioToBound: ratio(sf, boundMs),
    callsPerTargetGroup: perTg((r) => r.calls),
    pollsPerTargetGroup: perTg((r) => r.polls),
    writesPerTargetGroup: perTg((r) => r.writes),
    historyEventsPerTargetGroup: perTg((r) => r.historyEvents),
    cpuMsPerTargetGroup: { worker: perTg((r) => r.cpuMs.worker), temporalServer: perTg((r) => r.cpuMs.temporalServer) },
    reapplyWrites: studyflowRuns.reduce((sum, r) => sum + (r.reapply?.writes ?? 0), 0),
    runs: studyflowRuns,
  };
}

async function measure(label: string, root: string, withHandWritten: boolean): Promise<{ label: string; root: string; rows: BuyerViewRow[]; incomplete: number[] }> {
  process.stderr.write(`\n-- ${label}: studyflow from ${root}\n`);
  const bench = await startBenchStack({ faults: { latency_ms: latencyMs, job_duration_ms: jobMs }, inProcessWorker: false, root });
  try {
    const worker = await bench.spawnWorker();
    // Warm-up: one small study through every path, not counted.
    await studyflowRun(bench, root, worker.pid, 10, `${label}-warm`, false);
    const rows: BuyerViewRow[] = [];
    const incomplete: number[] = [];
    for (const n of sizes) {
      if (performance.now() > deadline) {
        incomplete.push(n);
        continue;
      }
      const handRuns: HandRun[] = [];
      const studyflowRuns: BuyerViewRun[] = [];
      for (let r = 0; r < runs; r += 1) {
        const runId = `${label}-${n}-${r}-${process.pid}`;
        if (withHandWritten) handRuns.push(await handWritten(bench, n, runId));
        studyflowRuns.push(await studyflowRun(bench, root, worker.pid, n, runId, r === 0));
        process.stderr.write(`${label} ${n} TG run ${r + 1}: studyflow ${studyflowRuns[r].ms} ms${withHandWritten ? `, hand-written ${handRuns[r].ms} ms` : ''}\n`);
      }
      rows.push(row(n, handRuns, studyflowRuns));
    }
    return { label, root, rows, incomplete };
  } finally {
    await bench.stop();
  }
}

const context = runContext();
const measured = [await measure('studyflow', REPO_ROOT, withHandWritten)];
if (compare) {
  const [label, dir] = compare.split('=');
  if (!label || !dir || !fs.existsSync(path.join(dir, 'dist', 'cli', 'studyflow.js'))) throw new Error(`--compare takes LABEL=DIR of a built checkout, got "${compare}"`);
  measured.push(await measure(label, path.resolve(dir), false));
}
const result: BuyerViewResult = {
  benchmark: 'buyer-view',
  command: `node bin/run-ts.js bench/buyer-view.ts ${process.argv.slice(2).join(' ')}`.trim(),
  ...context,
  latencyMs,
  jobMs,
  pollMs: POLL_MS,
  boundMs,
  boundCalls: BOUND_CALLS,
  runsPerSize: runs,
  versions: measured,
};
writeResult('buyer-view', result);
process.stderr.write(`buyer-view: wrote bench/out/buyer-view.json\n`);
