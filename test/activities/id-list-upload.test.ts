// Streamed multipart uploads of stored ID lists: well-formed form, exact Content-Length, byte-identical retries,
// backpressure (the file is read only as fast as the server takes it), integrity checks.
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBlobStore, type BlobStore, type StoredIdList } from '../../blobs/blob-store';
import { createApiConfig } from '../../api/http/api-config';
import { createDemandApiClient } from '../../api/http/demand-api-client';
import { createActivities } from '../../activities/index';
import { startLoopbackApi, type LoopbackApi } from './helpers/loopback-api';
import { rejectionOf } from './helpers/mock-api';

const ctx = { accountId: '1001', apiVersion: '2025-12-18' as const };
const target = { ctx, projectId: 'p1', targetGroupId: 'tg1' };
let dir: string;
let server: LoopbackApi;
let blobs: BlobStore;
let dispatcher: Agent;
let activities: ReturnType<typeof createActivities>;
let big: StoredIdList;
/** 100,000 long IDs (~12.5 MB), bigger than loopback socket buffers, to observe backpressure. */
let wide: StoredIdList;
let bytesRead = 0;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'studyflow-upload-'));
  server = await startLoopbackApi();
  const store = createBlobStore({ dir });
  // Count how much of a blob has been read, to observe backpressure.
  blobs = {
    ...store,
    has: (ref) => store.has(ref),
    size: (ref) => store.size(ref),
    put: (source) => store.put(source),
    open: (ref) => {
      const stream = store.open(ref);
      stream.on('data', (chunk: Buffer) => {
        bytesRead += chunk.length;
      });
      return stream;
    },
  };
  dispatcher = new Agent({ connections: 4 });
  const config = createApiConfig({ baseUrl: server.baseUrl, authUrl: server.authUrl, audience: 'aud', clientId: 'c', clientSecret: 'loopback-secret' });
  const api = createDemandApiClient({ config, dispatcher });
  activities = createActivities({ api, blobs, webhookSecrets: { save: async () => undefined, has: async () => false } });
  big = await store.put(Readable.from((function* () {
    for (let i = 0; i < 100_000; i += 1) yield `${randomUUID()}\n`;
  })()));
  wide = await store.put(Readable.from((function* () {
    for (let i = 0; i < 100_000; i += 1) yield `${randomUUID()}-${randomUUID()}-${randomUUID()}-${String(i).padStart(8, '0')}\n`;
  })()));
}, 60_000);

