// No decision in workflows/ parses a rendered string (issue 35): eslint.config.js's TEXT_DECISION_SYNTAX refuses
// regexes and text parsing in workflow code, and every file of workflows/ passes it (a use that renders text and
// is read by nothing is allowed on its line, with its reason).
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Linter } from 'eslint';
import tseslint from 'typescript-eslint';
import { beforeAll, describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
let linter: Linter;
let config: Linter.Config[];

beforeAll(async () => {
  const configUrl = pathToFileURL(path.join(ROOT, 'eslint.config.js')).href;
  const module = (await import(configUrl)) as { TEXT_DECISION_SYNTAX: unknown[]; default: Linter.Config[] };
  // The block as eslint.config.js has it: the rule and the files it covers.
  const block = module.default.find((c) => {
    const rule = c.rules?.['no-restricted-syntax'];
    return Array.isArray(rule) && rule.length > 1 && rule.slice(1).every((entry) => module.TEXT_DECISION_SYNTAX.includes(entry));
  });
  expect(block?.files).toEqual(['workflows/**/*.ts']);
  linter = new Linter({ configType: 'flat' });
  config = [{ files: ['**/*.ts'], languageOptions: { parser: tseslint.parser as Linter.Parser } }, { files: block!.files, rules: block!.rules }];
});

/** What the rule says about `code` as the file `file` (repository path). */
const problems = (file: string, code: string) => linter.verify(code, config, { filename: path.join(ROOT, file) }).map((m) => `${m.line}: ${m.message}`);

function workflowFiles(dir = path.join(ROOT, 'workflows')): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? workflowFiles(path.join(dir, e.name)) : e.name.endsWith('.ts') ? [path.join(dir, e.name)] : []));
}

describe('no decision in workflows/ reads a rendered string', () => {
  it('refuses a regex, a RegExp and text taken apart with split, match or search', () => {
    const file = 'workflows/target-group/probe.ts';
    // The line checkLive stripped before the judgement was data.
    expect(problems(file, "export const f = (line: string) => line.replace(/; (held: .*|waits for approval)$/, '');")).toEqual([
      '1: No regex in workflows/: decide on the typed data the plan gives, never by matching text.',
    ]);
    expect(problems(file, "export const f = (seen: string) => seen.split('|')[0];")).toHaveLength(1);
    expect(problems(file, "export const f = (text: string) => text.match('held');")).toHaveLength(1);
    expect(problems(file, "export const f = (text: string) => text.search('held');")).toHaveLength(1);
    expect(problems(file, "export const f = (text: string) => new RegExp(text).test('x');")).toHaveLength(1);
  });

  it('allows filling a placeholder the plan defined, and leaves other folders alone', () => {
    expect(problems('workflows/target-group/probe.ts', "const ATTEMPT = '{attempt}'; export const key = (k: string, n: number) => k.replace(ATTEMPT, String(n));")).toEqual([]);
    expect(problems('plan/probe.ts', "export const f = (line: string) => line.split('|');")).toEqual([]);
  });

  it('holds for every file of workflows/', () => {
    const found = workflowFiles().flatMap((file) => problems(path.relative(ROOT, file), fs.readFileSync(file, 'utf8')).map((p) => `${path.relative(ROOT, file)}:${p}`));
    expect(found).toEqual([]);
  });
});
