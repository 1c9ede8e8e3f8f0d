// Which blob store a process uses: object storage when STUDYFLOW_BLOB_URL names one, else the local directory.
import { PassThrough, pipeline, type Readable } from 'node:stream';
import { createBlobStore, blobDirFromEnv, type BlobStore } from './blob-store';
import { parseS3Url, s3UrlOf } from './s3-url';

/**
 * The blob store from the environment (`maxIds`: most lines one list may hold, default 100,000; a close-out's
 * reversals list may hold more): `STUDYFLOW_BLOB_URL=s3://bucket/prefix` (S3-compatible object
 * storage, AWS_* variables for endpoint, region and credentials) or `file:///path`; without it the
 * directory `STUDYFLOW_BLOB_DIR` (default `.studyflow/blobs`). Machines that share nothing but Temporal
 * need the S3 URL: the CLI writes the lists, workers elsewhere read them.
 */
export function blobStoreFromEnv(env: Record<string, string | undefined> = process.env, options: { maxIds?: number } = {}): BlobStore {
  const url = env.STUDYFLOW_BLOB_URL?.trim();
  if (url) {
    if (url.startsWith('s3://')) return lazyS3BlobStore(url, env, options.maxIds);
    if (url.startsWith('file://')) return createBlobStore({ dir: decodeURIComponent(new URL(url).pathname), maxIds: options.maxIds });
    throw new Error(`STUDYFLOW_BLOB_URL must be s3://bucket/prefix or file:///path, got "${url.slice(0, 80)}"`);
  }
  return createBlobStore({ dir: blobDirFromEnv(env), maxIds: options.maxIds });
}

/**
 * The S3 store, with the AWS SDK loaded on first use: most commands (plan and apply of a study without ID
 * lists, validate, status) never touch the store, and loading the SDK costs every one of them about 90 ms.
 * The URL is checked at once, so a wrong one is still reported before any work.
 */
function lazyS3BlobStore(url: string, env: Record<string, string | undefined>, maxIds?: number): BlobStore {
  const location = s3UrlOf(parseS3Url(url));
  let loaded: Promise<BlobStore> | undefined;
  const store = () => (loaded ??= import('./blob-store-s3').then(({ createS3BlobStore }) => createS3BlobStore({ url, env, maxIds })));
  return {
    location,
    put: async (source) => (await store()).put(source),
    open(ref): Readable {
      const out = new PassThrough();
      store()
        .then((s3) => pipeline(s3.open(ref), out, () => undefined))
        .catch((error: Error) => out.destroy(error));
      return out;
    },
    has: async (ref) => (await store()).has(ref),
    size: async (ref) => (await store()).size(ref),
    objects: {
      put: async (name, data) => (await store()).objects.put(name, data),
      get: async (name) => (await store()).objects.get(name),
      list: async (prefix) => (await store()).objects.list(prefix),
    },
  };
}