afterAll(async () => {
  await dispatcher.close();
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

async function parseForm(received: { headers: Record<string, unknown>; body: Buffer }) {
  return new Response(received.body, { headers: { 'content-type': String(received.headers['content-type']) } }).formData();
}

describe('uploadIdList streaming', () => {
  it('posts a well-formed multipart form (field file) with an exact Content-Length and entity_type', async () => {
    const list = await blobs.put(['r-2\nr-1\nr-3\n']);
    server.received.length = 0;
    const { jobId } = await activities.uploadIdList({ ...target, entityType: 'RSID', list: { ref: list.ref, sha256: list.sha256, count: list.count }, idempotencyKey: 'k-small' });
    expect(jobId).toBe('job-1');
    const [req] = server.received;
    expect(req.method).toBe('POST');
    expect(req.url).toBe('/v1/demand/accounts/1001/projects/p1/target-groups/tg1/exclusions/jobs/upload-respondents-by-file?entity_type=RSID');
    expect(Number(req.headers['content-length'])).toBe(req.body.length);
    expect(req.headers['idempotency-key']).toBe('k-small');
    expect(req.headers['svc-api-version']).toBe('2025-12-18');
    const file = (await parseForm(req)).get('file') as File;
    expect(await file.text()).toBe('r-1\nr-2\nr-3\n');
  });

  it('sends byte-identical bodies for the same key and list (the API compares bodies per Idempotency-Key), other bytes for another key', async () => {
    const list = await blobs.put(['a\nb\n']);
    const ref = { ref: list.ref, sha256: list.sha256, count: list.count };
    server.received.length = 0;
    await activities.uploadIdList({ ...target, entityType: 'RSID', list: ref, idempotencyKey: 'same' });
    await activities.uploadIdList({ ...target, entityType: 'RSID', list: ref, idempotencyKey: 'same' });
    await activities.uploadIdList({ ...target, entityType: 'RSID', list: ref, idempotencyKey: 'other' });
    expect(server.received[0].body.equals(server.received[1].body)).toBe(true);
    expect(server.received[0].body.equals(server.received[2].body)).toBe(false);
  });

  it('uploads 100,000 IDs intact', async () => {
    server.received.length = 0;
    await activities.uploadIdList({ ...target, entityType: 'ACCESS_RESPONDENT_GUID', list: { ref: big.ref, sha256: big.sha256, count: big.count }, idempotencyKey: 'big' });
    const [req] = server.received;
    expect(req.url).toContain('entity_type=ACCESS_RESPONDENT_GUID');
    const text = await ((await parseForm(req)).get('file') as File).text();
    expect(text.split('\n').filter(Boolean)).toHaveLength(100_000);
    expect(text.length).toBe(big.bytes);
  });

  it('streams with backpressure: while the server does not read, only a fraction of the file is read', async () => {
    let readWhilePaused = -1;
    server.beforeBody = async () => {
      await new Promise((resolve) => setTimeout(resolve, 400));
      readWhilePaused = bytesRead;
    };
    bytesRead = 0;
    try {
      await activities.uploadIdList({ ...target, entityType: 'RSID', list: { ref: wide.ref, sha256: wide.sha256, count: wide.count }, idempotencyKey: 'wide' });
    } finally {
      server.beforeBody = async () => undefined;
    }
    expect(bytesRead).toBe(wide.bytes);
    expect(readWhilePaused).toBeGreaterThan(0);
    expect(readWhilePaused).toBeLessThan(wide.bytes / 2);
  });

  it('refuses a reference the store does not hold (non-retryable blob_not_found) without calling the API', async () => {
    server.received.length = 0;
    const sha = 'f'.repeat(64);
    const f = await rejectionOf(activities.uploadIdList({ ...target, entityType: 'RSID', list: { ref: `sha256:${sha}`, sha256: sha, count: 1 }, idempotencyKey: 'x' }));
    expect(f.type).toBe('blob_not_found');
    expect(f.nonRetryable).toBe(true);
    expect(server.received).toHaveLength(0);
  });

  it('refuses a ref that does not match its sha256', async () => {
    const f = await rejectionOf(activities.uploadIdList({ ...target, entityType: 'RSID', list: { ref: `sha256:${'a'.repeat(64)}`, sha256: 'b'.repeat(64), count: 1 }, idempotencyKey: 'x' }));
    expect(f.type).toBe('invalid_activity_input');
  });

  it('aborts the upload when the stored file does not match its digest (the server never gets a complete form)', async () => {
    const list = await blobs.put(['c-1\nc-2\n']);
    await writeFile(join(dir, 'sha256', list.sha256), 'c-1\nXX2\n'); // same size, different content
    server.received.length = 0;
    const f = await rejectionOf(activities.uploadIdList({ ...target, entityType: 'RSID', list: { ref: list.ref, sha256: list.sha256, count: 2 }, idempotencyKey: 'corrupt' }));
    expect(f.type).toBe('blob_corrupt');
    expect(f.nonRetryable).toBe(true);
    expect(server.received).toHaveLength(0);
  });

  it('refuses an unknown entity type', async () => {
    const f = await rejectionOf(activities.uploadIdList({ ...target, entityType: 'CID' as never, list: { ref: big.ref, sha256: big.sha256, count: big.count }, idempotencyKey: 'x' }));
    expect(f.type).toBe('invalid_activity_input');
  });
});
