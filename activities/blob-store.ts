// Content-addressed store for ID lists: normalized (trimmed, unique, sorted, one per line) files named by SHA-256.
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, open, rename, stat, unlink } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { sortIds } from './id-list-digest';
import type { ListRef } from './types';

/** Options of {@link createBlobStore}. */
export interface BlobStoreOptions {
  /** Directory of the blobs. Default `STUDYFLOW_BLOB_DIR`, else `.studyflow/blobs` (relative to the cwd). */
  dir?: string;
  /** Most IDs one list may hold. Default 100,000 (the API's per-target-group limit). */
  maxIds?: number;
  /** Longest ID accepted, in characters. Default 256. */
  maxIdLength?: number;
}

/** A stored list: its reference plus the byte size of the canonical file. */
export interface StoredIdList extends ListRef {
  bytes: number;
}

/** What {@link BlobStore.put} accepts: a stream or iterable of text/bytes, or a path to read. */
export type IdListSource = Readable | AsyncIterable<string | Uint8Array> | Iterable<string | Uint8Array> | { file: string };

export interface BlobStore {
  readonly dir: string;
  /** Normalizes and stores a list; the same set of IDs always yields the same ref. Atomic. */
  put(source: IdListSource): Promise<StoredIdList>;
  /** A stream of the stored file. Emits a BlobStoreError (code `not_found`) when the ref is unknown. */
  open(ref: string): Readable;
  has(ref: string): Promise<boolean>;
  /** Byte size of a stored list, or undefined when unknown. */
  size(ref: string): Promise<number | undefined>;
}

export type BlobStoreErrorCode = 'invalid_id' | 'too_many_ids' | 'invalid_ref' | 'not_found';

/** A named, located problem with an ID list or a reference. Never carries the offending ID itself. */
export class BlobStoreError extends Error {
  override readonly name = 'BlobStoreError';
  constructor(
    readonly code: BlobStoreErrorCode,
    message: string,
    /** 1-based line of the source, for `invalid_id`. */
    readonly line?: number,
  ) {
    super(message);
  }
}

export const DEFAULT_BLOB_DIR = '.studyflow/blobs';
export const DEFAULT_MAX_IDS = 100_000;
const REF = /^sha256:([0-9a-f]{64})$/;

/** The blob directory from the environment: `STUDYFLOW_BLOB_DIR`, else `.studyflow/blobs`. */
export function blobDirFromEnv(env: Record<string, string | undefined> = process.env): string {
  return env.STUDYFLOW_BLOB_DIR?.trim() || DEFAULT_BLOB_DIR;
}

export function createBlobStore(options: BlobStoreOptions = {}): BlobStore {
  const dir = resolve(options.dir ?? blobDirFromEnv());
  const maxIds = options.maxIds ?? DEFAULT_MAX_IDS;
  const maxIdLength = options.maxIdLength ?? 256;
  const objects = join(dir, 'sha256');

  const pathOf = (ref: string): string => {
    const match = REF.exec(ref);
    if (!match) throw new BlobStoreError('invalid_ref', 'a blob reference has the form sha256:<64 lowercase hex digits>');
    return join(objects, match[1]);
  };

  return {
    dir,
    async put(source) {
      const ids = sortIds([...(await collectIds(source, maxIds, maxIdLength))]);
      await mkdir(objects, { recursive: true });
      const temp = join(dir, `.tmp-${process.pid}-${randomBytes(8).toString('hex')}`);
      const { sha256, bytes } = await writeCanonical(temp, ids);
      const target = join(objects, sha256);
      try {
        // rename() replaces atomically; an existing blob of the same name has the same content.
        await rename(temp, target);
      } catch (error) {
        await unlink(temp).catch(() => undefined);
        throw error;
      }
      return { ref: `sha256:${sha256}`, sha256, count: ids.length, bytes };
    },
    open(ref) {
      const path = pathOf(ref);
      return Readable.from(
        (async function* () {
          let file;
          try {
            file = await open(path, 'r');
          } catch (error) {
            if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new BlobStoreError('not_found', `no stored ID list ${ref}`);
            throw error;
          }
          yield* file.createReadStream();
        })(),
        { objectMode: false },
      );
    },
    async has(ref) {
      return (await this.size(ref)) !== undefined;
    },
    async size(ref) {
      try {
        return (await stat(pathOf(ref))).size;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        throw error;
      }
    },
  };
}

async function collectIds(source: IdListSource, maxIds: number, maxIdLength: number): Promise<Set<string>> {
  const ids = new Set<string>();
  const decoder = new StringDecoder('utf8');
  let carry = '';
  let line = 0;
  const take = (raw: string) => {
    line += 1;
    let id = raw.trim();
    if (line === 1 && id.charCodeAt(0) === 0xfeff) id = id.slice(1).trim();
    if (id === '') return;
    if (/[\s\u0000-\u001f\u007f]/.test(id)) throw new BlobStoreError('invalid_id', `line ${line}: an ID may not contain whitespace or control characters`, line);
    if (id.length > maxIdLength) throw new BlobStoreError('invalid_id', `line ${line}: ID longer than ${maxIdLength} characters`, line);
    ids.add(id);
    if (ids.size > maxIds) throw new BlobStoreError('too_many_ids', `line ${line}: more than ${maxIds} distinct IDs`, line);
  };
  const iterable: AsyncIterable<string | Uint8Array> | Iterable<string | Uint8Array> =
    'file' in source ? createReadStream(source.file) : source;
  for await (const chunk of iterable) {
    carry += typeof chunk === 'string' ? chunk : decoder.write(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
    const lines = carry.split('\n');
    carry = lines.pop() ?? '';
    for (const raw of lines) take(raw);
  }
  carry += decoder.end();
  if (carry !== '') take(carry);
  return ids;
}

async function writeCanonical(path: string, ids: readonly string[]): Promise<{ sha256: string; bytes: number }> {
  const hash = createHash('sha256');
  const file = await open(path, 'wx');
  let bytes = 0;
  try {
    const batch: string[] = [];
    let chars = 0;
    const flush = async () => {
      if (batch.length === 0) return;
      const chunk = Buffer.from(batch.join(''), 'utf8');
      batch.length = 0;
      chars = 0;
      hash.update(chunk);
      bytes += chunk.length;
      await file.write(chunk);
    };
    for (const id of ids) {
      batch.push(id, '\n');
      chars += id.length + 1;
      if (chars >= 64 * 1024) await flush();
    }
    await flush();
    await file.sync();
  } catch (error) {
    await file.close();
    await unlink(path).catch(() => undefined);
    throw error;
  }
  await file.close();
  return { sha256: hash.digest('hex'), bytes };
}
