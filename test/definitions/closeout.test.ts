// The study format's `closeout:` (issue 36): its schema (unknown keys refused with a did-you-mean, located errors,
// defaults), the loader reading its files (located problems, every file in one run), and the desired close-out.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadStudyFile, type Diagnostic } from '../../definitions';
import { toleranceInCompletes } from '../../definitions/closeout-files';
import { desiredCloseoutOf, desiredStudyOf } from '../../plan/desired';
import { MINIMAL_TARGET_GROUP_FIELDS } from '../helpers/study-yaml';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'studyflow-closeout-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const R1 = '0f1ce179-a917-49ff-9d50-b05fc91f7bd4';
const R2 = '75F1404C-65F6-4937-AD2A-588E4F66E07F';
const R3 = '9c23131d-388b-4e03-97b3-cf783e491445';

/** A study directory with `closeout` (YAML lines, indented under `closeout:`) and the given files. */
async function study(name: string, closeout: string, files: Record<string, string> = {}): Promise<string> {
  const root = path.join(dir, name);
  await mkdir(path.join(root, 'closeout'), { recursive: true });
  for (const [file, content] of Object.entries(files)) await writeFile(path.join(root, file), content);
  const text = `format: studyflow/v1
study: closeout-${name}
account: "1001"
business_unit: "2001"
project:
  name: Close-out test
target_groups:
  us:
${MINIMAL_TARGET_GROUP_FIELDS}closeout:
${closeout}`;
  const file = path.join(root, 'study.yaml');
  await writeFile(file, text);
  return file;
}

const at = (ds: Diagnostic[]) => ds.map((d) => `${d.code} ${path.relative(dir, d.file)}:${d.line}:${d.column}`);

describe('closeout: in the study file', () => {
  it('loads with its defaults, paths absolute, and the files checked', async () => {
    const file = await study('ok', `  reversals:\n    - file: closeout/speeders.csv\n      reason: "11"\n    - file: closeout/fraud.csv\n  approved_completes:\n    file: closeout/approved.csv\n    expect_terminated: 120\n    tolerance: 5%\n`, {
      'closeout/speeders.csv': `${R1}\n${R2}\n`,
      'closeout/fraud.csv': `${R3},932\n`,
      'closeout/approved.csv': '3a4b5c6d-7e8f-4901-9c2d-3e4f5a6b7c8e\n',
    });
    const { study: loaded, diagnostics } = await loadStudyFile(file, { env: {} });
    expect(diagnostics).toEqual([]);
    const root = path.dirname(file);
    expect(loaded!.study.closeout).toEqual({
      reversals: [{ file: path.join(root, 'closeout/speeders.csv'), reason: '11' }, { file: path.join(root, 'closeout/fraud.csv') }],
      approved_completes: { file: path.join(root, 'closeout/approved.csv'), expect_terminated: 120, tolerance: '5%' },
      reports: [],
      deadline_warning: 'P3D',
    });
    expect(loaded!.closeout!.reversals!.summary).toMatchObject({ count: 3, byCode: { '11': 2, '932': 1 }, submissions: 1 });
    expect(loaded!.closeout!.approvedCompletes).toMatchObject({ count: 1, file: path.join(root, 'closeout/approved.csv') });
  });

  it('refuses an unknown key with a did-you-mean, located at the key', async () => {
    const file = await study('typo', `  reversal:\n    - file: closeout/speeders.csv\n  deadline_warnings: P3D\n`);
    const { diagnostics } = await loadStudyFile(file, { env: {} });
    expect(at(diagnostics)).toEqual(['SF2002 typo/study.yaml:17:3', 'SF2002 typo/study.yaml:19:3']);
    expect(diagnostics[0].message + (diagnostics[0].hint ?? '')).toContain('reversals');
    expect(diagnostics[1].message + (diagnostics[1].hint ?? '')).toContain('deadline_warning');
  });

  it('locates values of the wrong form: a reason code, a period, a tolerance, a report name', async () => {
    const file = await study('forms', `  reversals:\n    - file: closeout/a.csv\n      reason: 11a\n  approved_completes:\n    file: closeout/b.csv\n    expect_terminated: 10\n    tolerance: 5 percent\n  reports: [completes, invoices]\n  deadline_warning: P1M\n`);
    const { diagnostics } = await loadStudyFile(file, { env: {} });
    expect(diagnostics.map((d) => `${d.code} ${d.path.join('.')} ${d.line}`)).toEqual([
      'SF2005 closeout.reversals.0.reason 19',
      'SF2005 closeout.approved_completes.tolerance 23',
      'SF2004 closeout.reports.1 24',
      'SF2005 closeout.deadline_warning 25',
    ]);
  });

  it('reports the problems of every close-out file in one run, located in each file', async () => {
    const file = await study('bad', `  reversals:\n    - file: closeout/a.csv\n    - file: closeout/b.csv\n      reason: "11"\n    - file: closeout/missing.csv\n  approved_completes:\n    file: closeout/approved.csv\n    expect_terminated: 1\n`, {
      'closeout/a.csv': `rid,code\n${R1},11\n`,
      'closeout/b.csv': `${R1.toUpperCase()},932\n\n${R3}\n`,
      'closeout/approved.csv': 'not-a-rid\n',
    });
    const { study: loaded, diagnostics } = await loadStudyFile(file, { env: {} });
    expect(loaded).toBeUndefined();
    expect(at(diagnostics)).toEqual([
      'SF6002 bad/closeout/a.csv:1:1',
      'SF6003 bad/closeout/approved.csv:1:1',
      'SF6014 bad/closeout/b.csv:1:1',
      'SF6004 bad/closeout/b.csv:2:1',
      'SF6001 bad/study.yaml:21:13',
    ]);
    expect(diagnostics.find((d) => d.code === 'SF6001')!.message).toBe('reversal file closeout/missing.csv: file not found');
  });

  it('refuses a RID that is both reversed and an approved complete', async () => {
    const file = await study('both', `  reversals:\n    - file: closeout/r.csv\n      reason: "11"\n  approved_completes:\n    file: closeout/approved.csv\n    expect_terminated: 0\n`, {
      'closeout/r.csv': `${R3}\n${R1.toUpperCase()}\n`,
      'closeout/approved.csv': `${R1}\n${R2}\n`,
    });
    const { diagnostics } = await loadStudyFile(file, { env: {} });
    expect(at(diagnostics)).toEqual(['SF6017 both/closeout/r.csv:2:1']);
    expect(diagnostics[0].message).toBe(`the RID on line 2 is also an approved complete in ${path.join(path.dirname(file), 'closeout/approved.csv')}`);
  });

  it('does not read a close-out file outside the study repository (SF6011 at its file value)', async () => {
    await writeFile(path.join(dir, 'outside.csv'), `${R1},11\n`);
    const file = await study('outside', `  reversals:\n    - file: ../outside.csv\n`);
    const { diagnostics } = await loadStudyFile(file, { env: {} });
    expect(at(diagnostics)).toEqual(['SF6011 outside/study.yaml:18:13']);
    expect(diagnostics[0].message).toMatch(/^reversal file \.\.\/outside\.csv is outside the study repository/);
    expect((await loadStudyFile(file, { env: {}, allowOutsidePaths: true })).diagnostics).toEqual([]);
  });
});

