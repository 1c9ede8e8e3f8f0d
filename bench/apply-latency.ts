// Benchmark: how fast a study's target groups reach the field, against the API's critical-path
// bound and against a sequential script that makes the same calls with the same client.
//
//   node bin/run-ts.js bench/apply-latency.ts [--sizes 1,10,50,200] [--latency 50] [--job 500]
//
// The sandbox adds `latency` ms to every call and keeps every job Processing for `job` ms. The
// bound is the longest chain of dependent calls (token, project lookup, project create, draft
// create, feasibility, price, launch read, launch, the poll that sees the job done) times the
// latency, plus the job duration: no client can be faster against this API.
import fs from 'node:fs';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { main } from '../cli/main';
import { createActivities } from '../activities';
import { createBlobStore } from '../activities/blob-store';
import { loadApiConfig } from '../activities/http/api-config';
import { createDemandApiClient } from '../activities/http/demand-api-client';
import { loadStudyFile } from '../definitions';
import { desiredStudyOf } from '../plan/desired';
import { feasibilityRequest, priceQuery } from '../workflows/launch-gates';
import { FileWebhookSecretStore } from '../worker/webhook-secret-store';
import { benchStudyYaml, machineFacts, startBenchStack, writeResult } from './bench-stack';

const CHAIN_CALLS = 9;

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1] : fallback;
}

const sizes = arg('sizes', '1,10,50,200').split(',').map(Number);
const latencyMs = Number(arg('latency', '50'));
const jobMs = Number(arg('job', '500'));
const rate = Number(arg('rate', '2000'));

async function runCli(argv: string[], env: Record<string, string>): Promise<{ code: number; out: string }> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  stdout.on('data', (c: Buffer) => (out += c.toString()));
  stderr.resume();
  const code = await main(argv, { stdout, stderr }, { ...process.env, ...env });
  return { code, out };
}

/** What a buyer would write without studyflow: the same calls, one target group after the other. */
async function sequentialBaseline(file: string, env: Record<string, string>): Promise<number> {
  const loaded = await loadStudyFile(file);
  if (!loaded.study) throw new Error('bench study invalid');
  const desired = desiredStudyOf(loaded.study.study, {});
  const api = createDemandApiClient({ config: loadApiConfig(env) });
  const a = createActivities({ api, blobs: createBlobStore({ dir: path.join(env.STUDYFLOW_BLOB_DIR) }), webhookSecrets: new FileWebhookSecretStore(env.STUDYFLOW_WEBHOOK_SECRETS_FILE) });
  const ctx = { accountId: desired.accountId, apiVersion: desired.apiVersion };
  const started = performance.now();
  const { project } = await a.ensureProject({ ctx, idempotencyKey: `baseline/${desired.studyId}/project`, desired: desired.project });
  for (const tg of desired.targetGroups) {
    const { targetGroup } = await a.ensureDraftTargetGroup({
      ctx,
      projectId: project.id,
      idempotencyKey: `baseline/${desired.studyId}/${tg.key}`,
      desired: tg.draft as never,
    });
    await a.calculateFeasibility({ ctx, request: feasibilityRequest(tg) });
    await a.generatePricePrediction({ ctx, businessUnitId: desired.businessUnitId, query: priceQuery(tg) });
    const base = { ctx, projectId: project.id, targetGroupId: targetGroup.id };
    const launched = await a.launchFromDraft({ ...base, idempotencyKey: `baseline/${desired.studyId}/${tg.key}/launch`, endFieldingAt: new Date(Date.now() + 30 * 86_400_000).toISOString() });
    for (;;) {
      if (!launched.jobId) break;
      const job = await a.getLaunchJob({ ...base, jobId: launched.jobId });
      if (job.status === 'Completed') break;
      if (job.status === 'Failed') throw new Error(`baseline launch failed: ${job.failureReason}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  return performance.now() - started;
}

const results: Record<string, unknown>[] = [];
const bench = await startBenchStack({ faults: { latency_ms: latencyMs, job_duration_ms: jobMs }, apiRatePerSecond: rate });
try {
  const boundMs = CHAIN_CALLS * latencyMs + jobMs;
  for (const n of sizes) {
    const studyId = `latency-${n}`;
    const file = path.join(bench.dir, `${studyId}.yaml`);
    fs.writeFileSync(file, benchStudyYaml(studyId, n));
    const before = bench.stack.sandbox.requests().length;
    const started = performance.now();
    const { code, out } = await runCli(['apply', file, '--require-live', '--json'], bench.env);
    const studyflowMs = performance.now() - started;
    if (code !== 0) throw new Error(`apply of ${n} target groups failed:\n${out.slice(0, 2000)}`);
    const calls = bench.stack.sandbox.requests().slice(before);
    const reapplyStart = bench.stack.sandbox.requests().length;
    await runCli(['apply', file, '--json'], bench.env);
    const reapplyWrites = bench.stack.sandbox.requests().slice(reapplyStart).filter((r) => r.method !== 'GET' && r.path.startsWith('/v1')).length;

    const baselineFile = path.join(bench.dir, `baseline-${n}.yaml`);
    fs.writeFileSync(baselineFile, benchStudyYaml(`baseline-${n}`, n));
    const baselineMs = n <= 50 ? await sequentialBaseline(baselineFile, bench.env) : undefined;
    const row = {
      targetGroups: n,
      studyflowMs: Math.round(studyflowMs),
      boundMs,
      ratioToBound: Number((studyflowMs / boundMs).toFixed(2)),
      baselineMs: baselineMs === undefined ? null : Math.round(baselineMs),
      speedupOverBaseline: baselineMs === undefined ? null : Number((baselineMs / studyflowMs).toFixed(1)),
      apiCalls: calls.filter((r) => r.path.startsWith('/v1')).length,
      callsPerTargetGroup: Number((calls.filter((r) => r.path.startsWith('/v1')).length / n).toFixed(1)),
      tokenRequests: calls.filter((r) => r.path.endsWith('/oauth/token')).length,
      reapplyWrites,
    };
    results.push(row);
    process.stderr.write(`${JSON.stringify(row)}\n`);
  }
} finally {
  await bench.stop();
}
const report = { benchmark: 'apply-latency', command: `node bin/run-ts.js bench/apply-latency.ts --sizes ${sizes.join(',')} --latency ${latencyMs} --job ${jobMs} --rate ${rate}`, machine: machineFacts(), latencyMs, jobMs, apiRatePerSecond: rate, results };
writeResult('apply-latency', report);
process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
