// Content-addressed store for ID lists: normalized (trimmed, unique, sorted, one per line) files named by SHA-256.
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, open, readdir, readFile, rename, stat, unlink, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { sortIds } from './id-list-digest';
import type { ListRef } from '../shared/id-list';

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
  /** Where the blobs live, for messages: a directory path or an `s3://bucket/prefix` URL. Never holds a credential. */
  readonly location: string;
  /** Normalizes and stores a list; the same set of IDs always yields the same ref. Atomic. */
  put(source: IdListSource): Promise<StoredIdList>;
  /** A stream of the stored file. Emits a BlobStoreError (code `not_found`) when the ref is unknown. */
  open(ref: string): Readable;
  has(ref: string): Promise<boolean>;
  /** Byte size of a stored list, or undefined when unknown. */
  size(ref: string): Promise<number | undefined>;
  /** Small named objects kept beside the lists in the same storage (the sealed webhook secrets). */
  readonly objects: SideObjects;
}

/**
 * Small named objects beside the ID lists (a few kilobytes each, read and written whole). Names are
 * relative paths of `[A-Za-z0-9._-]` segments joined by `/` (see {@link checkObjectName}).
 */
export interface SideObjects {
  /** Writes an object atomically (readers see the old bytes or the new ones, never a part). */
  put(name: string, data: Uint8Array): Promise<void>;
  /** The object's bytes, or undefined when there is none. */
  get(name: string): Promise<Uint8Array | undefined>;
  /** Names of the objects under `prefix` (a directory-like prefix ending in `/`), sorted. */
  list(prefix: string): Promise<string[]>;
}

export type BlobStoreErrorCode =
  | 'invalid_id'
  | 'too_many_ids'
  | 'invalid_ref'
  | 'invalid_name'
  | 'not_found'
  /** The storage refused the credential (unknown key, bad signature, no permission). */
  | 'access_denied'
  /** The bucket named by the URL does not exist. */
  | 'bucket_not_found'
  /** The storage could not be reached or kept failing. */
  | 'unavailable';

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

/** A local store: the directory's path, for tests and tools that look at the files. */
export interface LocalBlobStore extends BlobStore {
  readonly dir: string;
}

const OBJECT_NAME = /^[A-Za-z0-9._-]+(\/[A-Za-z0-9._-]+)*\/?$/;

/** Throws `invalid_name` unless `name` is a relative path of safe segments (no `..`, no leading `/`). */
export function checkObjectName(name: string): string {
  if (!OBJECT_NAME.test(name) || name.split('/').some((segment) => segment === '.' || segment === '..')) {
    throw new BlobStoreError('invalid_name', 'an object name is a relative path of A-Z a-z 0-9 . _ - segments');
  }
  return name;
}

export function createBlobStore(options: BlobStoreOptions = {}): LocalBlobStore {
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
    location: dir,
    objects: directoryObjects(dir),
    async put(source) {
      const ids = await readIdList(source, { maxIds, maxIdLength });
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

/**
 * Reads a list in bounded memory (the set of distinct IDs, at most `maxIds`) and returns its IDs
 * unique and sorted: the canonical order every store writes.
 */
export async function readIdList(source: IdListSource, limits: { maxIds?: number; maxIdLength?: number } = {}): Promise<string[]> {
  return sortIds([...(await collectIds(source, limits.maxIds ?? DEFAULT_MAX_IDS, limits.maxIdLength ?? 256))]);
}

/** The canonical file of sorted unique IDs (`id\n` each) as chunks of about 64 KiB, made as they are read. */
export function* canonicalChunks(ids: readonly string[]): Generator<Buffer> {
  const batch: string[] = [];
  let chars = 0;
  for (const id of ids) {
    batch.push(id, '\n');
    chars += id.length + 1;
    if (chars >= 64 * 1024) {
      yield Buffer.from(batch.join(''), 'utf8');
      batch.length = 0;
      chars = 0;
    }
  }
  if (batch.length > 0) yield Buffer.from(batch.join(''), 'utf8');
}

/** Side objects as files under `dir` (written to a temporary file, then renamed into place). */
function directoryObjects(dir: string): SideObjects {
  return {
    async put(name, data) {
      const target = join(dir, checkObjectName(name));
      await mkdir(dirname(target), { recursive: true, mode: 0o700 });
      const temp = join(dir, `.tmp-${process.pid}-${randomBytes(8).toString('hex')}`);
      await writeFile(temp, data, { mode: 0o600, flag: 'wx' });
      try {
        await rename(temp, target);
      } catch (error) {
        await unlink(temp).catch(() => undefined);
        throw error;
      }
    },
    async get(name) {
      try {
        return await readFile(join(dir, checkObjectName(name)));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        throw error;
      }
    },
    async list(prefix) {
      const base = join(dir, checkObjectName(prefix));
      const names: string[] = [];
      const walk = async (at: string, rel: string): Promise<void> => {
        let entries;
        try {
          entries = await readdir(at, { withFileTypes: true });
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
          throw error;
        }
        for (const entry of entries) {
          if (entry.name.startsWith('.tmp-')) continue;
          if (entry.isDirectory()) await walk(join(at, entry.name), `${rel}${entry.name}/`);
          else if (entry.isFile()) names.push(`${rel}${entry.name}`);
        }
      };
      const normalized = prefix.endsWith('/') ? prefix : `${prefix}/`;
      await walk(base, normalized);
      return names.sort();
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
    for (const chunk of canonicalChunks(ids)) {
      hash.update(chunk);
      bytes += chunk.length;
      await file.write(chunk);
    }
    await file.sync();
  } catch (error) {
    await file.close();
    await unlink(path).catch(() => undefined);
    throw error;
  }
  await file.close();
  return { sha256: hash.digest('hex'), bytes };
}
