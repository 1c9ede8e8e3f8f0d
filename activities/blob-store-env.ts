// Which blob store a process uses: object storage when STUDYFLOW_BLOB_URL names one, else the local directory.
import { createBlobStore, blobDirFromEnv, type BlobStore } from './blob-store';
import { createS3BlobStore } from './blob-store-s3';

/**
 * The blob store from the environment: `STUDYFLOW_BLOB_URL=s3://bucket/prefix` (S3-compatible object
 * storage, AWS_* variables for endpoint, region and credentials) or `file:///path`; without it the
 * directory `STUDYFLOW_BLOB_DIR` (default `.studyflow/blobs`). Machines that share nothing but Temporal
 * need the S3 URL: the CLI writes the lists, workers elsewhere read them.
 */
export function blobStoreFromEnv(env: Record<string, string | undefined> = process.env): BlobStore {
  const url = env.STUDYFLOW_BLOB_URL?.trim();
  if (url) {
    if (url.startsWith('s3://')) return createS3BlobStore({ url, env });
    if (url.startsWith('file://')) return createBlobStore({ dir: decodeURIComponent(new URL(url).pathname) });
    throw new Error(`STUDYFLOW_BLOB_URL must be s3://bucket/prefix or file:///path, got "${url.slice(0, 80)}"`);
  }
  return createBlobStore({ dir: blobDirFromEnv(env) });
}
