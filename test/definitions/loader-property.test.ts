// Whatever text a user writes, the loader answers with diagnostics and never throws.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DIAGNOSTIC_CODES, loadStudyText, migrateStudyText, type Diagnostic } from '../../definitions';

const examples = fileURLToPath(new URL('../../examples/', import.meta.url));
const seeds = ['quickstart/study.yaml', 'multi-country-tracker/study.yaml', 'every-exclusion/study.yaml', 'recontact-wave/study.yaml'].map((f) => ({
  file: path.join(examples, f),
  text: readFileSync(path.join(examples, f), 'utf8'),
}));

function wellFormed(diagnostics: Diagnostic[]): void {
  for (const d of diagnostics) {
    expect(Object.keys(DIAGNOSTIC_CODES)).toContain(d.code);
    expect(['error', 'warning']).toContain(d.severity);
    expect(d.line).toBeGreaterThanOrEqual(1);
    expect(d.column).toBeGreaterThanOrEqual(1);
    expect(typeof d.message).toBe('string');
    expect(d.message).not.toMatch(/\n\s+at /);
  }
}


const token = fc.constantFrom('format: studyflow/v1\n', 'study: abc-def\n', 'target_groups:\n', '  us:\n', '    filling_goal: ', '- ', ': ', '{', '}', '[', ']', ',', '"', "'", '#', '&a ', '*a ', '<<: ', '!!str ', '\t', '\n', '  ', '${X}', 'null', '~', '0', '-1', '1e9', 'true', 'profiles', 'object: zip_code', 'quota', '---\n', '|\n', '>-\n', '? ');
const tokenText = fc.array(token, { maxLength: 60 }).map((parts) => parts.join(''));

/** A mutation of a line: delete, duplicate, replace, re-indent, or splice in random text. */
const mutation = fc.record({
  line: fc.nat(),
  kind: fc.constantFrom('delete', 'duplicate', 'replace', 'splice', 'indent', 'dedent'),
  text: fc.oneof(fc.string({ maxLength: 40 }), tokenText),
});

function mutate(text: string, m: { line: number; kind: string; text: string }): string {
  const lines = text.split('\n');
  const i = m.line % lines.length;
  switch (m.kind) {
    case 'delete':
      lines.splice(i, 1);
      break;
    case 'duplicate':
      lines.splice(i, 0, lines[i]);
      break;
    case 'replace':
      lines[i] = m.text;
      break;
    case 'indent':
      lines[i] = `  ${lines[i]}`;
      break;
    case 'dedent':
      lines[i] = lines[i].replace(/^ {1,2}/, '');
      break;
    default:
      lines[i] = lines[i].slice(0, m.text.length % (lines[i].length + 1)) + m.text;
  }
  return lines.join('\n');
}

describe('loader under random input', () => {
  it.each([
    ['? <<: ', 'SF1002'],
    ['<<: 1\n', 'SF1002'],
    ['a: &x [1]\nb:\n  <<: *x\n', 'SF1002'],
    ['a: *missing\n', 'SF1002'],
    ['%YAML 9.9\n---\na: 1\n', 'SF1006'],
    ['? [a, b]\n: 1\n', 'SF2002'],
  ])('handles parser edge case %j', async (text, code) => {
    const result = await loadStudyText(text, path.join(examples, 'edge.yaml'), { env: {} });
    expect(result.diagnostics.map((d) => d.code)).toContain(code);
    wellFormed(result.diagnostics);
    expect(migrateStudyText(text)).toEqual({ text, changes: [] });
  });

  it('never throws on random text', async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.string({ maxLength: 200 }), tokenText), async (text) => {
        const result = await loadStudyText(text, path.join(examples, 'random.yaml'), { env: {} });
        wellFormed(result.diagnostics);
        if (result.study) expect(result.diagnostics.some((d) => d.severity === 'error')).toBe(false);
      }),
      { numRuns: 200 },
    );
  });

  it('never throws on mutated examples, and a returned study has no errors', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: seeds.length - 1 }), fc.array(mutation, { minLength: 1, maxLength: 4 }), async (seed, mutations) => {
        const text = mutations.reduce(mutate, seeds[seed].text);
        const result = await loadStudyText(text, seeds[seed].file, { env: {} });
        wellFormed(result.diagnostics);
        expect(result.study === undefined).toBe(result.diagnostics.some((d) => d.severity === 'error'));
        const migrated = migrateStudyText(text);
        expect(migrateStudyText(migrated.text).text).toBe(migrated.text);
      }),
      { numRuns: 200 },
    );
  });

  it('migrateStudyText never throws and is idempotent on random text', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ maxLength: 200 }), tokenText), (text) => {
        const once = migrateStudyText(text);
        expect(migrateStudyText(once.text).text).toBe(once.text);
      }),
      { numRuns: 200 },
    );
  });
});
