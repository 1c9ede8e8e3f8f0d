// The S3 blob store against a real S3 server (versitygw, posix backend, on loopback): the local store's
// contract (content addressing, streaming, atomic put-if-absent, named errors) over object storage.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BlobStoreError, createBlobStore } from '../../blobs/blob-store';
import { blobStoreFromEnv } from '../../blobs/blob-store-env';
import { createS3BlobStore, parseS3Url, s3ClientConfigFromEnv, type S3BlobStore } from '../../blobs/blob-store-s3';
import { startS3DevServer, type RunningS3DevServer } from '../../dev/s3-dev-server';

let dir: string;
let server: RunningS3DevServer;
let store: S3BlobStore;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'studyflow-s3-'));
  server = await startS3DevServer({ rootDir: path.join(dir, 'root'), buckets: ['lists'], stopWithParent: true });
  store = createS3BlobStore({ url: 's3://lists/team-a/blobs', env: server.env, maxIds: 100_000 });
});
afterAll(async () => {
  store?.client.destroy();
  await server?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function errorOf(promise: Promise<unknown>): Promise<BlobStoreError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(BlobStoreError);
    return error as BlobStoreError;
  }
  throw new Error('expected a BlobStoreError');
}

async function drain(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

describe('S3 blob store (versitygw)', () => {
  it('parses s3:// URLs and reads the standard AWS variables (path style for a custom endpoint)', () => {
    expect(parseS3Url('s3://my-bucket')).toEqual({ bucket: 'my-bucket', prefix: '' });
    expect(parseS3Url('s3://my-bucket/a/b/')).toEqual({ bucket: 'my-bucket', prefix: 'a/b' });
    expect(() => parseS3Url('s3://B/x')).toThrow(BlobStoreError);
    expect(() => parseS3Url('s3://bucket/../x')).toThrow(BlobStoreError);
    const local = s3ClientConfigFromEnv({ AWS_ENDPOINT_URL: 'http://127.0.0.1:9000', AWS_REGION: 'eu-west-1', AWS_ACCESS_KEY_ID: 'k', AWS_SECRET_ACCESS_KEY: 's' });
    expect(local).toMatchObject({ endpoint: 'http://127.0.0.1:9000', region: 'eu-west-1', forcePathStyle: true, credentials: { accessKeyId: 'k', secretAccessKey: 's' } });
    expect(s3ClientConfigFromEnv({ AWS_ENDPOINT_URL: 'http://a', AWS_ENDPOINT_URL_S3: 'http://b' }).endpoint).toBe('http://b');
    const aws = s3ClientConfigFromEnv({});
    expect(aws).toMatchObject({ region: 'us-east-1', forcePathStyle: false });
    expect(aws.credentials).toBeUndefined();
    expect(s3ClientConfigFromEnv({ AWS_ENDPOINT_URL: 'http://a', STUDYFLOW_S3_PATH_STYLE: 'false' }).forcePathStyle).toBe(false);
  });

  it('stores the canonical list under the same content address as the local store', async () => {
    const input = ['\uFEFFb2\r\n', '  a1  \n\n', 'c3\r\nb2\n', 'a1'];
    const stored = await store.put(input);
    const local = await createBlobStore({ dir: path.join(dir, 'local') }).put(input);
    expect(stored).toEqual(local);
    expect(stored.count).toBe(3);
    // The object is a file of the posix backend: bucket/prefix/sha256/<hex>.
    const file = path.join(dir, 'root', 'lists', 'team-a', 'blobs', 'sha256', stored.sha256);
    expect(fs.readFileSync(file, 'utf8')).toBe('a1\nb2\nc3\n');
    expect((await drain(store.open(stored.ref))).toString()).toBe('a1\nb2\nc3\n');
    expect(await store.size(stored.ref)).toBe(9);
    expect(await store.has(stored.ref)).toBe(true);
    expect(store.conditionalPutSupported()).toBe(true);
  });

  it('streams 100,000 IDs up and back, byte for byte', async () => {
    const ids = Array.from({ length: 100_000 }, (_, i) => `rsid-${String(i).padStart(7, '0')}-${(i * 7919) % 100_003}`);
    const stored = await store.put(Readable.from((function* () {
      for (const id of ids) yield `${id}\n`;
    })()));
    expect(stored.count).toBe(100_000);
    const hash = createHash('sha256');
    let bytes = 0;
    let chunks = 0;
    for await (const chunk of store.open(stored.ref)) {
      hash.update(chunk as Buffer);
      bytes += (chunk as Buffer).length;
      chunks += 1;
    }
    expect(hash.digest('hex')).toBe(stored.sha256);
    expect(bytes).toBe(stored.bytes);
    expect(chunks).toBeGreaterThan(1); // streamed, not one buffer
  });

  it('puts if absent: concurrent puts of one list agree and leave one object', async () => {
    const results = await Promise.all(Array.from({ length: 6 }, () => store.put(['p\nq\nr\n'])));
    expect(new Set(results.map((r) => r.ref)).size).toBe(1);
    const objects = fs.readdirSync(path.join(dir, 'root', 'lists', 'team-a', 'blobs', 'sha256'));
    expect(objects.filter((name) => name === results[0].sha256)).toHaveLength(1);
    expect(await store.size(results[0].ref)).toBe(6);
  });

  it('falls back to HEAD + PUT when the server does not implement If-None-Match', async () => {
    // A pass-through proxy that answers 501 NotImplemented to conditional PUTs, as some S3 servers do.
    let refused = 0;
    const proxy = http.createServer((req, res) => {
      if (req.method === 'PUT' && req.headers['if-none-match']) {
        refused += 1;
        req.resume();
        res.writeHead(501, { 'content-type': 'application/xml' });
        res.end('<?xml version="1.0" encoding="UTF-8"?><Error><Code>NotImplemented</Code><Message>conditional writes</Message></Error>');
        return;
      }
      const upstream = http.request(`${server.endpoint}${req.url}`, { method: req.method, headers: req.headers }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      req.pipe(upstream);
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    const port = (proxy.address() as AddressInfo).port;
    const viaProxy = createS3BlobStore({ url: 's3://lists/fallback', env: { ...server.env, AWS_ENDPOINT_URL: `http://127.0.0.1:${port}` } });
    try {
      const stored = await viaProxy.put(['x1\nx2\n']);
      expect(refused).toBe(1);
      expect(viaProxy.conditionalPutSupported()).toBe(false);
      expect((await drain(viaProxy.open(stored.ref))).toString()).toBe('x1\nx2\n');
      await viaProxy.put(['x3\n']);
      expect(refused).toBe(1); // no further conditional attempt
    } finally {
      viaProxy.client.destroy();
      await new Promise((resolve) => proxy.close(resolve));
    }
  });

  it('keeps small side objects (sealed secrets) beside the lists', async () => {
    await store.objects.put('webhook-secrets/1001/w-1.sealed', Buffer.from('one'));
    await store.objects.put('webhook-secrets/1001/w-2.sealed', Buffer.from('two'));
    await store.objects.put('webhook-secrets/1001/w-1.sealed', Buffer.from('one, rotated'));
    expect(Buffer.from((await store.objects.get('webhook-secrets/1001/w-1.sealed'))!).toString()).toBe('one, rotated');
    expect(await store.objects.get('webhook-secrets/1001/missing.sealed')).toBeUndefined();
    expect(await store.objects.list('webhook-secrets/')).toEqual(['webhook-secrets/1001/w-1.sealed', 'webhook-secrets/1001/w-2.sealed']);
    await expect(store.objects.put('../escape', Buffer.from('x'))).rejects.toMatchObject({ code: 'invalid_name' });
  });

  it('names a missing object, a denied credential, a missing bucket and an unreachable server', async () => {
    const unknown = `sha256:${'0'.repeat(64)}`;
    expect(await store.size(unknown)).toBeUndefined();
    const notFound = await errorOf(drain(store.open(unknown)));
    expect(notFound.code).toBe('not_found');
    expect(notFound.message).toContain('s3://lists/team-a/blobs');

    const wrongSecret = 'not-the-secret-0123456789';
    const denied = createS3BlobStore({ url: 's3://lists/team-a/blobs', env: { ...server.env, AWS_SECRET_ACCESS_KEY: wrongSecret } });
    const stored = await store.put(['d1\n']);
    for (const failure of [await errorOf(denied.put(['z\n'])), await errorOf(denied.size(stored.ref)), await errorOf(drain(denied.open(stored.ref)))]) {
      expect(failure.code).toBe('access_denied');
      expect(failure.message).not.toContain(wrongSecret);
    }
    denied.client.destroy();

    const noBucket = createS3BlobStore({ url: 's3://no-such-bucket/x', env: server.env });
    expect((await errorOf(noBucket.put(['a\n']))).code).toBe('bucket_not_found');
    noBucket.client.destroy();

    const closedPort = createS3BlobStore({ url: 's3://lists/x', env: { ...server.env, AWS_ENDPOINT_URL: 'http://127.0.0.1:1' }, putAttempts: 1 });
    expect((await errorOf(closedPort.put(['a\n']))).code).toBe('unavailable');
    closedPort.client.destroy();
  });

  it('is chosen by STUDYFLOW_BLOB_URL, else the local directory', () => {
    const s3 = blobStoreFromEnv({ STUDYFLOW_BLOB_URL: 's3://lists/p/', ...server.env });
    expect(s3.location).toBe('s3://lists/p');
    expect(() => blobStoreFromEnv({ STUDYFLOW_BLOB_URL: 's3://B/x' })).toThrow(BlobStoreError);
    expect(blobStoreFromEnv({ STUDYFLOW_BLOB_DIR: path.join(dir, 'b') }).location).toBe(path.join(dir, 'b'));
    expect(blobStoreFromEnv({ STUDYFLOW_BLOB_URL: `file://${path.join(dir, 'c')}` }).location).toBe(path.join(dir, 'c'));
    expect(() => blobStoreFromEnv({ STUDYFLOW_BLOB_URL: 'gs://x' })).toThrow(/s3:\/\/bucket\/prefix/);
  });

  it('from STUDYFLOW_BLOB_URL loads the SDK on first use and keeps the whole store contract', async () => {
    const lazy = blobStoreFromEnv({ STUDYFLOW_BLOB_URL: 's3://lists/lazy', ...server.env });
    const stored = await lazy.put(['b\n', 'a\n', 'b\n']);
    expect(stored.count).toBe(2);
    expect((await drain(lazy.open(stored.ref))).toString()).toBe('a\nb\n');
    expect(await lazy.has(stored.ref)).toBe(true);
    expect(await lazy.size(stored.ref)).toBe(stored.bytes);
    // The same bytes as the eagerly built store at the same place.
    const eager = createS3BlobStore({ url: 's3://lists/lazy', env: server.env });
    expect((await drain(eager.open(stored.ref))).toString()).toBe('a\nb\n');
    eager.client.destroy();

    const missing = `sha256:${'0'.repeat(64)}`;
    expect(await lazy.has(missing)).toBe(false);
    expect((await errorOf(drain(lazy.open(missing)))).code).toBe('not_found');
    expect((await errorOf(drain(lazy.open('not-a-ref')))).code).toBe('invalid_ref');

    await lazy.objects.put('secrets/one.sealed', new Uint8Array([1, 2, 3]));
    expect(Array.from((await lazy.objects.get('secrets/one.sealed')) ?? [])).toEqual([1, 2, 3]);
    expect(await lazy.objects.list('secrets/')).toEqual(['secrets/one.sealed']);
    expect(await lazy.objects.get('secrets/none')).toBeUndefined();
  });
});
