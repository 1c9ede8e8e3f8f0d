// Hostile or broken YAML gets one located diagnostic, never an exception: bytes that are not text,
// nesting past the depth limit, and aliases that expand too far (merge keys within the limits work).
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadStudies, loadStudyFile, loadStudyText, type Diagnostic } from '../../definitions';
import { MAX_ALIAS_COUNT, MAX_EXPANDED_VALUES, MAX_NESTING_DEPTH } from '../../definitions/yaml-source';
import { MINIMAL_TARGET_GROUP_FIELDS as GROUP } from '../helpers/study-yaml';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'studyflow-yaml-limits-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const HEAD = `format: studyflow/v1
study: limits-study
account: "1001"
business_unit: "2001"
project:
  name: limits
`;


const located = (diagnostics: Diagnostic[]) => diagnostics.map((d) => `${d.code} ${d.line}:${d.column}`);

/** 1-based line and column of the n-th (1-based) occurrence of `needle` in `text`. */
function positionOf(text: string, needle: string, nth = 1): string {
  let at = -1;
  for (let i = 0; i < nth; i++) at = text.indexOf(needle, at + 1);
  expect(at).toBeGreaterThanOrEqual(0);
  const before = text.slice(0, at).split('\n');
  return `${before.length}:${before[before.length - 1].length + 1}`;
}

describe('merge keys and aliases', () => {
  it('accepts 100 target groups that each merge `<<: *defaults` (the yaml default of 100 aliases refused them at 1:1)', async () => {
    const groups = Array.from({ length: 100 }, (_, i) => `  tg${i}:\n    <<: *defaults\n    live_url: https://survey.example.com/s?rid=[%RID%]\n    filling_goal: ${100 + i}\n`).join('');
    const text = `${HEAD}defaults: &defaults\n  locale: en_US\n  expected_incidence_rate: 0.5\n  expected_length_of_interview_minutes: 10\n  filling_goal: 100\n  project_manager_id: "6f1c2a4e-3001-4c8e-9d2b-000000003001"\n  collects_pii: false\ntarget_groups:\n${groups}`;
    const { study, diagnostics } = await loadStudyText(text, path.join(dir, 'merge.yaml'), { env: {} });
    expect(diagnostics).toEqual([]);
    expect(Object.keys(study?.study.target_groups ?? {})).toHaveLength(100);
    expect(study?.study.target_groups.tg99).toMatchObject({ locale: 'en_US', filling_goal: 199, project_manager_id: '6f1c2a4e-3001-4c8e-9d2b-000000003001' });
  });

  it('refuses a billion laughs at the alias that takes the file past the limit, without expanding it', async () => {
    const levels = 'abcdefghi';
    const lines = [`a: &a [${Array(9).fill('"lol"').join(',')}]`];
    for (let i = 1; i < levels.length; i++) lines.push(`${levels[i]}: &${levels[i]} [${Array(9).fill(`*${levels[i - 1]}`).join(',')}]`);
    const text = `${HEAD}${lines.join('\n')}\n`;
    const { diagnostics } = await loadStudyText(text, path.join(dir, 'lol.yaml'), { env: {} });
    // a = 10 values, b = 91, … f = 597,871: the first *f (in g) passes a million.
    expect(located(diagnostics)).toEqual([`SF1009 ${positionOf(text, '*f')}`]);
    expect(diagnostics[0].message).toBe(`alias *f expands the file past ${MAX_EXPANDED_VALUES.toLocaleString('en-US')} keys and values (it stands for 597,871)`);
  });

  it("names the alias at which the yaml package's alias guard gives up", async () => {
    const text = `${HEAD}b: &b x\nbs:\n${'  - *b\n'.repeat(1000)}a: &a {k: *b}\nas:\n${'  - *a\n'.repeat(100)}`;
    const { diagnostics } = await loadStudyText(text, path.join(dir, 'count.yaml'), { env: {} });
    // *b is used 1,000 times before *a is first used; the 99th use of *a brings 100 × 1,001 past 100,000.
    expect(MAX_ALIAS_COUNT).toBe(100_000);
    expect(located(diagnostics)).toEqual([`SF1009 ${positionOf(text, '*a', 99)}`]);
    expect(diagnostics[0].message).toContain('alias *a passes the alias limit');
  });

  it('refuses an alias that names the node holding it, and one that names no anchor, at the alias', async () => {
    const cyclic = `${HEAD}target_groups: &groups\n  us: *groups\n`;
    const a = await loadStudyText(cyclic, path.join(dir, 'cyclic.yaml'), { env: {} });
    expect(located(a.diagnostics)).toEqual(['SF1009 8:7']);
    expect(a.diagnostics[0].message).toBe('alias *groups names a node that holds it: it would expand without end');
    const dangling = `${HEAD}target_groups:\n  us:\n    <<: *nowhere\n${GROUP}`;
    const b = await loadStudyText(dangling, path.join(dir, 'dangling.yaml'), { env: {} });
    expect(located(b.diagnostics)).toEqual(['SF1002 9:9']);
    expect(b.diagnostics[0].message).toBe('alias *nowhere names no anchor: set `&nowhere` on a node before it');
  });

  it('counts the nesting an alias adds', async () => {
    const deep = (n: number) => `${'['.repeat(n)}1${']'.repeat(n)}`;
    // The anchor sits at level 2 with 40 levels (41 deep in all); used at level 30 it would reach 70.
    const text = `${HEAD}x: &x ${deep(40)}\ny: ${'['.repeat(29)}*x${']'.repeat(29)}\n`;
    const { diagnostics } = await loadStudyText(text, path.join(dir, 'alias-deep.yaml'), { env: {} });
    expect(located(diagnostics)).toEqual([`SF1009 ${positionOf(text, '*x')}`]);
    expect(diagnostics[0].message).toBe(`alias *x nests the file deeper than ${MAX_NESTING_DEPTH} levels of mappings and lists`);
  });
});

