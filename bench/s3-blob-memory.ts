// Benchmark: the memory a process holds while it stores and reads back a 100,000-ID list, in the local
// blob store and in the S3 store (versitygw on loopback, built on first use). Prints one JSON line, as
// bench/run-all.ts expects.
//
//   node --expose-gc bin/run-ts.js bench/s3-blob-memory.ts
//
// Memory is sampled every 5 ms after a forced GC (heap + array buffers: what the operation retains, not
// garbage waiting for collection); the figure is the peak over the baseline before the operation. The
// IDs come from a generator, so the input itself is never held. Memory, not time: no timing is reported.
import { createHash, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { createBlobStore, type BlobStore } from '../blobs/blob-store';
import { createS3BlobStore } from '../blobs/blob-store-s3';
import { startS3DevServer } from '../dev/s3-dev-server';

const IDS = 100_000;
const gc = (globalThis as { gc?: () => void }).gc;

function retained(): number {
  gc?.();
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
}

async function peakOver<T>(work: () => Promise<T>): Promise<{ result: T; peakBytes: number }> {
  const baseline = retained();
  let peak = baseline;
  const sampler = setInterval(() => (peak = Math.max(peak, retained())), 5);
  try {
    const result = await work();
    return { result, peakBytes: Math.max(peak, retained()) - baseline };
  } finally {
    clearInterval(sampler);
  }
}

async function measure(store: BlobStore) {
  const put = await peakOver(() => store.put(Readable.from((function* () {
    for (let i = 0; i < IDS; i += 1) yield `${randomUUID()}\n`;
  })())));
  const read = await peakOver(async () => {
    const hash = createHash('sha256');
    for await (const chunk of store.open(put.result.ref)) hash.update(chunk as Buffer);
    return hash.digest('hex');
  });
  if (read.result !== put.result.sha256) throw new Error('read back a different list');
  const mib = (bytes: number) => Math.round((bytes / 1024 / 1024) * 10) / 10;
  return { listMiB: mib(put.result.bytes), putPeakMiB: mib(put.peakBytes), readPeakMiB: mib(read.peakBytes) };
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'studyflow-s3-bench-'));
const server = await startS3DevServer({ rootDir: path.join(dir, 's3'), buckets: ['bench'], stopWithParent: true });
try {
  const local = await measure(createBlobStore({ dir: path.join(dir, 'local') }));
  const s3Store = createS3BlobStore({ url: 's3://bench/blobs', env: server.env });
  const s3 = await measure(s3Store);
  s3Store.client.destroy();
  process.stdout.write(`${JSON.stringify({ ids: IDS, gcForced: Boolean(gc), node: process.version, local, s3 })}\n`);
} finally {
  await server.stop();
  fs.rmSync(dir, { recursive: true, force: true });
}
