// Bad input tried as a user would (issue 26): each gets the code docs/study-format.md gives it, at the line and
// column where the problem is written, with a message that says what it is; or, where YAML 1.2 allows it, is
// accepted with correct positions for what comes later. test/fixtures/invalid pins the codes and lines of the
// same cases; these pin columns, messages and the cases a fixture file cannot hold (line ends, byte order marks).
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkIdListSource, loadStudyFile, loadStudyText, migrateStudyText, type Diagnostic } from '../../definitions';
import { MINIMAL_TARGET_GROUP_FIELDS as GROUP } from '../helpers/study-yaml';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'studyflow-bad-input-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const HEAD = `format: studyflow/v1
study: bad-input
account: "1001"
business_unit: "2001"
project:
  name: bad input
`;
const STUDY = `${HEAD}target_groups:\n  us:\n${GROUP}`;

const located = (diagnostics: Diagnostic[]) => diagnostics.map((d) => `${d.code} ${d.line}:${d.column}`);
const load = (text: string, name = 'study.yaml') => loadStudyText(text, path.join(dir, name), { env: {} });

/** 1-based line and column of the first occurrence of `needle` in LF text. */
function positionOf(text: string, needle: string): string {
  const at = text.indexOf(needle);
  expect(at).toBeGreaterThanOrEqual(0);
  const before = text.slice(0, at).split('\n');
  return `${before.length}:${before[before.length - 1].length + 1}`;
}

describe('line ends', () => {
  // A study with an error on line 6 (a project name too short), a warning at a target group's key on line 8 (no
  // live_url) and one at the end (a webhook URL that is not https).
  const withProblems = `${HEAD.replace('name: bad input', 'name: abc')}target_groups:\n  us:\n${GROUP.replace(/^ {4}live_url.*\n/m, '')}webhooks:\n  - url: http://hooks.example.com/studyflow\n    events: [target-group-updated]\n`;
  const expected = [`SF2007 ${positionOf(withProblems, 'abc')}`, `SF4003 ${positionOf(withProblems, 'us:')}`, `SF4301 ${positionOf(withProblems, 'http://')}`];

  it('accepts a study whose lines end in a lone CR, as YAML 1.2 does (was: "Nested mappings…" at 1:1)', async () => {
    const { study, diagnostics } = await load(STUDY.replace(/\n/g, '\r'));
    expect(diagnostics).toEqual([]);
    expect(study?.study.target_groups.us).toMatchObject({ locale: 'en_US', filling_goal: 100, collects_pii: false });
  });

  it('puts later diagnostics at the same line and column whatever the line ends', async () => {
    for (const [what, text] of [
      ['LF', withProblems],
      ['CR', withProblems.replace(/\n/g, '\r')],
      ['CRLF', withProblems.replace(/\n/g, '\r\n')],
      ['mixed', withProblems.split('\n').map((line, i) => line + ['\n', '\r', '\r\n'][i % 3]).join('').slice(0, -1)],
    ]) {
      const { diagnostics } = await load(text);
      expect(located(diagnostics), what).toEqual(expected);
    }
  });

  it('reads a block scalar across lone CRs as lines of text', async () => {
    const text = STUDY.replace('  us:\n', '  us:\n    name: |\n      first line\n      second line\n').replace(/\n/g, '\r');
    const { study, diagnostics } = await load(text);
    expect(diagnostics).toEqual([]);
    expect(study?.study.target_groups.us.name).toBe('first line\nsecond line\n');
  });

  it('locates bytes that are not UTF-8 on the right line of a CR-only file', async () => {
    const file = path.join(dir, 'latin1-cr.yaml');
    await writeFile(file, Buffer.concat([Buffer.from(`${HEAD}target_groups:\r  us:\r    name: Caf`.replace(/\n/g, '\r')), Buffer.from([0xe9, 0x0d])]));
    const { diagnostics } = await loadStudyFile(file, { env: {} });
    expect(located(diagnostics)).toEqual(['SF1007 9:14']);
    expect(diagnostics[0].message).toBe('the file is not UTF-8 text: byte 0xe9 on line 9 is not UTF-8');
  });

  it('migrates a CR-only file and keeps its line ends', () => {
    const text = `${HEAD}target_groups:\n  us:\n${GROUP}    pricing_model: ratecard\n`.replace(/\n/g, '\r');
    const { text: out, changes } = migrateStudyText(text);
    expect(changes).toEqual([{ line: 16, from: 'ratecard', to: 'rate_card' }]);
    expect(out).toBe(text.replace('ratecard', 'rate_card'));
    expect(out).not.toContain('\n');
  });
});