describe('nesting depth', () => {
  it('reports 20,000 levels (flow and block) at the first mapping or list past 64, instead of a call stack overflow', async () => {
    const flow = `${HEAD}x: ${'['.repeat(20_000)}${']'.repeat(20_000)}\n`;
    const a = await loadStudyText(flow, path.join(dir, 'deep-flow.yaml'), { env: {} });
    // The root mapping is level 1, so the 64th `[` is level 65.
    expect(located(a.diagnostics)).toEqual([`SF1008 7:${4 + 63}`]);
    expect(a.diagnostics[0].message).toBe('this mapping or list is nested 65 levels deep; at most 64 are allowed');

    const block = `${HEAD}x:\n${Array.from({ length: 2_000 }, (_, i) => `${' '.repeat(i + 1)}k${i}:`).join('\n')}\n`;
    const b = await loadStudyText(block, path.join(dir, 'deep-block.yaml'), { env: {} });
    expect(located(b.diagnostics)).toEqual([`SF1008 ${positionOf(block, 'k63:')}`]);
  });

  it('accepts 64 levels', async () => {
    const text = `${HEAD}x: ${'['.repeat(63)}${']'.repeat(63)}\n`;
    const { diagnostics } = await loadStudyText(text, path.join(dir, 'deep-ok.yaml'), { env: {} });
    expect(diagnostics.map((d) => d.code)).not.toContain('SF1008');
    expect(diagnostics.map((d) => d.code)).toContain('SF2002');
  });
});

