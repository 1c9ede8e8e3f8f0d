// ID list files: streamed line by line, counted, de-duplicated, hashed, and normalized.
import { createHash, randomUUID } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { createWriteStream, existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { once } from 'node:events';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkIdListFile, checkIdListSource, hashIdList, IdListFileError, MAX_ID_LENGTH, MAX_IDS_PER_LIST, MAX_LINE_BYTES, writeNormalizedIdList } from '../../definitions';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'studyflow-idlist-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function writeLines(name: string, count: number, line: (i: number) => string): Promise<string> {
  const file = path.join(dir, name);
  const out = createWriteStream(file);
  for (let i = 0; i < count; i++) {
    if (!out.write(`${line(i)}\n`)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
  return file;
}

const sha = (text: string) => createHash('sha256').update(text).digest('hex');
/** RSIDs are UUIDs (the reference's format); these sort as their numbers do. */
const rsid = (i: number) => `0f1ce179-a917-49ff-9d50-${String(i).padStart(12, '0')}`;
const [R1, R2, R3] = [1, 2, 3].map(rsid);

class CollectingSink extends Writable {
  chunks: string[] = [];
  constructor() {
    super({ highWaterMark: 16 });
  }
  override _write(chunk: Buffer, _enc: BufferEncoding, done: () => void) {
    this.chunks.push(chunk.toString());
    setImmediate(done);
  }
}

describe('checkIdListFile', () => {
  it('streams a 100,000-line file and counts, de-duplicates and hashes it', async () => {
    // 100,000 lines: 99,000 distinct RSIDs written in reverse order, then 1,000 repeats.
    const file = await writeLines('big.txt', MAX_IDS_PER_LIST, (i) => (i < 99_000 ? rsid(98_999 - i) : rsid(i - 99_000)));
    const result = await checkIdListFile(file, 'respondent_ids');
    expect(result.count).toBe(99_000);
    expect(result.duplicates).toBe(1_000);
    const expected = Array.from({ length: 99_000 }, (_, i) => `${rsid(i)}\n`).join('');
    expect(result.sha256).toBe(sha(expected));
    expect(result.diagnostics.map((d) => [d.code, d.line])).toEqual([['SF6006', 99_001]]);
    expect(result.diagnostics[0].message).toContain('1000 duplicate IDs will be removed (line 99001 repeats line 99000)');
  });

  it('accepts exactly 100,000 distinct IDs and refuses one more', async () => {
    const atLimit = await writeLines('limit.txt', MAX_IDS_PER_LIST, rsid);
    expect((await checkIdListFile(atLimit, 'respondent_ids')).diagnostics).toEqual([]);
    const over = await writeLines('over.txt', MAX_IDS_PER_LIST + 1, rsid);
    const result = await checkIdListFile(over, 'respondent_ids');
    expect(result.diagnostics.map((d) => [d.code, d.line])).toEqual([['SF6005', MAX_IDS_PER_LIST + 1]]);
  });

  it('hashes the normalized list: order, duplicates and CRLF do not change it', async () => {
    const a = path.join(dir, 'a.txt');
    const b = path.join(dir, 'b.txt');
    await writeFile(a, `${R3}\n${R1}\n${R2}\n`);
    await writeFile(b, `\uFEFF${R2}\r\n${R1.toUpperCase()}\r\n${R3}\r\n${R1}`);
    const [ra, rb] = await Promise.all([checkIdListFile(a, 'respondent_ids'), checkIdListFile(b, 'respondent_ids')]);
    expect(ra.sha256).toBe(rb.sha256);
    expect(ra.sha256).toBe(hashIdList([R1, R2, R3]));
    expect(ra.count).toBe(3);
    expect(rb.duplicates).toBe(1);
  });

  it('compares GUIDs case-insensitively and stores them lower case', async () => {
    const guid = randomUUID();
    const file = path.join(dir, 'guids.txt');
    await writeFile(file, `${guid.toUpperCase()}\n${guid}\n`);
    const result = await checkIdListFile(file, 'respondent_guids');
    expect(result.count).toBe(1);
    expect(result.sha256).toBe(sha(`${guid}\n`));
  });

  it('refuses RSIDs (respondent_ids and recontact lists) that are not UUIDs at their line, naming the line, never the ID', async () => {
    const file = path.join(dir, 'short-codes.txt');
    await writeFile(file, `${R1}\nRS83082061\n${R2}\nrespondent-42\n`);
    for (const kind of ['respondent_ids', 'recontact'] as const) {
      const result = await checkIdListFile(file, kind);
      expect(result.diagnostics.map((d) => [d.code, d.file, d.line, d.column, d.message])).toEqual([
        ['SF6003', file, 2, 1, 'invalid RSID on line 2: not an RSID (a UUID)'],
        ['SF6003', file, 4, 1, 'invalid RSID on line 4: not an RSID (a UUID)'],
      ]);
      for (const d of result.diagnostics) expect(`${d.message} ${d.hint ?? ''}`).not.toMatch(/RS83082061|respondent-42/);
    }
  });

  it('reports bad lines by number, the first 20 one by one and the rest in a summary', async () => {
    const file = await writeLines('many-bad.txt', 50, (i) => (i % 2 === 0 ? randomUUID() : `bad-${i}`));
    const result = await checkIdListFile(file, 'respondent_guids');
    const invalid = result.diagnostics.filter((d) => d.code === 'SF6003');
    expect(invalid).toHaveLength(21);
    expect(invalid.slice(0, 20).map((d) => d.line)).toEqual(Array.from({ length: 20 }, (_, k) => 2 * k + 2));
    expect(invalid[20].message).toBe('5 more invalid lines not listed (25 in all)');
    for (const d of invalid) expect(d.message).not.toContain('bad-');
  });

  it('names a header line and unreadable files', async () => {
    const header = path.join(dir, 'header.txt');
    await writeFile(header, 'ACCESS_RESPONDENT_GUID\n' + randomUUID() + '\n');
    expect((await checkIdListFile(header, 'respondent_guids')).diagnostics.map((d) => d.code)).toEqual(['SF6002']);
    const missing = await checkIdListFile(path.join(dir, 'nope.txt'), 'respondent_ids');
    expect(missing.diagnostics.map((d) => [d.code, d.message])).toEqual([['SF6001', `ID list ${path.join(dir, 'nope.txt')}: file not found`]]);
    expect((await checkIdListFile(dir, 'respondent_ids')).diagnostics[0].message).toContain('is a directory');
  });
});

describe('lines that are too long, and bytes that are not text', () => {
  const codes = (result: { diagnostics: { code: string; line: number; column: number }[] }) => result.diagnostics.map((d) => [d.code, d.line, d.column]);

  it('caps a line at MAX_LINE_BYTES while reading: a file a little over the cap is refused at that line', async () => {
    const file = path.join(dir, 'long-line.txt');
    await writeFile(file, `${R1}\n${'a'.repeat(MAX_LINE_BYTES + 1)}\n${R2}\n`);
    const result = await checkIdListFile(file, 'respondent_ids');
    expect(codes(result)).toEqual([['SF6009', 2, 1]]);
    expect(result.diagnostics[0].message).toBe('line 2 is longer than 1,024 bytes; reading stopped there');
  });

  it('takes a line of exactly MAX_LINE_BYTES (with or without CR) as a line, and refuses it as an ID over MAX_ID_LENGTH', async () => {
    const file = path.join(dir, 'at-cap.txt');
    await writeFile(file, `${R1}\r\n${'b'.repeat(MAX_LINE_BYTES)}\r\n${'c'.repeat(MAX_ID_LENGTH)}\n`);
    const result = await checkIdListFile(file, 'respondent_ids');
    expect(codes(result)).toEqual([['SF6003', 2, MAX_ID_LENGTH + 1], ['SF6003', 3, 1]]);
    expect(result.diagnostics.map((d) => d.message)).toEqual([
      `invalid RSID on line 2: ID longer than ${MAX_ID_LENGTH} characters`,
      'invalid RSID on line 3: not an RSID (a UUID)',
    ]);
  });

  it('stops reading an endless line after about MAX_LINE_BYTES: a stream that never ends a line is consumed only that far', async () => {
    let chunks = 0;
    async function* endless(byte: number) {
      for (;;) {
        chunks++;
        yield Buffer.alloc(100, byte);
      }
    }
    for (const byte of [0x61, 0x00]) {
      chunks = 0;
      const result = await checkIdListSource(endless(byte), 'respondent_ids', 'stream');
      expect(codes(result)).toEqual([['SF6009', 1, 1]]);
      expect(chunks).toBeLessThanOrEqual(Math.ceil((MAX_LINE_BYTES + 2) / 100));
    }
  });

  it.skipIf(process.platform === 'win32')('refuses a device or a FIFO before opening it, so a writer that never comes cannot block the check', async () => {
    if (existsSync('/dev/zero')) {
      expect((await checkIdListFile('/dev/zero', 'respondent_ids')).diagnostics.map((d) => [d.code, d.message])).toEqual([
        ['SF6001', 'ID list /dev/zero: not a regular file (a device, FIFO or socket)'],
      ]);
    }
    const fifo = path.join(dir, 'ids.fifo');
    execFileSync('mkfifo', [fifo]);
    expect((await checkIdListFile(fifo, 'respondent_ids')).diagnostics.map((d) => d.code)).toEqual(['SF6001']);
  });

  it('refuses bytes that are not UTF-8 at their line and column, and stops reading there', async () => {
    const file = path.join(dir, 'latin1.txt');
    await writeFile(file, Buffer.concat([Buffer.from(`${R1}\n${R2}\nRS`), Buffer.from([0xe9]), Buffer.from('2\n'), Buffer.from([0xff, 0xfe, 0x00]), Buffer.from('\n')]));
    const result = await checkIdListFile(file, 'respondent_ids');
    expect(codes(result)).toEqual([['SF6010', 3, 3]]);
    expect(result.diagnostics[0].message).toBe('line 3 is not text: its byte 3 (0xe9) is not UTF-8; reading stopped there');
  });

  it('refuses a NUL or another control character inside a line, and a bare CR, at its column', async () => {
    const cases: [string, string | Buffer, number, number, string][] = [
      ['nul.txt', `${R1}\nRS\u00002\n`, 2, 3, 'U+0000 (NUL)'],
      ['esc.txt', `${R1}\u001b[0m\n`, 1, 37, 'U+001B (ESC)'],
      ['bare-cr.txt', `${R1}\r${R2}\r${R3}\n`, 1, 37, 'U+000D (carriage return)'],
    ];
    for (const [name, content, line, column, what] of cases) {
      const file = path.join(dir, name);
      await writeFile(file, content);
      const result = await checkIdListFile(file, 'respondent_ids');
      expect(codes(result), name).toEqual([['SF6010', line, column]]);
      expect(result.diagnostics[0].message).toContain(`control character ${what}`);
    }
  });

  it('refuses a file of random bytes instead of taking them for IDs', async () => {
    // Bytes without a line end, comma or space, so only the text check can refuse them.
    const bytes = Buffer.from(Array.from({ length: 600 }, (_, i) => [0x80, 0x00, 0x9b, 0xc3, 0x28, 0xf8][i % 6]));
    const file = path.join(dir, 'random.bin');
    await writeFile(file, bytes);
    const result = await checkIdListFile(file, 'respondent_ids');
    expect(result.count).toBe(0);
    expect(codes(result)).toEqual([['SF6010', 1, 1]]);
  });
});

describe('writeNormalizedIdList', () => {
  it('streams the sorted distinct IDs through a slow writer, with the hash checkIdListFile gives', async () => {
    const file = await writeLines('stream.txt', 5_000, (i) => rsid((i * 7919) % 4_000));
    const sink = new CollectingSink();
    const written = await writeNormalizedIdList(file, 'respondent_ids', sink);
    const text = sink.chunks.join('');
    expect(text).toBe(Array.from({ length: 4_000 }, (_, i) => `${rsid(i)}\n`).join(''));
    expect(written.count).toBe(4_000);
    const checked = await checkIdListFile(file, 'respondent_ids');
    expect(written.sha256).toBe(checked.sha256);
    expect(written.sha256).toBe(sha(text));
  });

  it('refuses a file with errors, naming the problem', async () => {
    const file = path.join(dir, 'bad.txt');
    await writeFile(file, `${R1}\n${R2.slice(0, 4)} ${R2.slice(5)}\n`);
    await expect(writeNormalizedIdList(file, 'respondent_ids', new CollectingSink())).rejects.toBeInstanceOf(IdListFileError);
    await expect(writeNormalizedIdList(file, 'respondent_ids', new CollectingSink())).rejects.toThrow(/invalid RSID on line 2/);
  });
});