describe('the desired close-out', () => {
  it('resolves the tolerance to completes (a percentage rounded down) and the deadline warning to milliseconds', async () => {
    expect(toleranceInCompletes('5%', 120)).toBe(6);
    expect(toleranceInCompletes('2.5%', 119)).toBe(2);
    expect(toleranceInCompletes('100%', 7)).toBe(7);
    expect(toleranceInCompletes(3, 120)).toBe(3);
    const desired = desiredCloseoutOf(
      { reports: ['completes'], deadline_warning: 'PT36H', approved_completes: { file: '/x/a.csv', expect_terminated: 120, tolerance: '5%' } },
      { approvedCompletes: { ref: `sha256:${'a'.repeat(64)}`, sha256: 'a'.repeat(64), count: 3, file: 'a.csv' } },
    );
    expect(desired).toEqual({
      reports: ['completes'],
      deadlineWarningMs: 36 * 3_600_000,
      approvedCompletes: { list: { ref: `sha256:${'a'.repeat(64)}`, sha256: 'a'.repeat(64), count: 3, file: 'a.csv' }, expectTerminated: 120, tolerance: 6 },
    });
  });

  it('takes the stored reversals list; a study without closeout keeps its revision', async () => {
    const file = await study('desired', `  reversals:\n    - file: closeout/r.csv\n      reason: "11"\n  reports: [completes]\n`, { 'closeout/r.csv': `${R1}\n` });
    const { study: loaded } = await loadStudyFile(file, { env: {} });
    const s = loaded!.study;
    const reversals = { ref: `sha256:${'b'.repeat(64)}`, sha256: 'b'.repeat(64), count: 1, byCode: { '11': 1 }, files: ['closeout/r.csv'] };
    const desired = desiredStudyOf(s, {}, { closeout: { reversals } });
    expect(desired.closeout).toEqual({ reversals, reports: ['completes'], deadlineWarningMs: 3 * 86_400_000 });
    expect(() => desiredStudyOf(s, {})).toThrow('store them and pass their reference');
    const { closeout: _c, ...without } = s;
    expect(desiredStudyOf(without, {}).closeout).toBeUndefined();
    expect(desiredStudyOf(without, {}).revision).not.toBe(desired.revision);
  });
});