describe('bytes that are not text', () => {
  it('refuses bytes that are not UTF-8 in a study file and in shared.yaml, at their line and column', async () => {
    const sub = path.join(dir, 'latin1');
    await mkdir(sub, { recursive: true });
    const study = Buffer.concat([Buffer.from(`${HEAD.replace('name: limits', 'name: Caf')}`.slice(0, -1)), Buffer.from([0xe9]), Buffer.from(` study\ntarget_groups:\n  us:\n${GROUP}`)]);
    await writeFile(path.join(sub, 'study.yaml'), study);
    const { diagnostics } = await loadStudyFile(path.join(sub, 'study.yaml'), { env: {} });
    expect(located(diagnostics)).toEqual(['SF1007 6:12']);
    expect(diagnostics[0].message).toBe('the file is not UTF-8 text: byte 0xe9 on line 6 is not UTF-8');

    await writeFile(path.join(sub, 'study.yaml'), `${HEAD}target_groups:\n  us:\n${GROUP}`);
    await writeFile(path.join(sub, 'shared.yaml'), Buffer.concat([Buffer.from('format: studyflow/v1\nexclusion_groups:\n  past:\n    name: "'), Buffer.from([0xc3, 0x28]), Buffer.from('"\n')]));
    const shared = await loadStudies([sub], { env: {} });
    expect(shared.diagnostics.map((d) => `${path.basename(d.file)} ${d.code} ${d.line}:${d.column}`)).toEqual(['shared.yaml SF1007 4:12']);
  });

  it('refuses a NUL or another control character, written as is or as an escape, and lets tabs and line breaks be', async () => {
    const file = path.join(dir, 'control.yaml');
    const cases: [string, string, string][] = [
      ['raw NUL', `${HEAD.replace('name: limits', 'name: a\u0000b')}`, 'SF1007 6:10'],
      ['escaped NUL', `${HEAD.replace('name: limits', 'name: "a\\0b"')}`, 'SF1007 6:9'],
      ['escaped ESC', `${HEAD.replace('name: limits', 'name: "\\x1b[31mred"')}`, 'SF1007 6:9'],
    ];
    for (const [what, head, expected] of cases) {
      const { diagnostics } = await loadStudyText(`${head}target_groups:\n  us:\n${GROUP}`, file, { env: {} });
      expect(located(diagnostics), what).toEqual([expected]);
      expect(diagnostics[0].message, what).toMatch(/control character U\+00(00 \(NUL\)|1B \(ESC\))/);
    }
    const fine = await loadStudyText(`${HEAD.replace('name: limits', 'name: "tab\\there"')}target_groups:\n  us:\n    name: |\n      two\n      lines\n${GROUP}`, file, { env: {} });
    expect(fine.diagnostics).toEqual([]);
  });
});

describe('one bad file does not hide the others', () => {
  it('reports every file of a directory: a deep one, an alias bomb, a binary one and an ordinary error', async () => {
    const sub = path.join(dir, 'mixed');
    await mkdir(sub, { recursive: true });
    await writeFile(path.join(sub, 'a-deep.yaml'), `${HEAD}x: ${'['.repeat(20_000)}${']'.repeat(20_000)}\n`);
    await writeFile(path.join(sub, 'b-cyclic.yaml'), `${HEAD.replace('limits-study', 'cyclic-study')}target_groups: &g\n  us: *g\n`);
    await writeFile(path.join(sub, 'c-binary.yaml'), Buffer.concat([Buffer.from(HEAD.replace('limits-study', 'binary-study')), Buffer.from([0xff, 0xfe, 0x0a])]));
    await writeFile(path.join(sub, 'd-valid.yaml'), `${HEAD.replace('limits-study', 'valid-study')}target_groups:\n  us:\n${GROUP}`);
    await writeFile(path.join(sub, 'e-error.yaml'), `${HEAD.replace('limits-study', 'error-study')}target_groups:\n  us:\n${GROUP.replace('filling_goal: 100', 'filling_goal: 0')}`);
    const { studies, diagnostics } = await loadStudies([sub], { env: {} });
    expect(diagnostics.map((d) => `${path.basename(d.file)} ${d.code}`)).toEqual(['a-deep.yaml SF1008', 'b-cyclic.yaml SF1009', 'c-binary.yaml SF1007', 'e-error.yaml SF2006']);
    expect(studies.map((s) => s.study.study)).toEqual(['valid-study']);
  });
});
