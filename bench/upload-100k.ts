// Benchmark: stream a 100,000-ID list (ACCESS_RESPONDENT_GUID) to the Demand API sandbox and measure time and the
// extra memory this process holds while uploading. Prints one JSON object on stdout.
//
//   node --expose-gc bin/run-ts.js bench/upload-100k.ts
//
// The sandbox runs in a child process, so its own buffering of the request body is not counted here. With
// STUDYFLOW_API_BASE_URL (and the other STUDYFLOW_* settings) set, the bench targets that API instead
// (account STUDYFLOW_BENCH_ACCOUNT, default 1001; business unit / project manager STUDYFLOW_BENCH_BU / _PM).
// With --expose-gc, memory is sampled after a forced GC every few ms, i.e. what the upload retains, not
// garbage waiting for collection.
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { Agent } from 'undici';
import { createActivities, createBlobStore, createDemandApiClient } from '../activities/index';
import { measureRetained, startSandboxProcess } from './bench-sandbox';

const IDS = 100_000;
const SAMPLE_EVERY_MS = 5;

async function main(): Promise<void> {
  const sandbox = await startSandboxProcess();
  const dir = await mkdtemp(join(tmpdir(), 'studyflow-bench-'));
  const dispatcher = new Agent({ keepAliveTimeout: 5000 });
  try {
    const api = createDemandApiClient({ config: sandbox.config, dispatcher });
    const blobs = createBlobStore({ dir });
    const activities = createActivities({ api, blobs, webhookSecrets: { save: async () => undefined, has: async () => false } });
    const ctx = { accountId: process.env.STUDYFLOW_BENCH_ACCOUNT ?? '1001', apiVersion: '2025-12-18' as const };
    const run = randomUUID();

    const list = await blobs.put(Readable.from((function* () {
      for (let i = 0; i < IDS; i += 1) yield `${randomUUID()}\n`;
    })()));
    const { project } = await activities.ensureProject({
      ctx,
      idempotencyKey: `bench:${run}:project`,
      desired: { name: 'upload bench', project_customer_reference_number: `bench-${run}`, project_manager_id: process.env.STUDYFLOW_BENCH_PM ?? '6f1c2a4e-3001-4c8e-9d2b-000000003001' },
    });
    const { targetGroup } = await activities.ensureDraftTargetGroup({
      ctx,
      projectId: project.id,
      idempotencyKey: `bench:${run}:tg`,
      desired: {
        name: 'upload bench', expected_incidence_rate: 0.5, expected_length_of_interview_minutes: 10, filling_goal: 100,
        project_manager_id: process.env.STUDYFLOW_BENCH_PM ?? '6f1c2a4e-3001-4c8e-9d2b-000000003001', collects_pii: false,
        business_unit_id: process.env.STUDYFLOW_BENCH_BU ?? '2001', locale: 'en_US', fielding_assistant_assignment: {},
        fielding_specification: { start_at: new Date().toISOString(), end_at: new Date(Date.now() + 30 * 86_400_000).toISOString() },
        allocations: { open_exchange_allocations: { exchange_min_percentage: 0, exchange_max_percentage: 100, blocked_supplier_ids: [], groups: [] } },
      },
    });
    const target = { ctx, projectId: project.id, targetGroupId: targetGroup.id };

    const { result: upload, ms: uploadMs, peak, startedAt: uploadStarted } = await measureRetained(
      () => activities.uploadIdList({ ...target, entityType: 'ACCESS_RESPONDENT_GUID', list, idempotencyKey: `bench:${run}:ids` }),
      SAMPLE_EVERY_MS,
    );
    const { jobId } = upload;

    let job = await activities.getIdListJob({ ...target, jobId });
    while (job.status === 'Processing') {
      await new Promise((r) => setTimeout(r, 50));
      job = await activities.getIdListJob({ ...target, jobId });
    }
    const jobMs = performance.now() - uploadStarted;
    const remote = await activities.listExcludedIds({ ...target, entityType: 'ACCESS_RESPONDENT_GUID' });

    process.stdout.write(`${JSON.stringify({
      benchmark: 'upload-100k',
      ids: list.count,
      file_bytes: list.bytes,
      upload_ms: Math.round(uploadMs),
      until_job_done_ms: Math.round(jobMs),
      job_status: job.status,
      remote_digest_matches: remote.sha256 === list.sha256 && remote.count === list.count,
      ...peak,
      target: sandbox.child ? 'sandbox child process' : 'STUDYFLOW_API_BASE_URL',
      node: process.version,
    })}\n`);
  } finally {
    await dispatcher.close();
    await rm(dir, { recursive: true, force: true });
    sandbox.child?.kill('SIGTERM');
  }
}

await main();
