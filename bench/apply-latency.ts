// Benchmark: how fast a study's target groups reach the field, against the API's critical-path
// bound and against a sequential script that makes the same calls with the same client.
//
//   node bin/run-ts.js bench/apply-latency.ts [--sizes 1,10,50,200] [--repeat 3] [--latency 50] [--job 500]
//       [--rate 1000] [--baseline-max 50] [--budget-s 390]
//
// Every size is applied --repeat times, each time as a fresh study; the row reports the median run
// (and lists every run's time), since one run on a shared 2-core machine varies by a tenth or more.
// The sandbox (its own process) adds `latency` ms to every call and keeps every job Processing for
// `job` ms. One `studyflow worker` process runs the workflows; `studyflow apply --require-live` runs
// in this process. The bound is the dependent chain of a one-target-group run, read from the
// sandbox's request log (bench/critical-path.ts); the target groups of a bigger study are
// independent once the project exists, so their bound is the same chain. A size that does not go
// live within what is left of --budget-s is reported as incomplete, not waited for.
import fs from 'node:fs';
import path from 'node:path';
import { createActivities, type TargetGroupDesired } from '../activities';
import { createBlobStore } from '../blobs/blob-store';
import { inParallel } from '../activities/concurrency';
import { loadApiConfig } from '../api/http/api-config';
import { createDemandApiClient } from '../api/http/demand-api-client';
import { loadStudyFile } from '../definitions';
import { desiredStudyOf } from '../plan/desired';
import type { RequestLogEntry } from '../sandbox';
import { draftFieldingSpecification, endFieldingAt, feasibilityRequest, priceQuery } from '../plan/launch-gates';
import { studyWorkflowId, targetGroupWorkflowId, type StudyStatus } from '../workflows/messages';
import { FileWebhookSecretStore } from '../webhooks/webhook-secret-store';
import { BENCH_JOB_POLL_MS, benchStudyYaml, loadAverage, numberArg, queryStudyStatus, runContext, startBenchStack, stringArg, writeResult, type BenchStack } from './bench-stack';
import { apiCalls, apiWrites, criticalPathBoundMs, dependentChain, entriesBetween, entriesOfProject, stepLabel, tokenRequests } from './critical-path';
import { EVENT_TYPES, startedAtMs, timeBreakdown, timedEvents, workflowTaskTimeouts } from './history-timing';
import { applyThroughClient, describeApplied } from './apply-through-client';
import { distribution, median, ratio } from './stats';
import { lastLiveAtMs, liveAtMs } from './study-timing';
import { linearFit } from './linear-fit';
import type { ApplyLatencyResult, ApplyLatencyRow, CpuUse } from './result-types';
import { cpuMeter, processNamed, waitForIdleProcesses } from './process-cpu';

const sizes = stringArg('sizes', '1,10,50,200').split(',').map(Number);
const repeat = numberArg('repeat', 3);
const latencyMs = numberArg('latency', 50);
const jobMs = numberArg('job', 500);
const rate = numberArg('rate', 1000);
const baselineMax = numberArg('baseline-max', 50);
const budgetS = numberArg('budget-s', 390);
/** Seconds kept back from the studyflow runs for the baselines of 1 and 10 target groups. */
const BASELINE_RESERVE_S = 15;
if (sizes.some((n) => !Number.isInteger(n) || n < 1)) throw new Error(`--sizes must be positive integers, got ${sizes.join(',')}`);
if (!Number.isInteger(repeat) || repeat < 1) throw new Error(`--repeat must be a positive integer, got ${repeat}`);
/** Target groups of the warm-up study: enough to run the batch paths once before anything is measured. */
const WARM_UP_TARGET_GROUPS = 10;

const ACCOUNT = '1001';
const faults = { latency_ms: latencyMs, job_duration_ms: jobMs };

