// Content-addressed ID-list store: normalization, same set -> same ref, atomic writes, named errors.
import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { blobDirFromEnv, BlobStoreError, createBlobStore, type BlobStore } from '../../blobs/blob-store';
import { digestSortedIds } from '../../blobs/id-list-digest';

let dir: string;
let store: BlobStore;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'studyflow-blobs-'));
  store = createBlobStore({ dir, maxIds: 1000 });
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
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

describe('blob store', () => {
  it('normalizes: trims, drops blank lines, CRLF and BOM, de-duplicates, sorts; one ID per line', async () => {
    const stored = await store.put(['\uFEFFb2\r\n', '  a1  \n\n', 'c3\r\nb2\n', 'a1']);
    expect(stored.count).toBe(3);
    const content = await readFile(join(dir, 'sha256', stored.sha256), 'utf8');
    expect(content).toBe('a1\nb2\nc3\n');
    expect(stored.bytes).toBe(Buffer.byteLength(content));
    expect(stored.sha256).toBe(createHash('sha256').update(content).digest('hex'));
    expect(stored.ref).toBe(`sha256:${stored.sha256}`);
    expect(digestSortedIds(['a1', 'b2', 'c3'])).toEqual({ sha256: stored.sha256, bytes: stored.bytes });
  });

  it('gives the same ref for the same set in any order, duplication and chunking', () => {
    return fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(fc.stringMatching(/^[A-Za-z0-9_-]{1,12}$/), { minLength: 1, maxLength: 40 }),
        fc.integer({ min: 1, max: 7 }),
        fc.boolean(),
        async (ids, chunk, crlf) => {
          const reference = await store.put([ids.join('\n')]);
          const shuffled = [...ids].reverse().flatMap((id, i) => (i % 3 === 0 ? [id, id] : [id]));
          const text = shuffled.join(crlf ? '\r\n' : '\n') + '\n';
          const chunks: Buffer[] = [];
          const bytes = Buffer.from(text);
          for (let i = 0; i < bytes.length; i += chunk) chunks.push(bytes.subarray(i, i + chunk));
          const again = await store.put(Readable.from(chunks));
          expect(again).toEqual(reference);
          expect(again.count).toBe(ids.length);
        },
      ),
      { numRuns: 100 },
    );
  });

  it('decodes multi-byte characters split across chunks', async () => {
    const bytes = Buffer.from('äöü-1\nß-2\n');
    const stored = await store.put(Readable.from([bytes.subarray(0, 1), bytes.subarray(1, 5), bytes.subarray(5)]));
    expect(await readFile(join(dir, 'sha256', stored.sha256), 'utf8')).toBe('ß-2\näöü-1\n'); // code-unit order: U+00DF < U+00E4
  });

  it('reads a file source', async () => {
    const file = join(dir, 'ids.txt');
    await writeFile(file, 'x\ny\nx\n');
    expect((await store.put({ file })).count).toBe(2);
  });

  it('names and locates an invalid ID without echoing it, and leaves no temporary file', async () => {
    const error = await errorOf(store.put(['ok-1\n', 'ok-2\n', 'bad id\n']));
    expect(error.code).toBe('invalid_id');
    expect(error.line).toBe(3);
    expect(error.message).toMatch(/^line 3:/);
    expect(error.message).not.toContain('bad id');
    expect((await readdir(dir)).filter((f) => f.startsWith('.tmp-'))).toEqual([]);
  });

  it('refuses more distinct IDs than the limit', async () => {
    const small = createBlobStore({ dir, maxIds: 3 });
    const error = await errorOf(small.put(['a\nb\nc\na\nd\n']));
    expect(error.code).toBe('too_many_ids');
    expect(error.line).toBe(5);
  });

  it('writes atomically: concurrent puts of one list agree and leave one file, no temporaries', async () => {
    const lists = Array.from({ length: 8 }, () => store.put(['p\nq\nr\n']));
    const results = await Promise.all(lists);
    expect(new Set(results.map((r) => r.ref)).size).toBe(1);
    expect((await readdir(dir)).filter((f) => f.startsWith('.tmp-'))).toEqual([]);
    expect(await store.has(results[0].ref)).toBe(true);
    expect(await store.size(results[0].ref)).toBe(6);
  });

  it('opens a stored list as a stream of its exact bytes', async () => {
    const stored = await store.put(['k\nj\n']);
    const chunks: Buffer[] = [];
    for await (const chunk of store.open(stored.ref)) chunks.push(chunk as Buffer);
    expect(Buffer.concat(chunks).toString()).toBe('j\nk\n');
  });

  it('reports unknown refs as not_found and malformed refs (path traversal) as invalid_ref', async () => {
    const unknown = `sha256:${'0'.repeat(64)}`;
    expect(await store.has(unknown)).toBe(false);
    const notFound = await errorOf((async () => {
      for await (const _ of store.open(unknown)) { /* drain */ }
    })());
    expect(notFound.code).toBe('not_found');
    expect((await errorOf(store.has('sha256:../../etc/passwd'))).code).toBe('invalid_ref');
    expect(() => store.open('md5:abc')).toThrow(BlobStoreError);
  });

  it('takes its directory from STUDYFLOW_BLOB_DIR, else .studyflow/blobs', () => {
    expect(blobDirFromEnv({ STUDYFLOW_BLOB_DIR: '/data/blobs' })).toBe('/data/blobs');
    expect(blobDirFromEnv({})).toBe('.studyflow/blobs');
  });
});
