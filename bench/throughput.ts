// Benchmark: studies per minute through one `studyflow worker` process, then two. Each round
// applies `--studies` fresh studies of `--target-groups` target groups at once
// (`studyflow apply <dir> --require-live`) and times them from the apply until the last target
// group of the last study is live.
//
//   node bin/run-ts.js bench/throughput.ts [--studies 10] [--target-groups 4] [--latency 50] [--job 500] [--rate 1000] [--timeout-s 150]
//
// A round that is not all live after --timeout-s counts the studies that were.
import fs from 'node:fs';
import path from 'node:path';
import { studyWorkflowId } from '../workflows/messages';
import { benchStudyYaml, loadAverage, numberArg, queryStudyStatus, runContext, startBenchStack, writeResult, type BenchStack } from './bench-stack';
import { apiCalls, entriesBetween } from './critical-path';
import { applyThroughClient, describeApplied } from './apply-through-client';
import type { ThroughputResult, ThroughputRow } from './result-types';
import { lastLiveAtMs } from './study-timing';

const studies = numberArg('studies', 10);
const targetGroups = numberArg('target-groups', 4);
const latencyMs = numberArg('latency', 50);
const jobMs = numberArg('job', 500);
const rate = numberArg('rate', 1000);
const timeoutS = numberArg('timeout-s', 150);
const ACCOUNT = '1001';

async function round(bench: BenchStack, label: string, workers: number): Promise<ThroughputRow> {
  const dir = path.join(bench.dir, label);
  fs.mkdirSync(dir);
  const ids = Array.from({ length: studies }, (_, i) => `${label}-${String(i).padStart(3, '0')}`);
  for (const id of ids) fs.writeFileSync(path.join(dir, `${id}.yaml`), benchStudyYaml(id, targetGroups));
  await bench.waitForQuietApi();
  const load = loadAverage();
  const startedAt = Date.now();
  const applied = await applyThroughClient([dir], bench.env, { requireLive: true, timeoutS });
  const cliMs = Date.now() - startedAt;
  const timedOut = applied.code !== 0 && applied.studies.some((s) => s.outcome === 'timeout');
  if (applied.code !== 0 && !timedOut) throw new Error(`apply of ${studies} studies (${workers} worker(s)) exited ${applied.code}: ${describeApplied(applied)}`);
  const liveAt: number[] = [];
  for (const id of ids) {
    const handle = bench.client.workflow.getHandle(studyWorkflowId(ACCOUNT, id));
    try {
      liveAt.push(lastLiveAtMs(await queryStudyStatus(bench.client, handle.workflowId)));
    } catch (error) {
      if (!timedOut) throw error;
      await handle.cancel(); // not live within the time limit: stop it before the next round
    }
  }
  // Timed out: the studies that went live, over the time limit.
  const wallMs = timedOut ? cliMs : Math.max(...liveAt) - startedAt;
  const done = liveAt.length;
  const calls = apiCalls(entriesBetween(await bench.sandbox.requests(), startedAt)).length;
  const row: ThroughputRow = {
    workers,
    studies,
    targetGroupsPerStudy: targetGroups,
    loadAverage: load,
    allLiveMs: wallMs,
    cliReturnMs: cliMs,
    studiesPerMinute: Number(((done * 60_000) / wallMs).toFixed(1)),
    targetGroupsPerMinute: Number(((done * targetGroups * 60_000) / wallMs).toFixed(1)),
    apiCalls: calls,
    ...(timedOut ? { timedOut: true, studiesLive: done } : {}),
  };
  process.stderr.write(`throughput ${workers} worker(s): ${studies} studies live in ${wallMs} ms = ${row.studiesPerMinute} studies/min\n`);
  return row;
}

const context = runContext();
const bench = await startBenchStack({ faults: { latency_ms: latencyMs, job_duration_ms: jobMs }, apiRatePerSecond: rate, inProcessWorker: false });
const results: ThroughputRow[] = [];
try {
  await bench.spawnWorker();
  // Warm-up (not measured): the worker loads the workflow code and fetches its token.
  fs.writeFileSync(path.join(bench.dir, 'warmup.yaml'), benchStudyYaml('warmup', 1));
  const warm = await applyThroughClient([path.join(bench.dir, 'warmup.yaml')], bench.env, { requireLive: true });
  if (warm.code !== 0) throw new Error(`warm-up apply exited ${warm.code}: ${describeApplied(warm)}`);
  results.push(await round(bench, 'one-worker', 1));
  await bench.spawnWorker();
  results.push(await round(bench, 'two-workers', 2));
} finally {
  await bench.stop();
}

const report: ThroughputResult = {
  benchmark: 'throughput',
  command: `node bin/run-ts.js bench/throughput.ts --studies ${studies} --target-groups ${targetGroups} --latency ${latencyMs} --job ${jobMs} --rate ${rate} --timeout-s ${timeoutS}`,
  ...context,
  latencyMs,
  jobMs,
  apiRatePerSecond: rate,
  results,
  scaling: Number((results[1].studiesPerMinute / results[0].studiesPerMinute).toFixed(2)),
};
writeResult('throughput', report);
process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
