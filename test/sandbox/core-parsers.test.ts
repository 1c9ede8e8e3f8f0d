// Unit tests of the sandbox parsers: multipart, ID list files, ISO-8601 date-only durations.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MultipartError, multipartBoundary, parseMultipart } from '../../sandbox/core/multipart';
import { MAX_IDS_PER_TARGET_GROUP, parseIdListFile } from '../../sandbox/resources/id-list-file';
import { dateOnlyPeriodDays } from '../../sandbox/resources/iso-duration';

const multipart = (boundary: string, parts: Array<{ name: string; filename?: string; data: string }>) =>
  Buffer.from(
    parts
      .map((p) => `--${boundary}\r\nContent-Disposition: form-data; name="${p.name}"${p.filename ? `; filename="${p.filename}"` : ''}\r\nContent-Type: text/plain\r\n\r\n${p.data}\r\n`)
      .join('') + `--${boundary}--\r\n`,
  );

describe('core › multipart parser', () => {
  it('reads the boundary from the content type (quoted or not) and refuses other types', () => {
    expect(multipartBoundary('multipart/form-data; boundary=abc')).toBe('abc');
    expect(multipartBoundary('multipart/form-data; charset=utf-8; boundary="a b"')).toBe('a b');
    expect(multipartBoundary('application/json')).toBeNull();
    expect(multipartBoundary('multipart/form-data')).toBeNull();
  });

  it('parses named parts with file names and keeps binary-safe data', () => {
    const form = parseMultipart(multipart('XyZ', [{ name: 'meta', data: 'm' }, { name: 'file', filename: 'ids.txt', data: 'a\r\nb\n' }]), 'XyZ');
    expect(form.parts.map((p) => p.name)).toEqual(['meta', 'file']);
    expect(form.get('file')?.filename).toBe('ids.txt');
    expect(form.get('file')?.data.toString()).toBe('a\r\nb\n');
  });

  it('throws MultipartError for malformed bodies', () => {
    for (const body of ['nothing', '--b\r\nno header end', '--b\r\nContent-Disposition: form-data; name="f"\r\n\r\nunterminated', '--b\r\nX: y\r\n\r\nd\r\n--b--']) {
      expect(() => parseMultipart(Buffer.from(body), 'b')).toThrow(MultipartError);
    }
  });

  it('never throws anything but MultipartError on random input', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (bytes) => {
        try {
          parseMultipart(Buffer.concat([Buffer.from('--b\r\n'), Buffer.from(bytes)]), 'b');
        } catch (e) {
          expect(e).toBeInstanceOf(MultipartError);
        }
      }),
      { numRuns: 200, seed: 7 },
    );
  });
});

describe('core › ID list files', () => {
  it('skips blank lines, strips a BOM and CR, de-duplicates in order', () => {
    const [a, b] = ['0e8b5c1a-1234-4abc-8def-0123456789ab', '0e8b5c1a-1234-4abc-8def-0123456789ac'];
    expect(parseIdListFile(Buffer.from(`\ufeff${a}\r\n\n${b}\n${a.toUpperCase()}\n`), 'RSID')).toEqual({ ok: true, ids: [a, b], lines: 5 });
  });

  it('lower-cases GUIDs and de-duplicates case-insensitively', () => {
    const g = '0E8B5C1A-1234-4ABC-8DEF-0123456789AB';
    expect(parseIdListFile(Buffer.from(`${g}\n${g.toLowerCase()}\n`), 'ACCESS_RESPONDENT_GUID')).toMatchObject({ ok: true, ids: [g.toLowerCase()] });
  });

  it('names the first bad line without echoing its content', () => {
    const res = parseIdListFile(Buffer.from('0e8b5c1a-1234-4abc-8def-0123456789ab\nsecret id\n'), 'RSID');
    expect(res).toEqual({ ok: false, reason: expect.stringContaining('line 2') });
    expect(JSON.stringify(res)).not.toContain('secret id');
  });

  it(`refuses more than ${MAX_IDS_PER_TARGET_GROUP} distinct IDs`, () => {
    const lines = Array.from({ length: MAX_IDS_PER_TARGET_GROUP + 1 }, (_, i) => `0e8b5c1a-1234-4abc-8def-${String(i).padStart(12, '0')}`).join('\n');
    expect(parseIdListFile(Buffer.from(lines), 'RSID').ok).toBe(false);
  });
});

describe('core › ISO-8601 date-only durations', () => {
  it.each([
    ['P1D', 1],
    ['P2W', 14],
    ['P1M', 30],
    ['P1Y', 365],
    ['P1Y2M3W4D', 365 + 60 + 21 + 4],
    ['P0D', 0],
  ])('%s is %i days', (text, days) => {
    expect(dateOnlyPeriodDays(text)).toBe(days);
  });

  it.each(['P', 'PT1H', 'P1DT2H', 'P1D1Y', '1D', 'P1.5D', 'p1d', ' P1D', 'P-1D'])('%s is not a date-only period', (text) => {
    expect(dateOnlyPeriodDays(text)).toBeNull();
  });
});
