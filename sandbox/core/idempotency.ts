// Idempotency-Key handling: keys are scoped per account; only committed (2xx) responses are stored,
// so a rejected request leaves no trace and can be retried with the same key.
import { createHash } from 'node:crypto';
import { ApiError } from './api-error';
import type { IdempotencyRecord } from './state-records';
import type { StateStore } from './state-store';

export const IDEMPOTENCY_HEADER = 'idempotency-key';

export function idempotencyFingerprint(method: string, path: string, query: string, body: Buffer | string): string {
  return createHash('sha256').update(`${method}\n${path}\n${query}\n`).update(body).digest('hex');
}

export function validateIdempotencyKey(key: string): void {
  if (key.length === 0 || key.length > 255 || !/^[\x21-\x7e]+$/.test(key)) {
    throw new ApiError(400, 'bad_request_error', 'Idempotency-Key must be 1-255 visible ASCII characters.', {
      invalidParams: [{ name: 'Idempotency-Key', reason: 'must be 1-255 visible ASCII characters' }],
    });
  }
}

const storeKey = (accountId: string, key: string) => `${accountId}:${key}`;

/** The stored response for this key, or null; throws 422 idempotency_key_reused on a different request. */
export function lookupIdempotent(store: StateStore, accountId: string, key: string, fingerprint: string): IdempotencyRecord | null {
  const record = store.data.idempotency[storeKey(accountId, key)];
  if (!record) return null;
  if (record.fingerprint !== fingerprint) {
    throw new ApiError(
      422,
      'idempotency_key_reused',
      'This Idempotency-Key was already used with a different request; use a new key for a new request.',
    );
  }
  return record;
}

export function rememberIdempotent(store: StateStore, accountId: string, key: string, record: IdempotencyRecord): void {
  store.data.idempotency[storeKey(accountId, key)] = record;
}
