// Reversal files of a close-out (definitions/reversal-file.ts): streamed line by line, every problem located at
// file:line:col, RIDs normalized to lower case, the normalized list `rid,code\n` sorted by RID with its SHA-256.
import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { once } from 'node:events';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Diagnostic } from '../../definitions';
import {
  checkReversalFiles,
  checkReversalSources,
  MAX_REVERSAL_ROWS,
  MAX_ROWS_PER_SUBMISSION,
  normalizedReversalChunks,
  ReversalFileError,
} from '../../definitions/reversal-file';
import { reversalChunks } from '../../plan/closeout';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'studyflow-reversals-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const sha = (text: string) => createHash('sha256').update(text).digest('hex');
/** RIDs are UUIDs; these sort as their numbers do. */
const rid = (i: number) => `9c23131d-388b-4e03-97b3-${String(i).padStart(12, '0')}`;
const [R1, R2, R3] = [1, 2, 3].map(rid);
const UPPER = '0F1CE179-A917-49FF-9D50-B05FC91F7BD4';

async function file(name: string, content: string | Buffer): Promise<string> {
  const at = path.join(dir, name);
  await writeFile(at, content);
  return at;
}

async function writeRows(name: string, count: number, line: (i: number) => string): Promise<string> {
  const at = path.join(dir, name);
  const out = createWriteStream(at);
  for (let i = 0; i < count; i++) if (!out.write(`${line(i)}\n`)) await once(out, 'drain');
  out.end();
  await once(out, 'finish');
  return at;
}

/** `code line:col-endCol` of each diagnostic, in order. */
const where = (ds: Diagnostic[]) => ds.map((d) => `${d.code} ${path.basename(d.file)}:${d.line}:${d.column}`);

