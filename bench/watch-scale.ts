// The cost of watching live target groups at scale (issue 29, "Cost at scale, measured"): N live target
// groups in studies of `--per-study` each, watched by ONE `studyflow worker` process, against the sandbox in
// its own process (fielding simulation on: sessions arrive in real time times `--speed`) and a real Temporal
// dev server. After a warm-up, one measured window reports:
//   - API calls per hour by operation (the worker's own /metrics counter studyflow_api_calls_total), and the
//     average rate against the worker's API rate limit (STUDYFLOW_API_RATE_LIMIT, 20/s by default);
//   - worker CPU and Temporal dev server CPU (process CPU time from /proc over the window / wall time, in cores);
//   - RSS of both (VmRSS, sampled every 5 s: the last and the peak);
//   - history events per target group per day: the growth of every workflow run's history length over the
//     window (target groups' and studies' runs, continued-as-new runs included), per target group, scaled to a day.
// Set-up is not measured: the studies are applied through the study client (the real path: drafts, gates,
// launch jobs, hand-over) with a worker whose API rate is raised (`--setup-rate`), which also takes every target
// group's first figures (its first performance reading and drift check); that worker is then stopped and the
// measured worker starts with the default rate (or `--rate`). Everything binds loopback; the run ends
// on its own (set-up timeout, then warm-up + window).
//
//   node bin/run-ts.js bench/watch-scale.ts --tgs 1000 --per-study 100 --watch-ms 300000 --warmup-s 330 --window-s 600 --label before
import fs from 'node:fs';
import path from 'node:path';
import { findFreePort } from '../dev/free-port';
import { applyThroughClient, describeApplied } from './apply-through-client';
import { benchStudyYaml, loadAverage, numberArg, runContext, startBenchStack, stringArg, writeResult, REPO_ROOT, type BenchStack } from './bench-stack';
import { processCpuMs, processNamed } from './process-cpu';
import { countTargetGroupsInPhase } from '../worker/target-group-phases';
import { TARGET_GROUP_PHASES } from '../workflows/search-attributes';

const tgs = numberArg('tgs', 1000);
const perStudy = numberArg('per-study', 100);
const watchMs = numberArg('watch-ms', 300_000);
const warmupS = numberArg('warmup-s', Math.round(watchMs / 1000) + 30);
const windowS = numberArg('window-s', 600);
const speed = numberArg('speed', 0.05);
const setupRate = numberArg('setup-rate', 400);
const rate = numberArg('rate', 20);
const goal = numberArg('goal', 5000);
const applyBatch = numberArg('apply-batch', 10);
const setupTimeoutS = numberArg('setup-timeout-s', 1800);
/**
 * Stop applying studies once set-up has run this long (0: apply them all) and measure the target groups applied:
 * the result's `settings.watchedTgs` says how many (every per-target-group figure is over those).
 */
const applyDeadlineS = numberArg('apply-deadline-s', 0);
/**
 * 1 (default): set-up lasts until the first figures' reads of every target group (its first performance reading and
 * drift check, one watch interval after its study settled) have run at the set-up rate; 0: they fall to the measured worker.
 */
const absorbFirstReads = numberArg('absorb-first-reads', 1) === 1;
const label = stringArg('label', 'current');
/** Another checkout of studyflow (built) whose worker and sandbox run: the version measured "before". */
const root = stringArg('root', REPO_ROOT);
const studies = Math.ceil(tgs / perStudy);
/**
 * The workers' workflow cache (STUDYFLOW_WORKFLOW_CACHE): by default room for every target group's run and every
 * study's, plus a tenth (a run not cached is replayed from its whole history at its next task). 0: the SDK's default.
 */
const workflowCache = numberArg('workflow-cache', Math.ceil((tgs + studies) * 1.1));

const log = (line: string) => process.stderr.write(`[watch-scale ${new Date().toISOString().slice(11, 19)}] ${line}\n`);

/** The scale benchmark's studies: every target group's goal is --goal, launched without a feasibility gate, jobs polled from 200 ms to 1 s. */
const studyYaml = (studyId: string, n: number) =>
  benchStudyYaml(studyId, n, { projectName: 'Watch scale', goal: () => goal, launch: '{ mode: auto, require_feasible: false }', poll: { initial: 200, max: 1000 } });

