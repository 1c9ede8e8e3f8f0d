// Benchmark: submit a close-out chunk of 100,000 reversals (`RID,code` rows) to the Demand API sandbox through the
// submitReversals activity, streamed from the blob store, and measure the time and the extra memory this process
// holds while submitting. Prints one JSON object on stdout.
//
//   node --expose-gc bin/run-ts.js bench/closeout-100k.ts
//
// The sandbox runs in a child process (bench/bench-sandbox.ts), so its own parsing of the file is not counted here.
// The RIDs are random UUIDs, none a complete of the account: the exchange takes the file (202) and counts them
// invalid, which is what the upload's cost is about. With --expose-gc, memory is sampled after a forced GC every
// few ms: what the submission retains, not garbage waiting for collection.
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { Agent } from 'undici';
import { createActivities, createBlobStore, createDemandApiClient } from '../activities/index';
import { MAX_ROWS_PER_SUBMISSION } from '../shared/closeout-reports';
import { uuidFromName } from '../shared/sha256';
import { measureRetained, startSandboxProcess } from './bench-sandbox';

const ROWS = MAX_ROWS_PER_SUBMISSION;
const SAMPLE_EVERY_MS = 5;

async function main(): Promise<void> {
  const sandbox = await startSandboxProcess();
  const dir = await mkdtemp(join(tmpdir(), 'studyflow-bench-'));
  const dispatcher = new Agent({ keepAliveTimeout: 5000 });
  try {
    const api = createDemandApiClient({ config: sandbox.config, dispatcher });
    const blobs = createBlobStore({ dir, maxIds: ROWS });
    const activities = createActivities({ api, blobs, webhookSecrets: { save: async () => undefined, has: async () => false } });
    const ctx = { accountId: process.env.STUDYFLOW_BENCH_ACCOUNT ?? '1001', apiVersion: '2025-12-18' as const };
    await activities.getAccounts({ ctx }); // the token first: it is not the submission's cost
    const delta = await blobs.put(Readable.from((function* () {
      for (let i = 0; i < ROWS; i += 1) yield `${randomUUID()},11\n`;
    })()));
    const name = `bench-closeout-${randomUUID().slice(0, 8)}-1`;

    const { result: sent, ms: submitMs, peak } = await measureRetained(
      () => activities.submitReversals({ ctx, name, idempotencyKey: uuidFromName(name), delta: { ref: delta.ref }, from: 0, rows: ROWS }),
      SAMPLE_EVERY_MS,
    );

    process.stdout.write(`${JSON.stringify({
      benchmark: 'closeout-100k',
      rows: delta.count,
      file_bytes: delta.bytes,
      submit_ms: Math.round(submitMs),
      posted: !sent.found,
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