/** What a buyer would write without studyflow: the same calls with the same client, one target group after the other. */
async function sequentialBaseline(file: string, env: Record<string, string>): Promise<number> {
  const loaded = await loadStudyFile(file);
  if (!loaded.study) throw new Error('the baseline study does not validate');
  const desired = desiredStudyOf(loaded.study.study, {});
  const api = createDemandApiClient({ config: loadApiConfig(env) });
  const a = createActivities({ api, blobs: createBlobStore({ dir: env.STUDYFLOW_BLOB_DIR }), webhookSecrets: new FileWebhookSecretStore(env.STUDYFLOW_WEBHOOK_SECRETS_FILE) });
  const ctx = { accountId: desired.accountId, apiVersion: desired.apiVersion };
  const started = performance.now();
  const { project } = await a.ensureProject({ ctx, idempotencyKey: `baseline/${desired.studyId}/project`, desired: desired.project });
  for (const tg of desired.targetGroups) {
    // The draft body as the study workflow writes it: the draft fields and its fielding window.
    const writtenAt = Date.now();
    const draft = { ...tg.draft, fielding_specification: draftFieldingSpecification(tg, writtenAt) } as TargetGroupDesired;
    const { targetGroup } = await a.ensureDraftTargetGroup({ ctx, projectId: project.id, idempotencyKey: `baseline/${desired.studyId}/${tg.key}`, desired: draft });
    await a.calculateFeasibility({ ctx, request: feasibilityRequest(tg, desired.businessUnitId) });
    await a.generatePricePrediction({ ctx, businessUnitId: desired.businessUnitId, query: priceQuery(tg) });
    const base = { ctx, projectId: project.id, targetGroupId: targetGroup.id };
    const launched = await a.launchFromDraft({ ...base, idempotencyKey: `baseline/${desired.studyId}/${tg.key}/launch`, endFieldingAt: endFieldingAt(tg, writtenAt) });
    while (launched.jobId) {
      const job = await a.getLaunchJob({ ...base, jobId: launched.jobId });
      if (job.status === 'Completed' || job.status === 'Success') break;
      if (job.status === 'Failed') throw new Error(`baseline launch failed: ${job.failureReason}`);
      await new Promise((r) => setTimeout(r, tg.timing.jobPollInitialMs));
    }
  }
  return performance.now() - started;
}

const round = (v: number) => Math.round(v);

/**
 * Where the target groups' time went, from the workflow histories: when each target group's
 * workflow started (after observe, project and drafts in the study workflow), and until it was
 * live, how long it spent waiting for its progress signals to reach the study workflow, for
 * activity dispatch, in activities, in workflow tasks and in timers (medians over target groups).
 */
async function engineBreakdown(bench: BenchStack, first: FirstApply) {
  const keys = Object.keys(first.status.targetGroups).sort();
  const study = timedEvents(await bench.client.workflow.getHandle(studyWorkflowId(ACCOUNT, first.status.studyId)).fetchHistory());
  const children = await inParallel(keys, 8, async (key) => {
    const events = timedEvents(await bench.client.workflow.getHandle(targetGroupWorkflowId(ACCOUNT, first.status.studyId, key)).fetchHistory());
    const liveAt = liveAtMs(first.status.targetGroups[key]);
    return { key, startMs: startedAtMs(events) - first.startedAt, liveMs: liveAt - first.startedAt, breakdown: timeBreakdown(events, liveAt), activitiesScheduled: events.filter((e) => e.type === EVENT_TYPES.activityScheduled).length };
  });
  const med = (f: (c: (typeof children)[number]) => number) => round(median(children.map(f)));
  const signals = children.reduce((a, c) => a + c.breakdown.signals, 0);
  return {
    studyWorkflowActivities: study.filter((e) => e.type === EVENT_TYPES.activityScheduled).length,
    studyWorkflowEvents: study.length,
    studyWorkflowTaskTimeouts: workflowTaskTimeouts(study),
    activitiesPerTargetGroup: med((c) => c.activitiesScheduled),
    targetGroupWorkflowStartedMs: { median: med((c) => c.startMs), last: round(Math.max(...children.map((c) => c.startMs))) },
    perTargetGroupUntilLiveMs: {
      total: med((c) => c.liveMs - c.startMs),
      signalWait: med((c) => c.breakdown.signalWaitMs),
      activityDispatch: med((c) => c.breakdown.activityDispatchMs),
      activityRun: med((c) => c.breakdown.activityRunMs),
      workflowTask: med((c) => c.breakdown.workflowTaskMs),
      timer: med((c) => c.breakdown.timerMs),
    },
    signalsUntilLive: signals,
    meanSignalWaitMs: signals ? round(children.reduce((a, c) => a + c.breakdown.signalWaitMs, 0) / signals) : null,
  };
}

