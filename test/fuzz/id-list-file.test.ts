import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkIdListFile, hashIdList, IdListFileError, writeNormalizedIdList } from '../../definitions';

// test/definitions/id-list-file.test.ts pins the rules with examples (100,000 lines, CRLF, BOM,
// headers, GUID case); these properties try random files: the check never throws, agrees with a
// simple model on what a valid list holds, and never puts an ID into a diagnostic.

let dir: string;
let counter = 0;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'studyflow-fuzz-idlist-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function fileWith(text: string): Promise<string> {
  const file = path.join(dir, `list-${counter++}.txt`);
  await writeFile(file, text);
  return file;
}

class Collect extends Writable {
  text = '';
  override _write(chunk: Buffer, _enc: BufferEncoding, done: () => void) {
    this.text += chunk.toString();
    done();
  }
}

const sorted = (ids: Iterable<string>) => [...ids].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));

/** RSIDs: UUIDs (the reference's format), in either case; a small pool so duplicates happen. */
const rsid = fc.uuid().chain((u) => fc.constantFrom(u, u.toUpperCase()));
const layout = fc.record({ crlf: fc.boolean(), bom: fc.boolean(), trailingNewline: fc.boolean() });
const join = (lines: string[], l: { crlf: boolean; bom: boolean; trailingNewline: boolean }) =>
  `${l.bom ? '\uFEFF' : ''}${lines.join(l.crlf ? '\r\n' : '\n')}${l.trailingNewline ? (l.crlf ? '\r\n' : '\n') : ''}`;

describe('ID list files under random content', () => {
  it('a list of valid RSIDs: count, duplicates, hash and the normalized stream match the model', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(rsid, { minLength: 1, maxLength: 12 }), fc.array(fc.nat(), { minLength: 1, maxLength: 60 }), layout, async (pool, picks, l) => {
        const lines = picks.map((p) => pool[p % pool.length]);
        const file = await fileWith(join(lines, l));
        const distinct = sorted(new Set(lines.map((id) => id.toLowerCase())));
        const result = await checkIdListFile(file, 'respondent_ids');
        expect(result.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
        expect(result.count).toBe(distinct.length);
        expect(result.duplicates).toBe(lines.length - distinct.length);
        expect(result.sha256).toBe(hashIdList(distinct));
        const sink = new Collect();
        const written = await writeNormalizedIdList(file, 'respondent_ids', sink);
        expect(sink.text).toBe(distinct.map((id) => `${id}\n`).join(''));
        expect(written).toEqual({ count: distinct.length, sha256: result.sha256 });
      }),
      { numRuns: 150 },
    );
  });

  it('GUID lists: case-insensitive de-duplication, garbage lines reported by number', async () => {
    const guid = fc.uuid().chain((u) => fc.constantFrom(u, u.toUpperCase()));
    const garbage = fc.oneof(fc.stringMatching(/^[0-9a-fA-F-]{1,40}$/), fc.constant('not-a-guid'), fc.constant('{00000000-0000-0000-0000-000000000000}'));
    const line = fc.oneof({ weight: 4, arbitrary: guid.map((g) => ({ g })) }, { weight: 1, arbitrary: garbage.map((bad) => ({ bad })) });
    await fc.assert(
      fc.asyncProperty(fc.array(line, { minLength: 1, maxLength: 40 }), layout, async (entries, l) => {
        const lines = entries.map((e) => ('g' in e ? e.g : e.bad));
        const valid = (s: string) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(s);
        const file = await fileWith(join(lines, l));
        const result = await checkIdListFile(file, 'respondent_guids');
        const distinct = sorted(new Set(lines.filter(valid).map((s) => s.toLowerCase())));
        expect(result.count).toBe(distinct.length);
        expect(result.sha256).toBe(hashIdList(distinct));
        const badLines = lines.map((s, i) => (valid(s) ? 0 : i + 1)).filter(Boolean);
        const reported = result.diagnostics.filter((d) => d.code === 'SF6003').map((d) => d.line);
        expect(reported.slice(0, Math.min(20, badLines.length))).toEqual(badLines.slice(0, 20));
      }),
      { numRuns: 150 },
    );
  });

  it('never throws on arbitrary text and never echoes an ID into a diagnostic', async () => {
    // Marked IDs ("Rq" + 6 random letters) are easy to find in messages; some are corrupted so they
    // are reported as bad lines, which is where an echo would show.
    const marked = fc.stringMatching(/^[a-z]{6}$/).map((s) => `Rq${s}`);
    const corrupt = fc.tuple(marked, fc.constantFrom(' ', '\t', ',', ';', ' x', ',y;')).map(([id, bad]) => ({ id, line: `${id}${bad}` }));
    const line = fc.oneof(
      { weight: 3, arbitrary: marked.map((id) => ({ id, line: id })) },
      { weight: 2, arbitrary: corrupt },
      { weight: 1, arbitrary: fc.constantFrom('', '   ', '\u0000', '\uFEFF').map((text) => ({ id: undefined, line: text })) },
      { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 20 }).map((text) => ({ id: undefined, line: text })) },
    );
    await fc.assert(
      fc.asyncProperty(fc.array(line, { maxLength: 50 }), fc.constantFrom<'respondent_ids' | 'respondent_guids' | 'recontact'>('respondent_ids', 'respondent_guids', 'recontact'), layout, async (entries, kind, l) => {
        const text = join(entries.map((e) => e.line), l);
        const file = await fileWith(text);
        const result = await checkIdListFile(file, kind);
        // Random text may hold line breaks of its own (readline breaks at \n, \r\n and a lone \r).
        const lineCount = text.split(/\r\n|\n|\r/).length;
        for (const d of result.diagnostics) {
          expect(d.line).toBeGreaterThanOrEqual(1);
          expect(d.line).toBeLessThanOrEqual(lineCount);
          for (const { id } of entries) if (id) expect(d.message + (d.hint ?? '')).not.toContain(id);
        }
        const hasErrors = result.diagnostics.some((d) => d.severity === 'error');
        if (hasErrors) {
          const error = await writeNormalizedIdList(file, kind, new Collect()).catch((e: unknown) => e);
          expect(error).toBeInstanceOf(IdListFileError);
          for (const { id } of entries) if (id) expect((error as Error).message).not.toContain(id);
        }
      }),
      { numRuns: 200 },
    );
  });

  it('numbers diagnostics by the lines of the file, also when an entry held line breaks of its own', async () => {
    // The case fast-check found (seed -1761354793): "\n\n" then "   " is a file of four lines.
    const file = await fileWith('\n\n\n   ');
    const result = await checkIdListFile(file, 'respondent_ids');
    expect(result.diagnostics.length).toBeGreaterThan(0);
    for (const d of result.diagnostics) expect(d.line).toBeLessThanOrEqual(4);
  });
});