describe('YAML errors where they are written', () => {
  it('reports an unclosed quote where it opens, not where the parser gives up', async () => {
    const text = STUDY.replace('name: bad input', 'name: "bad input');
    const { diagnostics } = await load(text);
    expect(located(diagnostics)).toEqual([`SF1002 ${positionOf(text, '"bad input')}`]);
    expect(diagnostics[0].message).toBe('YAML syntax error: the " quote that opens here is never closed');
    const single = `${HEAD.replace('study: bad-input', "study: 'bad-input")}target_groups:\n  us:\n${GROUP}`;
    const b = await load(single);
    expect(located(b.diagnostics)).toEqual(['SF1002 2:8']);
    expect(b.diagnostics[0].message).toBe("YAML syntax error: the ' quote that opens here is never closed (the value runs on to line 16)");
    expect(b.diagnostics[0].hint).toBe("end the value with ', or remove the opening '");
  });

  it('reports `<<: *x` of a single value at the merge key, with what the alias names', async () => {
    const text = `${HEAD}greeting: &greeting hello\ntarget_groups:\n  us:\n    <<: *greeting\n${GROUP}`;
    const { diagnostics } = await load(text);
    expect(located(diagnostics)).toEqual([`SF1002 ${positionOf(text, '<<')}`]);
    expect(diagnostics[0].message).toBe('`<<` merges mappings into this one, but *greeting names a single value, not a mapping');
  });

  it('reports a merge of a list that holds something other than a mapping, and accepts lists of mappings', async () => {
    const bad = `${HEAD}a: &a { locale: en_US }\nb: &b [1]\ntarget_groups:\n  us:\n    <<: [*a, *b]\n${GROUP}`;
    const { diagnostics } = await load(bad);
    expect(located(diagnostics)).toEqual([`SF1002 ${positionOf(bad, '<<')}`]);
    expect(diagnostics[0].message).toBe('`<<` merges mappings into this one, but it is given a list whose item 2 (*b) is a list, not a mapping');
    const good = `${HEAD}a: &a { locale: en_US }\nb: &b { collects_pii: false }\nx-anchors: [*a, *b]\ntarget_groups:\n  us:\n    <<: [*a, *b]\n${GROUP}`;
    const ok = await load(good);
    // Only the unknown top-level fields that hold the anchors: the merge itself loads.
    expect(ok.diagnostics.map((d) => d.code)).toEqual(['SF2002', 'SF2002', 'SF2002']);
  });
});

describe('numbers that are not finite', () => {
  it('says what .inf, .nan and 1e400 are instead of "got null"', async () => {
    const text = STUDY.replace('expected_incidence_rate: 0.5', 'expected_incidence_rate: .inf')
      .replace('expected_length_of_interview_minutes: 10', 'expected_length_of_interview_minutes: .nan')
      .replace('filling_goal: 100', 'filling_goal: 1e400')
      .replace('account: "1001"', 'account: -.inf');
    const { diagnostics } = await load(text);
    expect(diagnostics.map((d) => [d.code, `${d.line}:${d.column}`, d.message])).toEqual([
      ['SF2006', positionOf(text, '-.inf'), '`account` is not a finite number: -.inf is minus infinity'],
      ['SF2006', positionOf(text, '.inf\n    expected_length'), '`target_groups.us.expected_incidence_rate` is not a finite number: .inf is infinity'],
      ['SF2006', positionOf(text, '.nan'), '`target_groups.us.expected_length_of_interview_minutes` is not a finite number: .nan is not a number'],
      ['SF2006', positionOf(text, '1e400'), '`target_groups.us.filling_goal` is not a finite number: 1e400 is too large to be held as a number (it reads as infinity)'],
    ]);
    expect(diagnostics.map((d) => d.message).join('\n')).not.toMatch(/null|9007199254740991/);
  });

  it('keeps a large but finite number an ordinary range error', async () => {
    const { diagnostics } = await load(STUDY.replace('filling_goal: 100', 'filling_goal: 1e300'));
    expect(diagnostics.map((d) => [d.code, d.message])).toEqual([['SF2006', '`target_groups.us.filling_goal` must be <= 100000; got 1e+300']]);
  });
});