interface FirstApply {
  startedAt: number;
  status: StudyStatus;
  timeToLiveMs: number;
  cliReturnMs: number;
  cpu: CpuUse;
  /** Every call of the apply (including reads after the target groups went live). */
  log: RequestLogEntry[];
  /** Calls that started before the last target group went live: the ones that can be on its path. */
  untilLive: RequestLogEntry[];
}

class ApplyTimedOut extends Error {
  constructor(
    readonly timedOutAfterMs: number,
    readonly liveTargetGroups: number,
  ) {
    super(`apply did not finish within ${Math.round(timedOutAfterMs / 1000)} s`);
  }
}

async function applyStudy(bench: BenchStack, studyId: string, n: number, timeoutS: number): Promise<FirstApply> {
  const file = path.join(bench.dir, `${studyId}.yaml`);
  fs.writeFileSync(file, benchStudyYaml(studyId, n));
  const meter = cpuMeter({ temporalServer: processNamed(bench.temporal.pid, 'temporal'), worker: workerPid, sandbox: bench.sandbox.pid });
  const startedAt = Date.now();
  const started = performance.now();
  const applied = await applyThroughClient([file], bench.env, { requireLive: true, timeoutS });
  const cliReturnMs = performance.now() - started;
  const used = meter.stop();
  const cpu: CpuUse = { ...used, enginePerTargetGroupMs: Math.round(((used.cpuMs.temporalServer ?? 0) + (used.cpuMs.worker ?? 0)) / n) };
  const status = await queryStudyStatus(bench.client, studyWorkflowId(ACCOUNT, studyId));
  if (applied.code !== 0) {
    if (applied.studies[0]?.outcome === 'timeout') {
      // Stop it, so that it does not load the machine while the rest is measured.
      await bench.client.workflow.getHandle(studyWorkflowId(ACCOUNT, studyId)).cancel();
      throw new ApplyTimedOut(cliReturnMs, Object.values(status.targetGroups).filter((t) => t.phase === 'live').length);
    }
    throw new Error(`apply of ${n} target groups exited ${applied.code}:\n${describeApplied(applied)}`);
  }
  const liveAt = lastLiveAtMs(status);
  const log = entriesOfProject(entriesBetween(await bench.sandbox.requests(), startedAt), status.projectId ?? '');
  return { startedAt, status, timeToLiveMs: liveAt - startedAt, cliReturnMs, cpu, log, untilLive: entriesBetween(log, startedAt, liveAt) };
}

/** Figures of the chain of the 1-target-group run, the source of the bound. */
function chainOf(first: FirstApply): NonNullable<ApplyLatencyResult['chain']> {
  const chain = dependentChain(apiCalls(first.untilLive));
  const jobs = chain.filter((s) => s.polls !== undefined).length;
  return {
    derivedFrom: 'sandbox request log of the 1-target-group first apply (calls that started before it was live)',
    steps: chain.map(stepLabel),
    chainCalls: chain.length,
    jobs,
    formula: `${chain.length} x ${latencyMs} ms + ${jobs} x (max(${jobMs}, ${latencyMs}) - ${latencyMs}) ms`,
    boundMs: criticalPathBoundMs(chain, latencyMs, jobMs),
  };
}

