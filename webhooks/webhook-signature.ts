// The Svc-Signature header of webhook deliveries:
//   Svc-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<uncompressed JSON body>")>
// During a secret rotation the sender may put several v1 values in one header; one match is enough.
// Comparison is constant-time over equal-length digests (crypto.timingSafeEqual).

import { createHmac, timingSafeEqual } from 'node:crypto';

/** The header name as Node's http module presents it (lower case). */
export const SIGNATURE_HEADER = 'svc-signature';

const MAX_HEADER_LENGTH = 4096;
const MAX_V1_VALUES = 16;
const DIGEST_HEX = /^[0-9a-fA-F]{64}$/;
const UNIX_SECONDS = /^\d{1,15}$/;

export interface ParsedSignatureHeader {
  /** The t value exactly as sent (it is part of the signed payload). */
  timestamp: string;
  timestampSeconds: number;
  /** The v1 digests, 32 bytes each. */
  digests: Buffer[];
}

export type SignatureHeaderProblem = 'missing_signature' | 'malformed_signature';

/**
 * Parses the header value (Node joins repeated header lines with ", ", which parses the same).
 * Unknown schemes (v0=, future v2=) are ignored; one t and at least one well-formed v1 are required.
 */
export function parseSignatureHeader(value: string | string[] | undefined): ParsedSignatureHeader | SignatureHeaderProblem {
  const joined = Array.isArray(value) ? value.join(',') : value;
  if (joined === undefined || joined.trim() === '') return 'missing_signature';
  if (joined.length > MAX_HEADER_LENGTH) return 'malformed_signature';
  let timestamp: string | undefined;
  const digests: Buffer[] = [];
  for (const piece of joined.split(',')) {
    const item = piece.trim();
    if (item === '') continue;
    const at = item.indexOf('=');
    if (at <= 0) return 'malformed_signature';
    const key = item.slice(0, at).trim();
    const itemValue = item.slice(at + 1).trim();
    if (key === 't') {
      if (timestamp !== undefined || !UNIX_SECONDS.test(itemValue)) return 'malformed_signature';
      timestamp = itemValue;
    } else if (key === 'v1') {
      if (!DIGEST_HEX.test(itemValue) || digests.length >= MAX_V1_VALUES) return 'malformed_signature';
      digests.push(Buffer.from(itemValue, 'hex'));
    }
  }
  if (timestamp === undefined || digests.length === 0) return 'malformed_signature';
  return { timestamp, timestampSeconds: Number(timestamp), digests };
}

/** The raw HMAC-SHA256 digest of `"<t>.<body>"` under `secret`. */
export function signatureDigest(secret: string, timestamp: string, body: Buffer | string): Buffer {
  return createHmac('sha256', secret).update(`${timestamp}.`).update(body).digest();
}

/** A complete header value, as the sender makes it (tests, benchmarks, local tools). */
export function signatureHeaderValue(secrets: string | readonly string[], body: Buffer | string, unixSeconds: number): string {
  const list = typeof secrets === 'string' ? [secrets] : secrets;
  const t = String(unixSeconds);
  return [`t=${t}`, ...list.map((secret) => `v1=${signatureDigest(secret, t, body).toString('hex')}`)].join(',');
}

/**
 * True when one of the header's digests is the HMAC of `body` under one of `secrets`. Every
 * (secret, digest) pair is compared, so the time taken does not depend on where a match is.
 * Empty secrets never verify anything.
 */
export function signatureMatches(header: ParsedSignatureHeader, secrets: readonly string[], body: Buffer): boolean {
  let matched = false;
  for (const secret of secrets) {
    if (secret.length === 0) continue;
    const expected = signatureDigest(secret, header.timestamp, body);
    for (const digest of header.digests) {
      if (digest.length === expected.length && timingSafeEqual(digest, expected)) matched = true;
    }
  }
  return matched;
}

/** True when the signature time is within `toleranceSeconds` of now, in either direction. */
export function signatureIsFresh(header: ParsedSignatureHeader, nowMs: number, toleranceSeconds: number): boolean {
  return Math.abs(Math.floor(nowMs / 1000) - header.timestampSeconds) <= toleranceSeconds;
}
