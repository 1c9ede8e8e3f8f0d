// ID list files: streamed line by line, counted, de-duplicated, hashed, and normalized.
import { createHash, randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { once } from 'node:events';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkIdListFile, hashIdList, IdListFileError, MAX_IDS_PER_LIST, writeNormalizedIdList } from '../../definitions';

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
const rsid = (i: number) => `RS${String(i).padStart(7, '0')}`;

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
    await writeFile(a, 'RS3\nRS1\nRS2\n');
    await writeFile(b, '\uFEFFRS2\r\nRS1\r\nRS3\r\nRS1');
    const [ra, rb] = await Promise.all([checkIdListFile(a, 'respondent_ids'), checkIdListFile(b, 'respondent_ids')]);
    expect(ra.sha256).toBe(rb.sha256);
    expect(ra.sha256).toBe(hashIdList(['RS1', 'RS2', 'RS3']));
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
    await writeFile(file, 'RS1\nRS 2\n');
    await expect(writeNormalizedIdList(file, 'respondent_ids', new CollectingSink())).rejects.toBeInstanceOf(IdListFileError);
    await expect(writeNormalizedIdList(file, 'respondent_ids', new CollectingSink())).rejects.toThrow(/invalid RSID on line 2/);
  });
});
