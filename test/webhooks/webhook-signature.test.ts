// DESIGN.md "not shown" table, signature: Svc-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>.
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { parseSignatureHeader, signatureHeaderValue, signatureIsFresh, signatureMatches, type ParsedSignatureHeader } from '../../webhooks/webhook-signature';

const body = Buffer.from('{"id":"e-1","specversion":"1.0"}');
const hmacHex = (secret: string, payload: string) => createHmac('sha256', secret).update(payload).digest('hex');

function parsed(value: string): ParsedSignatureHeader {
  const result = parseSignatureHeader(value);
  if (typeof result === 'string') throw new Error(`header did not parse: ${result}`);
  return result;
}

describe('parseSignatureHeader', () => {
  it('reads t and one v1 digest', () => {
    const digest = hmacHex('s', `1700000000.${body.toString()}`);
    const header = parsed(`t=1700000000,v1=${digest}`);
    expect(header.timestamp).toBe('1700000000');
    expect(header.timestampSeconds).toBe(1700000000);
    expect(header.digests.map((d) => d.toString('hex'))).toEqual([digest]);
  });

  it('reads several v1 values, in any order around t, ignoring unknown schemes and spaces', () => {
    const a = 'a'.repeat(64);
    const b = 'B'.repeat(64);
    const header = parsed(` v1=${a} , v0=legacy, t=1700000000 ,v1=${b}`);
    expect(header.digests.map((d) => d.toString('hex'))).toEqual([a, b.toLowerCase()]);
  });

  it('accepts repeated header lines (Node gives them as an array or joined with ", ")', () => {
    expect(parsed(`t=1, v1=${'0'.repeat(64)}`).digests).toHaveLength(1);
    expect(parseSignatureHeader(['t=1', `v1=${'0'.repeat(64)}`])).toMatchObject({ timestamp: '1' });
  });

  it.each([[undefined], [''], ['   ']])('calls %j missing', (value) => {
    expect(parseSignatureHeader(value)).toBe('missing_signature');
  });

  it.each([
    ['v1 without t', `v1=${'a'.repeat(64)}`],
    ['t without v1', 't=1700000000'],
    ['two t values', `t=1,t=2,v1=${'a'.repeat(64)}`],
    ['t not a number', `t=soon,v1=${'a'.repeat(64)}`],
    ['negative t', `t=-5,v1=${'a'.repeat(64)}`],
    ['short digest', `t=1,v1=${'a'.repeat(63)}`],
    ['non-hex digest', `t=1,v1=${'g'.repeat(64)}`],
    ['piece without =', `t=1,v1=${'a'.repeat(64)},junk`],
    ['empty key', `t=1,=x,v1=${'a'.repeat(64)}`],
    ['oversized header', `t=1,v1=${'a'.repeat(64)},x=${'y'.repeat(5000)}`],
    ['too many v1 values', `t=1,${Array.from({ length: 17 }, () => `v1=${'a'.repeat(64)}`).join(',')}`],
  ])('calls a header with %s malformed', (_case, value) => {
    expect(parseSignatureHeader(value)).toBe('malformed_signature');
  });
});

describe('signatureMatches', () => {
  it('matches the HMAC-SHA256 of "<t>.<body>" in hex, as the spec convention defines it', () => {
    const header = parsed(`t=1700000000,v1=${hmacHex('secret-1', `1700000000.${body.toString()}`)}`);
    expect(signatureMatches(header, ['secret-1'], body)).toBe(true);
  });

  it('signs with the t text exactly as sent (leading zeros are part of the payload)', () => {
    const header = parsed(`t=01700000000,v1=${hmacHex('k', `01700000000.${body.toString()}`)}`);
    expect(signatureMatches(header, ['k'], body)).toBe(true);
    const renumbered = parsed(`t=01700000000,v1=${hmacHex('k', `1700000000.${body.toString()}`)}`);
    expect(signatureMatches(renumbered, ['k'], body)).toBe(false);
  });

  it('rejects another secret, another body and another timestamp', () => {
    const value = signatureHeaderValue('secret-1', body, 1700000000);
    expect(signatureMatches(parsed(value), ['secret-2'], body)).toBe(false);
    expect(signatureMatches(parsed(value), ['secret-1'], Buffer.from(body.toString().replace('e-1', 'e-2')))).toBe(false);
    expect(signatureMatches(parsed(value.replace('t=1700000000', 't=1700000001')), ['secret-1'], body)).toBe(false);
  });

  it('accepts any v1 value under any current secret during a rotation', () => {
    const both = parsed(signatureHeaderValue(['old-secret', 'new-secret'], body, 1700000000));
    expect(both.digests).toHaveLength(2);
    expect(signatureMatches(both, ['new-secret'], body)).toBe(true);
    expect(signatureMatches(both, ['old-secret'], body)).toBe(true);
    const newOnly = parsed(signatureHeaderValue('new-secret', body, 1700000000));
    expect(signatureMatches(newOnly, ['old-secret', 'new-secret'], body)).toBe(true);
    expect(signatureMatches(newOnly, ['old-secret'], body)).toBe(false);
  });

  it('never verifies with an empty secret', () => {
    const header = parsed(signatureHeaderValue('', body, 1700000000));
    expect(signatureMatches(header, [''], body)).toBe(false);
    expect(signatureMatches(header, [], body)).toBe(false);
  });
});

describe('signatureIsFresh', () => {
  const header = parsed(signatureHeaderValue('k', body, 1_700_000_000));
  it.each([
    [1_700_000_000_000, true],
    [1_700_000_300_999, true],
    [1_700_000_301_000, false],
    [1_699_999_700_000, true],
    [1_699_999_699_000, false],
  ])('at now=%i ms with 300 s tolerance: %s', (now, fresh) => {
    expect(signatureIsFresh(header, now, 300)).toBe(fresh);
  });
});