const context = runContext();
const benchStarted = Date.now();
const remainingS = () => Math.floor((budgetS * 1000 - (Date.now() - benchStarted)) / 1000);
const bench = await startBenchStack({ faults, apiRatePerSecond: rate, inProcessWorker: false });
let workerPid: number | undefined;
const results: ApplyLatencyRow[] = [];
const incomplete: NonNullable<ApplyLatencyResult['incomplete']> = [];
let chain: ApplyLatencyResult['chain'];
let totalTokenRequests = 0;
try {
  workerPid = (await bench.spawnWorker()).pid;
  // Warm-up (not measured): the worker loads the workflow code, fetches its token, opens connections
  // and runs the batch paths once.
  await applyStudy(bench, 'warmup', WARM_UP_TARGET_GROUPS, 120);
  totalTokenRequests += tokenRequests(await bench.sandbox.requests());

  for (const n of [...new Set([1, ...sizes])].sort((a, b) => a - b)) {
    const timeoutS = remainingS() - BASELINE_RESERVE_S;
    if (timeoutS < 20) {
      incomplete.push({ targetGroups: n, timedOutAfterMs: 0, liveTargetGroups: 0, reason: `not started: ${remainingS()} s of the ${budgetS} s budget left` });
      continue;
    }
    const runs: Array<FirstApply & { studyId: string; load: [number, number, number] }> = [];
    let timedOut: ApplyTimedOut | undefined;
    for (let r = 1; r <= repeat && !timedOut; r += 1) {
      if (r > 1 && remainingS() - BASELINE_RESERVE_S < 20) break;
      // Earlier studies' last reads (a performance read once live) must not fall into this window, nor
      // their after-live engine work (child workflows starting) take the CPU from this run.
      await bench.waitForQuietApi();
      await waitForIdleProcesses([processNamed(bench.temporal.pid, 'temporal'), workerPid, bench.sandbox.pid]);
      const load = loadAverage();
      const studyId = `latency-${n}-${r}`;
      try {
        runs.push({ ...(await applyStudy(bench, studyId, n, remainingS() - BASELINE_RESERVE_S)), studyId, load });
      } catch (error) {
        if (!(error instanceof ApplyTimedOut)) throw error;
        timedOut = error;
      }
    }
    if (timedOut || runs.length === 0) {
      const e = timedOut;
      incomplete.push({
        targetGroups: n,
        timedOutAfterMs: Math.round(e?.timedOutAfterMs ?? 0),
        liveTargetGroups: e?.liveTargetGroups ?? 0,
        reason: e ? `${e.liveTargetGroups} of ${n} live when what was left of the ${budgetS} s budget ran out` : `not started: ${remainingS()} s of the ${budgetS} s budget left`,
      });
      continue;
    }
    for (const run of runs) totalTokenRequests += tokenRequests(run.log);
    // The median run (the lower middle one of an even count) stands for the size.
    const first = [...runs].sort((a, b) => a.timeToLiveMs - b.timeToLiveMs)[Math.floor((runs.length - 1) / 2)];
    const load = first.load;
    const calls = apiCalls(first.log);
    chain ??= chainOf(first);
    const engine = await engineBreakdown(bench, first);

    await bench.waitForQuietApi();
    const reapplyStartedAt = Date.now();
    const reapplyStarted = performance.now();
    const reapply = await applyThroughClient([path.join(bench.dir, `${first.studyId}.yaml`)], bench.env, { timeoutS: 600 });
    const reapplyMs = performance.now() - reapplyStarted;
    if (reapply.code !== 0) throw new Error(`re-apply of ${n} target groups exited ${reapply.code}: ${describeApplied(reapply)}`);
    const reapplyLog = entriesBetween(await bench.sandbox.requests(), reapplyStartedAt);
    totalTokenRequests += tokenRequests(reapplyLog);

    const row: ApplyLatencyRow = {
      targetGroups: n,
      loadAverage: load,
      timeToLiveMs: Math.round(first.timeToLiveMs),
      runsMs: runs.map((run) => Math.round(run.timeToLiveMs)),
      cliReturnMs: Math.round(first.cliReturnMs),
      boundMs: chain.boundMs,
      ratioToBound: ratio(first.timeToLiveMs, chain.boundMs),
      baselineMs: null,
      baselineExtrapolated: false,
      speedupOverBaseline: null,
      apiCalls: calls.length,
      callsPerTargetGroup: Number((calls.length / n).toFixed(2)),
      writes: apiWrites(first.log),
      tokenRequests: tokenRequests(first.log),
      apiCallMs: distribution(calls.map((c) => c.endMs - c.startMs)),
      engine,
      cpu: first.cpu,
      reapply: { wallMs: Math.round(reapplyMs), apiCalls: apiCalls(reapplyLog).length, writes: apiWrites(reapplyLog) },
    };
    results.push(row);
    process.stderr.write(`apply-latency ${n} TG: live after ${row.timeToLiveMs} ms (bound ${row.boundMs} ms, x${row.ratioToBound}), ${row.callsPerTargetGroup} calls/TG, re-apply writes ${row.reapply.writes} (${remainingS()} s of budget left)\n`);
  }

  // The sequential baseline, smallest first, while the budget allows: one target group after the
  // other, so its time is a straight line in the number of target groups; sizes not run are read
  // off the line fitted to the measured ones (and marked extrapolated).
  const measured: { n: number; ms: number }[] = [];
  for (const row of results) {
    const predicted = measured.length >= 2 ? predict(measured, row.targetGroups) : 0;
    if (row.targetGroups > baselineMax || predicted / 1000 > remainingS() - 5) continue;
    const id = `baseline-${row.targetGroups}`;
    const file = path.join(bench.dir, `${id}.yaml`);
    fs.writeFileSync(file, benchStudyYaml(id, row.targetGroups));
    row.baselineMs = Math.round(await sequentialBaseline(file, bench.env));
    measured.push({ n: row.targetGroups, ms: row.baselineMs });
    process.stderr.write(`apply-latency baseline ${row.targetGroups} TG: ${row.baselineMs} ms\n`);
  }
  for (const row of results) {
    if (row.baselineMs === null && measured.length >= 2) {
      row.baselineMs = Math.round(predict(measured, row.targetGroups));
      row.baselineExtrapolated = true;
    }
    row.speedupOverBaseline = ratio(row.baselineMs, row.timeToLiveMs, 1);
  }
} finally {
  await bench.stop();
}