describe('a reversal file', () => {
  it('reads RID-only lines under the entry\'s reason and RID,code lines under their own; normalizes to lower case, sorted', async () => {
    const f = await file('ok.csv', `${R3}\n${UPPER},932\n${R1} , 11\n`);
    const { summary, diagnostics } = await checkReversalFiles([{ file: f, reason: '11' }]);
    expect(diagnostics).toEqual([]);
    const normalized = `${UPPER.toLowerCase()},932\n${R1},11\n${R3},11\n`;
    expect(summary).toEqual({ sha256: sha(normalized), count: 3, byCode: { '11': 2, '932': 1 }, files: [f], submissions: 1 });
    const { chunks } = await normalizedReversalChunks([{ file: f, reason: '11' }]);
    expect(Buffer.concat([...chunks()]).toString('utf8')).toBe(normalized);
  });

  it('takes CRLF line ends and a UTF-8 BOM without misreading the first RID or the codes', async () => {
    const crlf = await file('crlf.csv', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(`${R2},932\r\n${R1}\r\n`)]));
    const lf = await file('lf.csv', `${R2},932\n${R1}\n`);
    const a = await checkReversalFiles([{ file: crlf, reason: '11' }]);
    const b = await checkReversalFiles([{ file: lf, reason: '11' }]);
    expect(a.diagnostics).toEqual([]);
    expect(a.summary!.sha256).toBe(b.summary!.sha256);
    expect(a.summary!.byCode).toEqual({ '11': 1, '932': 1 });
  });

  it('compares RIDs without case: the reference\'s upper-case RID and its lower-case form are one RID', async () => {
    const f = await file('case.csv', `${UPPER},11\n${UPPER.toLowerCase()},11\n`);
    const { diagnostics, summary } = await checkReversalFiles([{ file: f }]);
    expect(summary).toBeUndefined();
    expect(where(diagnostics)).toEqual(['SF6013 case.csv:2:1']);
    expect(diagnostics[0].message).toBe(`the RID on line 2 is listed before, at ${f}:1`);
    expect(diagnostics[0].message).not.toContain(UPPER.toLowerCase());
  });

  it('refuses a header line and a comment line, with their locations', async () => {
    const f = await file('header.csv', `RID,code\n${R1},11\n# speeders from wave 2\n// another\n${R2},11\n`);
    const { diagnostics } = await checkReversalFiles([{ file: f }]);
    expect(where(diagnostics)).toEqual(['SF6002 header.csv:1:1', 'SF6012 header.csv:3:1', 'SF6012 header.csv:4:1']);
    expect(diagnostics[0].message).toContain('no header');
    expect(diagnostics[1].message).toContain('no comments');
    expect(diagnostics[0].endColumn).toBe('RID,code'.length + 1);
  });

  it('refuses a blank line in the middle and at the end; the last line end is not one', async () => {
    const f = await file('blank.csv', `${R1},11\n\n${R2},11\n   \n`);
    const { diagnostics } = await checkReversalFiles([{ file: f }]);
    expect(where(diagnostics)).toEqual(['SF6004 blank.csv:2:1', 'SF6004 blank.csv:4:1']);
  });

  it('locates a RID that is not a UUID at its column, and a line of three values', async () => {
    const f = await file('bad-rid.csv', `${R1},11\n  12345,11\n${R2},11,x\n`);
    const { diagnostics } = await checkReversalFiles([{ file: f }]);
    expect(where(diagnostics)).toEqual(['SF6003 bad-rid.csv:2:3', 'SF6003 bad-rid.csv:3:40']);
    expect(diagnostics[0]).toMatchObject({ endColumn: 8, message: 'invalid RID on line 2: not a RID (a UUID)' });
  });

  it('locates a code not of the exchange\'s form, an empty code, and a RID alone without the entry\'s reason', async () => {
    const f = await file('codes.csv', `${R1},abc\n${R2},\n${R3}\n${rid(4)},1234567\n`);
    const { diagnostics } = await checkReversalFiles([{ file: f }]);
    expect(where(diagnostics)).toEqual(['SF6015 codes.csv:1:38', 'SF6015 codes.csv:2:38', 'SF6015 codes.csv:3:37', 'SF6015 codes.csv:4:38']);
    expect(diagnostics[1].message).toContain('an empty reason code');
    expect(diagnostics[2].message).toContain('no `reason`');
  });

  it('refuses a RID listed twice across files, and one RID under two codes, at the later line naming the first', async () => {
    const a = await file('a.csv', `${R1},11\n${R2},11\n`);
    const b = await file('b.csv', `${R3}\n${R1}\n${R2.toUpperCase()},932\n`);
    const { diagnostics, summary } = await checkReversalFiles([
      { file: a, display: 'closeout/a.csv' },
      { file: b, display: 'closeout/b.csv', reason: '11' },
    ]);
    expect(summary).toBeUndefined();
    expect(diagnostics.map((d) => `${d.code} ${d.file}:${d.line}:${d.column} ${d.message}`)).toEqual([
      'SF6013 closeout/b.csv:2:1 the RID on line 2 is listed before, at closeout/a.csv:1',
      'SF6014 closeout/b.csv:3:1 the RID on line 3 has reason code 932, and 11 at closeout/a.csv:2',
    ]);
  });

  it('refuses a RID that the approved completes keep (SF6017), at its line', async () => {
    const f = await file('kept.csv', `${R1},11\n${R2.toUpperCase()},11\n`);
    const { diagnostics } = await checkReversalFiles([{ file: f }], { rids: new Set([R2]), display: 'closeout/approved.csv' });
    expect(diagnostics.map((d) => `${d.code} ${path.basename(d.file)}:${d.line}:${d.column} ${d.message}`)).toEqual([
      'SF6017 kept.csv:2:1 the RID on line 2 is also an approved complete in closeout/approved.csv',
    ]);
  });

  it('reports every problem of every file in one run, the first 20 of a file one by one, then a count', async () => {
    const many = await writeRows('many.csv', 25, (i) => `not-a-rid-${i},11`);
    const other = await file('other.csv', `${R1},11\n#\n`);
    const missing = path.join(dir, 'missing.csv');
    const { diagnostics } = await checkReversalFiles([{ file: many }, { file: other }, { file: missing }]);
    expect(diagnostics.filter((d) => d.file === many)).toHaveLength(21);
    expect(diagnostics.find((d) => d.file === many && d.line === 25)?.message).toBe('5 more problems not listed (25 in all)');
    expect(where(diagnostics.filter((d) => d.file !== many))).toEqual(['SF6012 other.csv:2:1', 'SF6001 missing.csv:1:1']);
  });

  it('refuses an empty file, one holding only a BOM, and a line that is not text', async () => {
    const empty = await file('empty.csv', '');
    const bom = await file('bom.csv', Buffer.from([0xef, 0xbb, 0xbf]));
    const binary = await file('binary.csv', Buffer.concat([Buffer.from(`${R1},11\n`), Buffer.from([0x41, 0xff, 0x0a])]));
    const { diagnostics } = await checkReversalFiles([{ file: empty }, { file: bom }, { file: binary }]);
    expect(where(diagnostics)).toEqual(['SF6007 empty.csv:1:1', 'SF6007 bom.csv:1:1', 'SF6010 binary.csv:2:2']);
  });

  it('stops at a line longer than 1,024 bytes (a file that never ends a line is not read to its end)', async () => {
    const f = await file('long.csv', `${R1},11\n${'a'.repeat(5000)}`);
    const { diagnostics } = await checkReversalFiles([{ file: f }]);
    expect(where(diagnostics)).toEqual(['SF6009 long.csv:2:1']);
  });

  it('throws a ReversalFileError naming the first problem when asked for the normalized list of a bad file', async () => {
    const f = await file('bad.csv', `${R1}\n`);
    await expect(normalizedReversalChunks([{ file: f }])).rejects.toThrow(ReversalFileError);
    await expect(normalizedReversalChunks([{ file: f }])).rejects.toThrow(`${f}:1:37: line 1 gives no reason code`);
  });
});

