// Streams a stored ID list to an upload operation as multipart/form-data (field `file`), never whole in memory:
// the list is checked against the store, verified while it streams (a mismatch aborts the request before the
// closing boundary), and its progress heartbeats.
import { createHash } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/common';
import { heartbeatProgress } from './activity-context';
import type { ActivityDeps } from './activity-deps';
import { BlobStoreError } from '../blobs/blob-store';
import { blobCorruptFailure, blobNotFoundFailure, invalidInputFailure } from '../api/http/errors';
import { boundaryFromSeed, multipartFileBody } from '../api/http/multipart-body';
import type { ListFileUpload } from '../api/operations/id-lists';
import type { ListRef } from './types';

export interface IdListUpload {
  activity: string;
  list: ListRef;
  idempotencyKey: string;
}

const HEARTBEAT_EVERY_BYTES = 1024 * 1024;

/**
 * Checks the reference against the store, then hands the file to `send` (an upload operation); the multipart
 * boundary is derived from the key. A store that cannot be read, or a file that does not match its reference,
 * fails the upload as the activity's named failure.
 */
export async function uploadStoredList<T>(deps: Pick<ActivityDeps, 'blobs'>, upload: IdListUpload, send: (file: ListFileUpload) => Promise<T>): Promise<T> {
  const { list, activity } = upload;
  if (!list || typeof list !== 'object') throw invalidInputFailure(activity, 'list is missing');
  if (!/^[0-9a-f]{64}$/.test(String(list.sha256)) || list.ref !== `sha256:${list.sha256}`) {
    throw invalidInputFailure(activity, 'list.ref must be sha256:<list.sha256>');
  }
  if (!Number.isInteger(list.count) || list.count < 0) throw invalidInputFailure(activity, 'list.count must be a whole number');
  const size = await deps.blobs.size(list.ref);
  if (size === undefined) {
    throw blobNotFoundFailure(activity, list.ref);
  }

  let integrityProblem: string | undefined;
  // The store could not be read (object storage unreachable or refusing the credential): worth a retry.
  let storeProblem: BlobStoreError | undefined;
  const openVerified = async function* (): AsyncGenerator<Uint8Array> {
    const hash = createHash('sha256');
    let sent = 0;
    let nextBeat = HEARTBEAT_EVERY_BYTES;
    let lines = 0;
    try {
      for await (const chunk of deps.blobs.open(list.ref)) {
        const bytes = chunk as Buffer;
        hash.update(bytes);
        for (let i = bytes.indexOf(10); i !== -1; i = bytes.indexOf(10, i + 1)) lines += 1;
        sent += bytes.length;
        if (sent >= nextBeat) {
          heartbeatProgress({ uploadedBytes: sent, totalBytes: size });
          nextBeat += HEARTBEAT_EVERY_BYTES;
        }
        yield bytes;
      }
    } catch (error) {
      if (error instanceof BlobStoreError && (error.code === 'unavailable' || error.code === 'access_denied')) storeProblem = error;
      else integrityProblem = error instanceof BlobStoreError ? error.message : `reading the ID list failed: ${String(error)}`;
      throw error;
    }
    const digest = hash.digest('hex');
    if (digest !== list.sha256 || lines !== list.count) {
      // Throwing before the closing boundary aborts the request: the API never sees a complete, wrong file.
      integrityProblem = `the stored file does not match ${list.ref} (count ${list.count})`;
      throw new Error(integrityProblem);
    }
    heartbeatProgress({ uploadedBytes: sent, totalBytes: size });
  };

  const stream = multipartFileBody(
    { field: 'file', filename: 'ids.txt', contentType: 'text/plain; charset=utf-8', size, open: openVerified },
    boundaryFromSeed(`${upload.idempotencyKey}\n${list.sha256}`),
  );
  try {
    return await send({ file: stream, idempotencyKey: upload.idempotencyKey });
  } catch (error) {
    if (storeProblem) throw ApplicationFailure.retryable(`${activity}: ${storeProblem.message}`, 'BlobStoreUnavailable');
    if (integrityProblem) {
      throw blobCorruptFailure(activity, list.ref, integrityProblem);
    }
    throw error;
  }
}
