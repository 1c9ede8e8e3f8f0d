// Svc-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<uncompressed JSON body>")>.

import { createHmac, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_HEADER = 'Svc-Signature';

export function signatureHeaderValue(secret: string, uncompressedJson: string, unixSeconds: number): string {
  const digest = createHmac('sha256', secret).update(`${unixSeconds}.${uncompressedJson}`).digest('hex');
  return `t=${unixSeconds},v1=${digest}`;
}

/**
 * True when `header` carries a v1 signature of `uncompressedJson` by `secret`, made at most
 * `toleranceSeconds` away from `nowSeconds`.
 */
export function verifySignatureHeader(header: string, secret: string, uncompressedJson: string, nowSeconds: number, toleranceSeconds = 300): boolean {
  const parts = new Map<string, string[]>();
  for (const piece of header.split(',')) {
    const at = piece.indexOf('=');
    if (at <= 0) return false;
    const key = piece.slice(0, at).trim();
    parts.set(key, [...(parts.get(key) ?? []), piece.slice(at + 1).trim()]);
  }
  const t = parts.get('t')?.[0];
  if (!t || !/^\d{1,12}$/.test(t) || Math.abs(nowSeconds - Number(t)) > toleranceSeconds) return false;
  const expected = Buffer.from(createHmac('sha256', secret).update(`${t}.${uncompressedJson}`).digest('hex'));
  return (parts.get('v1') ?? []).some((candidate) => {
    const given = Buffer.from(candidate);
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}
