// docs/study-format.md keeps step with the schema and the diagnostic catalogue: every property of
// every definition is named in that definition's section, and every code is documented.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { DIAGNOSTIC_CODES, sharedJsonSchema, studyJsonSchema } from '../../definitions';
import { propertyPathsByDefinition } from './schema-paths';

const doc = readFileSync(fileURLToPath(new URL('../../docs/study-format.md', import.meta.url)), 'utf8');

/** The text of the section whose heading names `(\`definition\`)`, up to the next heading of its level or above. */
function sectionOf(definition: string): string | undefined {
  const lines = doc.split('\n');
  const start = lines.findIndex((l) => /^#{2,4} /.test(l) && l.includes(`(\`${definition}\`)`));
  if (start === -1) return undefined;
  const level = lines[start].indexOf(' ');
  const end = lines.findIndex((l, i) => i > start && /^#{1,4} /.test(l) && l.indexOf(' ') <= level);
  return lines.slice(start, end === -1 ? undefined : end).join('\n');
}

const definitions = new Map([...propertyPathsByDefinition(studyJsonSchema()), ...propertyPathsByDefinition(sharedJsonSchema())]);

describe('docs/study-format.md', () => {
  it.each([...definitions.keys()])('documents every property of %s in its own section', (definition) => {
    const section = sectionOf(definition);
    expect(section, `no section headed "(\`${definition}\`)"`).toBeDefined();
    const missing = definitions.get(definition)!.filter((p) => !section!.includes(`\`${p}\``));
    expect(missing).toEqual([]);
  });

  it('documents every diagnostic code with its severity, and no code that does not exist', () => {
    for (const [code, info] of Object.entries(DIAGNOSTIC_CODES)) {
      expect(doc).toMatch(new RegExp(`^\\| \`${code}\` \\| ${info.severity} \\|`, 'm'));
    }
    const mentioned = new Set(doc.match(/SF\d{4}/g));
    expect([...mentioned].filter((code) => !(code in DIAGNOSTIC_CODES))).toEqual([]);
  });

  it('names the defaults the model applies', () => {
    for (const text of ['`manual`', '`1s`', '`30s`', '`30m`', '`5`', '`[Complete]`', '`P90D`', '`2025-12-18`', 'Y = 365, M = 30, W = 7']) {
      expect(doc).toContain(text);
    }
  });
});