describe('codes as docs/study-format.md gives them', () => {
  it('zip_code is SF3002, an old value (with ratecard), and its zip_codes field SF3001', async () => {
    const text = `${STUDY}    profiles:\n      - object: regular\n        name: zip\n        targets:\n          - conditions:\n              - object: zip_code\n                question_id: 45\n                zip_codes: ["10001"]\n`;
    const { diagnostics } = await load(text);
    expect(diagnostics.map((d) => [d.code, `${d.line}:${d.column}`])).toEqual([
      ['SF3002', positionOf(text, 'zip_code\n')],
      ['SF3001', positionOf(text, 'zip_codes')],
    ]);
    expect(diagnostics[0].hint).toContain('studyflow migrate');
  });

  async function* once(bytes: Buffer) {
    yield bytes;
  }
  const ids = (content: number[] | string) => checkIdListSource(once(typeof content === 'string' ? Buffer.from(content) : Buffer.from(content)), 'respondent_ids', 'ids.txt');

  it('an ID list that holds nothing but a BOM is empty (SF6007), as is a file with no bytes', async () => {
    for (const content of [[0xef, 0xbb, 0xbf], []]) {
      const { diagnostics, count } = await ids(content);
      expect(count).toBe(0);
      expect(diagnostics.map((d) => [d.code, d.line, d.message])).toEqual([['SF6007', 1, 'the ID list holds no IDs']]);
    }
  });

  it('a BOM before a blank line, or before IDs, is still read as before', async () => {
    const blank = await ids([0xef, 0xbb, 0xbf, 0x0a]);
    expect(blank.diagnostics.map((d) => [d.code, d.line])).toEqual([['SF6004', 1]]);
    const listed = await ids('\uFEFF0f1ce179-a917-49ff-9d50-b05fc91f7bd4\n');
    expect(listed.diagnostics).toEqual([]);
    expect(listed.count).toBe(1);
  });
});

describe('rules the API holds, checked before any call', () => {
  it('refuses an open exchange minimum above its maximum at the minimum, with both values', async () => {
    const text = `${STUDY}    allocations:\n      open_exchange_allocations: { exchange_min_percentage: 80, exchange_max_percentage: 20 }\n`;
    const { study, diagnostics } = await load(text);
    expect(study).toBeUndefined();
    expect(located(diagnostics)).toEqual([`SF4017 ${positionOf(text, '80')}`]);
    expect(diagnostics[0].message).toBe('exchange_min_percentage 80 is above exchange_max_percentage 20');
  });

  it('accepts a minimum equal to its maximum, and a minimum against the default maximum of 100', async () => {
    const text = `${STUDY}    allocations:\n      open_exchange_allocations:\n        exchange_min_percentage: 100\n        groups:\n          - { group_name: g, min_percentage: 30, max_percentage: 30, suppliers: ["1"] }\n`;
    const { study, diagnostics } = await load(text);
    expect(diagnostics).toEqual([]);
    expect(study?.study.target_groups.us.allocations.open_exchange_allocations).toMatchObject({ exchange_min_percentage: 100, exchange_max_percentage: 100 });
  });

  it('refuses a group minimum above its maximum at the group, naming it; from defaults once, where it is written', async () => {
    const text = `${HEAD}defaults:\n  allocations:\n    open_exchange_allocations:\n      groups:\n        - { group_name: panel a, min_percentage: 60, max_percentage: 10, suppliers: ["1"] }\ntarget_groups:\n  us:\n${GROUP}  de:\n${GROUP.replace('en_US', 'de_DE')}`;
    const { diagnostics } = await load(text);
    expect(located(diagnostics)).toEqual([`SF4017 ${positionOf(text, '60')}`]);
    expect(diagnostics[0].path).toEqual(['defaults', 'allocations', 'open_exchange_allocations', 'groups', 0, 'min_percentage']);
    expect(diagnostics[0].message).toBe('group "panel a": min_percentage 60 is above max_percentage 10');
  });

  it('refuses blended_type on a regular profile at the key, and keeps it on a blended one', async () => {
    const profile = (object: string) =>
      `    profiles:\n      - object: ${object}\n        blended_type: control\n        name: gender\n        targets:\n          - conditions: [{ object: selection, question_id: 43, option: "1" }]\n`;
    const text = `${STUDY}${profile('regular')}`;
    const { diagnostics } = await load(text);
    expect(located(diagnostics)).toEqual([`SF4119 ${positionOf(text, 'blended_type')}`]);
    expect(diagnostics[0].message).toBe('`blended_type` belongs to a blended profile only; profile "gender" is regular');
    const blended = await load(`${STUDY}${profile('blended')}`);
    expect(blended.diagnostics).toEqual([]);
    expect(blended.study?.study.target_groups.us.profiles[0]).toMatchObject({ object: 'blended', blended_type: 'control' });
  });
});
