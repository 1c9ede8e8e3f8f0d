// Every file in test/fixtures/invalid declares the diagnostics it must produce in its header
// (`# expect: CODE line N` or `# expect: CODE line N in ids/file.txt`); the loader must report
// exactly those: each expected one, and nothing else.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadStudyFile } from '../../definitions';

const dir = fileURLToPath(new URL('../fixtures/invalid/', import.meta.url));
const files = readdirSync(dir)
  .filter((f) => f.endsWith('.yaml'))
  .sort();
const SECRET_VALUES = ['never-printed-secret', 's3cr3t-value', 'abc123', '12345'];
const env = { STUDYFLOW_FIXTURE_SECRET: 'never-printed-secret' };

function expectations(file: string): string[] {
  const text = readFileSync(path.join(dir, file), 'utf8');
  return [...text.matchAll(/^# expect: (SF\d{4}) line (\d+)(?: in (\S+))?$/gm)].map(
    (m) => `${m[1]} ${m[3] ? path.join(dir, m[3]) : path.join(dir, file)}:${m[2]}`,
  );
}

describe('invalid study fixtures', () => {
  it('has at least 100 fixtures, each with an expectation', () => {
    expect(files.length).toBeGreaterThanOrEqual(100);
    for (const file of files) expect(expectations(file), file).not.toHaveLength(0);
  });

  it.each(files)('%s reports exactly its expected diagnostics', async (file) => {
    const { study, diagnostics } = await loadStudyFile(path.join(dir, file), { env });
    const actual = diagnostics.map((d) => `${d.code} ${d.file}:${d.line}`).sort();
    expect(actual).toEqual(expectations(file).sort());
    expect(study === undefined).toBe(diagnostics.some((d) => d.severity === 'error'));
    for (const d of diagnostics) {
      expect(d.message.length).toBeGreaterThan(5);
      expect(d.message).not.toMatch(/\n\s+at /);
      expect(d.line).toBeGreaterThanOrEqual(1);
      expect(d.column).toBeGreaterThanOrEqual(1);
      expect(d.endLine * 10_000 + d.endColumn).toBeGreaterThanOrEqual(d.line * 10_000 + d.column);
    }
    const shown = JSON.stringify(diagnostics);
    if (/secret|token|apiKey/i.test(readFileSync(path.join(dir, file), 'utf8'))) {
      for (const secret of SECRET_VALUES) expect(shown).not.toContain(secret);
    }
  });
});
