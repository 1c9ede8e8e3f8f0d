// Odd files tried as a user would, all in one `studyflow validate` run: each gets a named code at
// file:line:col, none a stack trace, and the valid study among them is still accepted.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir, runCli } from './run-cli';
import { MINIMAL_TARGET_GROUP_FIELDS as GROUP } from '../helpers/study-yaml';

const HEAD = (id: string) => `format: studyflow/v1
study: ${id}
account: "1001"
business_unit: "2001"
project:
  name: ${id}
`;
const withList = (id: string, file: string) => `${HEAD(id)}target_groups:\n  us:\n${GROUP}    exclusions:\n      respondent_ids: { file: ${file} }\n`;

let tmp: { dir: string; remove: () => void };
let studies: string;
beforeAll(() => {
  tmp = makeTempDir('bad-input');
  studies = path.join(tmp.dir, 'studies');
  const put = (name: string, content: string | Buffer) => fs.writeFileSync(path.join(studies, name), content);
  fs.mkdirSync(studies);
  // 1. an ID list that never ends its line (a little over the cap), and the device that never ends
  put('endless.txt', 'x'.repeat(2_000));
  put('endless.yaml', withList('endless-line', 'endless.txt'));
  if (fs.existsSync('/dev/zero')) put('device.yaml', withList('device-list', '/dev/zero'));
  // 2. 100 target groups merging one anchor (valid), and a billion laughs
  const groups = Array.from({ length: 100 }, (_, i) => `  tg${i}:\n    <<: *defaults\n    live_url: https://survey.example.com/s?rid=[%RID%]\n`).join('');
  put('merged.yaml', `${HEAD('merged-groups')}defaults: &defaults\n${GROUP.replace(/^ {4}live_url.*\n/m, '').replace(/^ {4}/gm, '  ')}target_groups:\n${groups}`);
  const levels = 'abcdefghi';
  const laughs = [`a: &a [${Array(9).fill('"lol"').join(',')}]`, ...[...levels].slice(1).map((l, i) => `${l}: &${l} [${Array(9).fill(`*${levels[i]}`).join(',')}]`)];
  put('laughs.yaml', `${HEAD('billion-laughs')}${laughs.join('\n')}\n`);
  // 3. bytes that are not text: Latin-1 in a study, an escaped NUL, a binary ID list
  put('latin1.yaml', Buffer.concat([Buffer.from(HEAD('latin-one').replace('name: latin-one\n', 'name: Caf')), Buffer.from([0xe9, 0x0a])]));
  put('nul.yaml', `${HEAD('nul-value').replace('name: nul-value', 'name: "a\\0b"')}target_groups:\n  us:\n${GROUP}`);
  put('binary.bin', Buffer.concat([Buffer.from('0f1ce179-a917-49ff-9d50-b05fc91f7bd4\n'), Buffer.from([0x52, 0x53, 0x00, 0x32, 0x0a])]));
  put('binary.yaml', withList('binary-list', 'binary.bin'));
  // 4. a path outside the study repository
  put('outside.yaml', withList('outside-list', '../../../../../../etc/hostname'));
  // 5. 20,000 levels of nesting
  put('deep.yaml', `${HEAD('deep-nesting')}x: ${'['.repeat(20_000)}${']'.repeat(20_000)}\n`);
  // 6. issue 26: lone CR line ends (valid), an unclosed quote, a merge of a single value, numbers that are not
  // finite, an allocation minimum above its maximum, blended_type on a regular profile, a BOM-only ID list
  put('old-mac.yaml', `${HEAD('old-mac-line-ends')}target_groups:\n  us:\n${GROUP}`.replace(/\n/g, '\r'));
  put('quote.yaml', `${HEAD('unclosed-quote').replace('name: unclosed-quote', 'name: "unclosed quote')}target_groups:\n  us:\n${GROUP}`);
  put('merge.yaml', `${HEAD('merge-scalar')}greeting: &greeting hello\ntarget_groups:\n  us:\n    <<: *greeting\n${GROUP}`);
  put('infinite.yaml', `${HEAD('infinite-goal')}target_groups:\n  us:\n${GROUP.replace('filling_goal: 100', 'filling_goal: 1e400')}`);
  put('allocation.yaml', `${HEAD('allocation-min-max')}target_groups:\n  us:\n${GROUP}    allocations:\n      open_exchange_allocations: { exchange_min_percentage: 80, exchange_max_percentage: 20 }\n`);
  put('blended.yaml', `${HEAD('blended-regular')}target_groups:\n  us:\n${GROUP}    profiles:\n      - { object: regular, blended_type: interlock, name: gender, targets: [{ conditions: [{ object: selection, question_id: 43, option: "1" }] }] }\n`);
  put('bom.txt', Buffer.from([0xef, 0xbb, 0xbf]));
  put('bom.yaml', withList('bom-list', 'bom.txt'));
});
afterAll(() => tmp?.remove());