describe('large reversal files', () => {
  it('100,000 rows in one file are one submission; 100,001 are fine and chunked into two', async () => {
    const full = await writeRows('full.csv', MAX_ROWS_PER_SUBMISSION, (i) => `${rid(i)},11`);
    const over = await writeRows('over.csv', MAX_ROWS_PER_SUBMISSION + 1, (i) => `${rid(i)},11`);
    const a = await checkReversalFiles([{ file: full }]);
    const b = await checkReversalFiles([{ file: over }]);
    expect(a.diagnostics).toEqual([]);
    expect(b.diagnostics).toEqual([]);
    expect([a.summary!.count, a.summary!.submissions]).toEqual([100_000, 1]);
    expect([b.summary!.count, b.summary!.submissions]).toEqual([100_001, 2]);
    expect(reversalChunks('acme-closeout', b.summary!.sha256, b.summary!.count).map((s) => [s.from, s.rows])).toEqual([
      [0, 100_000],
      [100_000, 1],
    ]);
  }, 60_000);

  it('streams a 100,000-row source in bounded memory: the bytes are never held whole', async () => {
    let pulled = 0;
    async function* source(): AsyncGenerator<Uint8Array> {
      // 1,000 rows a chunk, made as they are read.
      for (let chunk = 0; chunk < 100; chunk++) {
        const rows: string[] = [];
        for (let i = 0; i < 1000; i++) rows.push(`${rid(chunk * 1000 + i).toUpperCase()}\r\n`);
        const bytes = Buffer.from(rows.join(''));
        pulled += bytes.length;
        yield bytes;
      }
    }
    global.gc?.();
    const before = process.memoryUsage().heapUsed;
    const { summary, diagnostics } = await checkReversalSources([{ source: source(), display: 'streamed.csv', reason: '932' }]);
    const grown = process.memoryUsage().heapUsed - before;
    expect(diagnostics).toEqual([]);
    expect(summary).toMatchObject({ count: 100_000, byCode: { '932': 100_000 }, submissions: 1 });
    expect(pulled).toBe(100_000 * 38);
    // One entry per distinct RID (a 36-character string and three small numbers) is what stays: well under 64 MB.
    expect(grown).toBeLessThan(64 * 1024 * 1024);
  }, 60_000);

  it('refuses more than 1,000,000 RIDs in the study\'s files together, at the first line over the limit', async () => {
    expect(MAX_REVERSAL_ROWS).toBe(1_000_000);
    async function* rows(from: number, count: number): AsyncGenerator<Uint8Array> {
      for (let start = from; start < from + count; start += 10_000) {
        const lines: string[] = [];
        for (let i = start; i < Math.min(start + 10_000, from + count); i++) lines.push(`${rid(i)}\n`);
        yield Buffer.from(lines.join(''));
      }
    }
    const { diagnostics } = await checkReversalSources([
      { source: rows(0, 600_000), display: 'one.csv', reason: '11' },
      { source: rows(600_000, 400_001), display: 'two.csv', reason: '11' },
    ]);
    expect(diagnostics.map((d) => `${d.code} ${d.file}:${d.line}`)).toEqual(['SF6016 two.csv:400001']);
  }, 120_000);
});