/** studyflow_api_calls_total from the worker's /metrics, summed by operation. */
async function apiCalls(metricsUrl: string): Promise<Record<string, number>> {
  const text = await (await fetch(metricsUrl)).text();
  const out: Record<string, number> = {};
  for (const line of text.split('\n')) {
    const m = /^studyflow_api_calls_total\{([^}]*)\} (\S+)$/.exec(line);
    if (!m) continue;
    const op = /operation="([^"]*)"/.exec(m[1])?.[1] ?? 'other';
    out[op] = (out[op] ?? 0) + Number(m[2]);
  }
  return out;
}

function rssMiB(pid: number | undefined): number | undefined {
  if (!pid) return undefined;
  try {
    const kb = /VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb ? Math.round(Number(kb) / 1024) : undefined;
  } catch {
    return undefined;
  }
}

/** Running target-group workflows of the bench's task queue in `phase`, counted in Temporal's visibility. */
function phaseCount(stack: BenchStack, phase: string): Promise<number> {
  return countTargetGroupsInPhase(stack.client.workflowService, 'default', stack.env.STUDYFLOW_TASK_QUEUE, phase);
}

async function main(): Promise<void> {
  const context = runContext();
  log(`${tgs} target groups in ${studies} studies; watch interval ${watchMs} ms; load ${context.loadAverageAtStart.join(' / ')}`);

  const stack = await startBenchStack({ faults: {}, inProcessWorker: false, root });
  const hardStop = setTimeout(() => {
    log('time limit reached: stopping');
    void stack.stop().finally(() => process.exit(2));
  }, (setupTimeoutS + warmupS + windowS + 300) * 1000);
  hardStop.unref();
  try {
    log(`stack in ${stack.dir} (the Temporal server's log: temporal.sqlite.log)`);
    stack.env.STUDYFLOW_WATCH_INTERVAL_MS = String(watchMs);
    if (workflowCache > 0) stack.env.STUDYFLOW_WORKFLOW_CACHE = String(workflowCache);
    const settings = await fetch(`${stack.sandbox.baseUrl}/_sandbox/fielding/settings`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ speed, auto_advance: false }),
    });
    if (!settings.ok) throw new Error(`sandbox fielding settings answered ${settings.status}`);

    // Set-up (not measured): a worker with a raised API rate applies the studies.
    stack.env.STUDYFLOW_API_RATE_LIMIT = String(setupRate);
    const setupMetricsPort = await findFreePort();
    stack.env.STUDYFLOW_METRICS_PORT = String(setupMetricsPort);
    const setupWorker = await stack.spawnWorker();
    const setupStarted = Date.now();
    const dir = path.join(stack.dir, 'studies');
    fs.mkdirSync(dir, { recursive: true });
    const ids = Array.from({ length: studies }, (_, s) => `ws${String(s).padStart(4, '0')}`);
    const sizes = ids.map((_, s) => Math.min(perStudy, tgs - s * perStudy));
    ids.forEach((id, s) => fs.writeFileSync(path.join(dir, `${id}.yaml`), studyYaml(id, sizes[s])));
    let appliedCount = ids.length;
    for (let i = 0; i < ids.length; i += applyBatch) {
      if (applyDeadlineS > 0 && Date.now() - setupStarted > applyDeadlineS * 1000) {
        appliedCount = i;
        log(`apply deadline of ${applyDeadlineS} s passed: measuring the ${i} studies applied`);
        break;
      }
      const batch = ids.slice(i, i + applyBatch).map((id) => path.join(dir, `${id}.yaml`));
      const applied = await applyThroughClient(batch, stack.env, { requireLive: true, timeoutS: setupTimeoutS });
      if (applied.code !== 0) throw new Error(`apply of ${batch.length} studies exited ${applied.code}:\n${describeApplied(applied)}`);
      log(`applied ${Math.min(i + applyBatch, ids.length)}/${ids.length} studies (${Math.round((Date.now() - setupStarted) / 1000)} s)`);
    }
    const watchedTgs = sizes.slice(0, appliedCount).reduce((sum, n) => sum + n, 0);
    // Every applied target group's workflow live, as Temporal's visibility counts the StudyflowPhase it upserts
    // (a count every 5 s, not a status query per study: a study busy with its children's signals buffers queries).
    for (let lastLive = -1; ; ) {
      const live = await phaseCount(stack, 'live').catch(() => -1);
      if (live !== lastLive) log(`${live} of ${watchedTgs} target groups live (${Math.round((Date.now() - setupStarted) / 1000)} s)`);
      lastLive = live;
      if (live >= watchedTgs) break;
      if (Date.now() - setupStarted > setupTimeoutS * 1000) throw new Error(`${live} of ${watchedTgs} target groups live after the set-up timeout`);
      await new Promise((r) => setTimeout(r, 5000));
    }
    // The first figures of every target group (one watch interval after its study settled) wake it for its first
    // performance reading and drift check: 4 calls each, the launch's cost, taken at the set-up rate. Set-up ends once
    // the set-up worker's API calls are back under the measured rate limit.
    if (absorbFirstReads) {
      log(`waiting for the first figures' reads (one watch interval, then until the API calls fall under ${rate}/s)`);
      await new Promise((r) => setTimeout(r, watchMs + 15_000));
      const setupMetrics = `http://127.0.0.1:${setupMetricsPort}/metrics`;
      const total = async () => Object.values(await apiCalls(setupMetrics)).reduce((a, b) => a + b, 0);
      for (let before = await total(); ; ) {
        await new Promise((r) => setTimeout(r, 15_000));
        const now = await total();
        const perSecond = (now - before) / 15;
        log(`set-up worker: ${perSecond.toFixed(1)} API calls/s`);
        if (perSecond <= rate) break;
        if (Date.now() - setupStarted > setupTimeoutS * 1000) throw new Error(`the first figures' reads still ran at ${perSecond.toFixed(1)}/s after the set-up timeout`);
        before = now;
      }
    }
    const setupS = Math.round((Date.now() - setupStarted) / 1000);
    log(`set-up done in ${setupS} s; restarting the worker at the default API rate`);
    setupWorker.kill('SIGTERM');
    await new Promise((r) => (setupWorker.exitCode === null ? setupWorker.once('exit', r) : r(undefined)));

    // The measured worker: the rate limit of a default deployment, /metrics on a free loopback port.
    const metricsPort = await findFreePort();
    stack.env.STUDYFLOW_API_RATE_LIMIT = String(rate);
    stack.env.STUDYFLOW_METRICS_PORT = String(metricsPort);
    const worker = await stack.spawnWorker();
    const metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
    const temporalPid = processNamed(stack.temporal.pid, 'temporal');
    log(`warm-up ${warmupS} s`);
    await new Promise((r) => setTimeout(r, warmupS * 1000));

    const history = async () => {
      let tgEvents = 0;
      let studyEvents = 0;
      let runs = 0;
      // The list's history length is the visibility record's (a running workflow's is stale): a running run is described.
      const listed: { workflowId: string; runId: string; type: string; running: boolean; length: number }[] = [];
      for await (const wf of stack.client.workflow.list({ query: `TaskQueue = '${stack.env.STUDYFLOW_TASK_QUEUE}'` })) {
        listed.push({ workflowId: wf.workflowId, runId: wf.runId, type: wf.type, running: wf.status.name === 'RUNNING', length: wf.historyLength });
      }
      for (let i = 0; i < listed.length; i += 50) {
        await Promise.all(
          listed.slice(i, i + 50).map(async (wf) => {
            if (wf.running) wf.length = (await stack.client.workflow.getHandle(wf.workflowId, wf.runId).describe()).historyLength;
          }),
        );
      }
      for (const wf of listed) {
        runs += 1;
        if (wf.type === 'targetGroupWorkflow') tgEvents += wf.length;
        else if (wf.type === 'studyWorkflow') studyEvents += wf.length;
      }
      return { tgEvents, studyEvents, runs };
    };
    const historyBefore = await history();
    const callsBefore = await apiCalls(metricsUrl);
    const cpuBefore = { worker: processCpuMs(worker.pid), temporal: processCpuMs(temporalPid), sandbox: processCpuMs(stack.sandbox.pid) };
    const loadAtWindow = loadAverage();
    const started = performance.now();
    log(`measuring ${windowS} s (load ${loadAtWindow.join(' / ')})`);
    const rss = { worker: [] as number[], temporal: [] as number[] };
    const loads: number[] = [];
    while (performance.now() - started < windowS * 1000) {
      await new Promise((r) => setTimeout(r, 5000));
      const w = rssMiB(worker.pid);
      const t = rssMiB(temporalPid);
      if (w) rss.worker.push(w);
      if (t) rss.temporal.push(t);
      loads.push(loadAverage()[0]);
    }
    const wallMs = performance.now() - started;
    const cpuAfter = { worker: processCpuMs(worker.pid), temporal: processCpuMs(temporalPid), sandbox: processCpuMs(stack.sandbox.pid) };
    const callsAfter = await apiCalls(metricsUrl);
    const historyAfter = await history();
    const hours = wallMs / 3_600_000;
    const callsPerHour: Record<string, number> = {};
    for (const op of new Set([...Object.keys(callsBefore), ...Object.keys(callsAfter)])) {
      const n = (callsAfter[op] ?? 0) - (callsBefore[op] ?? 0);
      if (n > 0) callsPerHour[op] = Math.round(n / hours);
    }
    const totalPerHour = Object.values(callsPerHour).reduce((a, b) => a + b, 0);
    const cores = (name: keyof typeof cpuBefore) => {
      const a = cpuAfter[name];
      const b = cpuBefore[name];
      return a === undefined || b === undefined ? undefined : Number(((a - b) / wallMs).toFixed(3));
    };
    const perTgDay = (events: number) => Math.round((events / watchedTgs / wallMs) * 86_400_000);
    const phases: Record<string, number> = {};
    for (const phase of TARGET_GROUP_PHASES) {
      const n = await phaseCount(stack, phase);
      if (n > 0) phases[phase] = n;
    }
    const max = (xs: number[]) => (xs.length ? Math.max(...xs) : undefined);
    const result = {
      benchmark: 'watch-scale',
      label,
      command: `node bin/run-ts.js bench/watch-scale.ts ${process.argv.slice(2).join(' ')}`,
      context,
      root,
      settings: { tgs, watchedTgs, appliedStudies: appliedCount, applyDeadlineS, perStudy, studies, watchMs, warmupS, windowS, speed, goal, rate, setupRate, workflowCache, absorbFirstReads },
      setupS,
      loadAverage: { atWindowStart: loadAtWindow, oneMinuteDuringWindow: { min: Math.min(...loads), max: Math.max(...loads) } },
      windowS: Math.round(wallMs / 1000),
      apiCallsPerHour: { total: totalPerHour, byOperation: callsPerHour, perSecond: Number((totalPerHour / 3600).toFixed(2)), rateLimitPerSecond: rate, shareOfRateLimit: Number((totalPerHour / 3600 / rate).toFixed(2)) },
      cpuCores: { worker: cores('worker'), temporal: cores('temporal'), sandbox: cores('sandbox') },
      rssMiB: { worker: { last: rss.worker.at(-1), peak: max(rss.worker) }, temporal: { last: rss.temporal.at(-1), peak: max(rss.temporal) } },
      historyEventsPerTgPerDay: {
        targetGroupWorkflows: perTgDay(historyAfter.tgEvents - historyBefore.tgEvents),
        studyWorkflows: perTgDay(historyAfter.studyEvents - historyBefore.studyEvents),
        total: perTgDay(historyAfter.tgEvents - historyBefore.tgEvents + historyAfter.studyEvents - historyBefore.studyEvents),
        runs: { before: historyBefore.runs, after: historyAfter.runs },
      },
      phasesAtEnd: phases,
    };
    const file = writeResult(`watch-scale-${label}-${tgs}`, result);
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    log(`written ${path.relative(REPO_ROOT, file)}`);
  } finally {
    clearTimeout(hardStop);
    await stack.stop();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`watch-scale failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