describe('studyflow validate on odd files', () => {
  it('reports each with a named code at file:line:col, no stack trace, and accepts the valid study', async () => {
    const { code, stdout, stderr } = await runCli(['validate', studies], { env: {} });
    expect(code).toBe(1);
    const lines = stdout.trim().split('\n');
    // Each line, without the directory and the hint (the last parenthesis) for brevity.
    const shown = (name: string) =>
      lines
        .filter((l) => l.startsWith(`${path.join(studies, name)}:`))
        .map((l) => l.slice(studies.length + 1))
        .map((l) => l.slice(0, l.lastIndexOf(' (')));
    expect(shown('endless.txt')).toEqual(['endless.txt:1:1: error SF6009 line 1 is longer than 1,024 bytes; reading stopped there']);
    if (fs.existsSync('/dev/zero')) {
      expect(shown('device.yaml')).toEqual(['device.yaml:17:31: error SF6011 ID list /dev/zero is outside the study repository ' + studies + '; it is not read']);
    }
    expect(shown('merged.yaml')).toEqual([]);
    expect(shown('laughs.yaml')).toEqual(['laughs.yaml:13:8: error SF1009 alias *f expands the file past 1,000,000 keys and values (it stands for 597,871)']);
    expect(shown('latin1.yaml')).toEqual(['latin1.yaml:6:12: error SF1007 the file is not UTF-8 text: byte 0xe9 on line 6 is not UTF-8']);
    expect(shown('nul.yaml')).toEqual(['nul.yaml:6:9: error SF1007 the value holds the control character U+0000 (NUL)']);
    expect(shown('binary.bin')).toEqual(['binary.bin:2:3: error SF6010 line 2 is not text: it holds the control character U+0000 (NUL); reading stopped there']);
    expect(shown('outside.yaml')).toEqual([`outside.yaml:17:31: error SF6011 ID list ../../../../../../etc/hostname is outside the study repository ${studies}; it is not read`]);
    expect(shown('deep.yaml')).toEqual(['deep.yaml:7:67: error SF1008 this mapping or list is nested 65 levels deep; at most 64 are allowed']);
    expect(shown('old-mac.yaml')).toEqual([]);
    expect(shown('quote.yaml')).toEqual(['quote.yaml:6:9: error SF1002 YAML syntax error: the " quote that opens here is never closed']);
    expect(shown('merge.yaml')).toEqual(['merge.yaml:10:5: error SF1002 `<<` merges mappings into this one, but *greeting names a single value, not a mapping']);
    expect(shown('infinite.yaml')).toEqual(['infinite.yaml:13:19: error SF2006 `target_groups.us.filling_goal` is not a finite number: 1e400 is too large to be held as a number (it reads as infinity)']);
    expect(shown('allocation.yaml')).toEqual(['allocation.yaml:17:61: error SF4017 exchange_min_percentage 80 is above exchange_max_percentage 20']);
    expect(shown('blended.yaml')).toEqual(['blended.yaml:17:28: error SF4119 `blended_type` belongs to a blended profile only; profile "gender" is regular']);
    expect(shown('bom.txt')).toEqual(['bom.txt:1:1: error SF6007 the ID list holds no IDs']);
    expect(stdout + stderr).not.toMatch(/\n\s+at |RangeError|Maximum call stack|Excessive alias|Invalid string length|Merge sources|got null/);
    expect(stderr).toMatch(/2 valid studies: \d+ error\(s\)/);
  });

  it('gives the same codes in GitHub annotations and JSON', async () => {
    const github = await runCli(['validate', '--format', 'github', path.join(studies, 'deep.yaml'), path.join(studies, 'endless.yaml')], { env: {} });
    expect(github.stdout).toContain(`::error file=${path.join(studies, 'deep.yaml')},line=7,col=67,endLine=7,endColumn=68,title=SF1008 nesting too deep::`);
    expect(github.stdout).toContain(`::error file=${path.join(studies, 'endless.txt')},line=1,col=1,endLine=1,endColumn=1,title=SF6009 line too long in an ID list::`);
    const json = await runCli(['validate', '--json', path.join(studies, 'laughs.yaml'), path.join(studies, 'merged.yaml')], { env: {} });
    const report = JSON.parse(json.stdout) as { valid: boolean; studies: { study: string }[]; diagnostics: { code: string; line: number; column: number }[] };
    expect(report.valid).toBe(false);
    expect(report.studies.map((s) => s.study)).toEqual(['merged-groups']);
    expect(report.diagnostics.map((d) => [d.code, d.line, d.column])).toEqual([['SF1009', 13, 8]]);
  });
});