function predict(points: { n: number; ms: number }[], n: number): number {
  const fit = linearFit(points.map((p) => p.n), points.map((p) => p.ms));
  return fit.intercept + fit.slope * n;
}

const byN = (n: number) => results.find((r) => r.targetGroups === n);
const check = (name: string, value: number | null | undefined, limit: number, met: (v: number) => boolean) => ({
  name,
  measured: value ?? null,
  limit,
  met: value !== null && value !== undefined && met(value),
});
const report: ApplyLatencyResult = {
  benchmark: 'apply-latency',
  command: `node bin/run-ts.js bench/apply-latency.ts --sizes ${sizes.join(',')} --repeat ${repeat} --latency ${latencyMs} --job ${jobMs} --rate ${rate} --baseline-max ${baselineMax} --budget-s ${budgetS}`,
  ...context,
  latencyMs,
  jobMs,
  jobPollMs: { ...BENCH_JOB_POLL_MS },
  repeat,
  warmUpTargetGroups: WARM_UP_TARGET_GROUPS,
  apiRatePerSecond: rate,
  budgetS,
  tokenRequestsWholeRun: totalTokenRequests,
  chain,
  results,
  incomplete,
  targets: [
    check('50 target groups live within 1.5x the bound', byN(50)?.ratioToBound, 1.5, (v) => v <= 1.5),
    check('200 target groups live within 2x the bound', byN(200)?.ratioToBound, 2, (v) => v <= 2),
    check('at least 10x faster than the sequential baseline at 50', byN(50)?.speedupOverBaseline, 10, (v) => v >= 10),
  ],
};
writeResult('apply-latency', report);
process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
