// ID list paths stay inside the study repository (the git work tree of the study file, else its
// directory), symlinks resolved; a path outside is SF6011 at the reference, and the file is not read.
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadStudyFile, type Diagnostic } from '../../definitions';
import { allowOutsidePathsFromEnv, studyRepositoryOf } from '../../definitions/study-repository';
import { runCli } from '../cli/run-cli';
import { MINIMAL_TARGET_GROUP_FIELDS } from '../helpers/study-yaml';

let dir: string;
beforeAll(async () => {
  dir = await realpath(await mkdtemp(path.join(os.tmpdir(), 'studyflow-repo-')));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

function study(id: string, lists: string[]): string {
  const groups = lists
    .map(
      (file, i) => `  tg${i}:
${MINIMAL_TARGET_GROUP_FIELDS}    exclusions:
      respondent_ids: { file: ${JSON.stringify(file)} }
`,
    )
    .join('');
  return `format: studyflow/v1
study: ${id}
account: "1001"
business_unit: "2001"
project:
  name: ${id}
target_groups:
${groups}`;
}

async function put(file: string, text: string): Promise<string> {
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, text);
  return file;
}

/** Line and column of each `file:` value: the 10th line of each 10-line target group, after the 7 head lines. */
const fileValueAt = (i: number) => `${7 + 10 * (i + 1)}:31`;
const located = (diagnostics: Diagnostic[]) => diagnostics.map((d) => `${path.basename(d.file)} ${d.code} ${d.line}:${d.column}`);

describe('the study repository', () => {
  it('is the nearest git work tree holding the study file, else the study file directory', async () => {
    const repo = path.join(dir, 'repo');
    await mkdir(path.join(repo, 'studies', 'wave1'), { recursive: true });
    execFileSync('git', ['init', '-q', repo]);
    expect(await studyRepositoryOf(path.join(repo, 'studies', 'wave1', 'study.yaml'))).toEqual({ root: repo, git: true });
    const loose = path.join(dir, 'loose', 'sub');
    await mkdir(loose, { recursive: true });
    expect(await studyRepositoryOf(path.join(loose, 'study.yaml'))).toEqual({ root: loose, git: false });
  });

  it('reads the environment opt-out', () => {
    expect(allowOutsidePathsFromEnv({ STUDYFLOW_ALLOW_OUTSIDE_PATHS: '1' })).toBe(true);
    expect(allowOutsidePathsFromEnv({ STUDYFLOW_ALLOW_OUTSIDE_PATHS: 'True' })).toBe(true);
    expect(allowOutsidePathsFromEnv({ STUDYFLOW_ALLOW_OUTSIDE_PATHS: '0' })).toBe(false);
    expect(allowOutsidePathsFromEnv({})).toBe(false);
  });
});

describe('ID list paths outside the study repository', () => {
  it('outside git: refuses a parent path, an absolute path, a missing path and a symlink that points out, at the reference', async () => {
    const home = path.join(dir, 'plain');
    const outside = await put(path.join(dir, 'outside-ids.txt'), '0f1ce179-a917-49ff-9d50-000000000001\n0f1ce179 a917-49ff-9d50-000000000002\n');
    await put(path.join(home, 'inside.txt'), '0f1ce179-a917-49ff-9d50-000000000003\n');
    await symlink(outside, path.join(home, 'link.txt'));
    const file = await put(path.join(home, 'study.yaml'), study('plain-study', ['../outside-ids.txt', outside, '../../nowhere/ids.txt', 'link.txt', 'inside.txt']));
    const { study: loaded, diagnostics } = await loadStudyFile(file, { env: {} });
    expect(loaded).toBeUndefined();
    // Nothing about the lines of the outside file (its line 2 is invalid): it was not read.
    expect(located(diagnostics)).toEqual([0, 1, 2, 3].map((i) => `study.yaml SF6011 ${fileValueAt(i)}`));
    expect(diagnostics[0].message).toBe(`ID list ../outside-ids.txt is outside the study repository ${home}; it is not read`);
    expect(diagnostics[0].hint).toContain("the study file's directory, as it is not in a git work tree");
    expect(diagnostics[0].hint).toContain('--allow-outside-paths');
    expect(diagnostics[3].message).toBe(`ID list link.txt is outside the study repository ${home} (it resolves to ${outside}); it is not read`);
  });

  it('in a git work tree: accepts lists anywhere in the tree, refuses lists beyond it and links out of it', async () => {
    const repo = path.join(dir, 'git-repo');
    await mkdir(repo, { recursive: true });
    execFileSync('git', ['init', '-q', repo]);
    await put(path.join(repo, 'ids', 'past.txt'), '0f1ce179-a917-49ff-9d50-000000000001\n0f1ce179-a917-49ff-9d50-000000000002\n');
    await put(path.join(dir, 'beside-repo.txt'), '0f1ce179-a917-49ff-9d50-000000000009\n');
    await symlink(path.join(repo, 'ids', 'past.txt'), path.join(repo, 'ids', 'link-inside.txt'));
    await symlink('/etc', path.join(repo, 'ids', 'etc'));
    const file = await put(
      path.join(repo, 'studies', 'wave1', 'study.yaml'),
      study('git-study', ['../../ids/past.txt', '../../ids/link-inside.txt', '../../../beside-repo.txt', '../../ids/etc/hostname']),
    );
    const { diagnostics } = await loadStudyFile(file, { env: {} });
    expect(located(diagnostics)).toEqual([2, 3].map((i) => `study.yaml SF6011 ${fileValueAt(i)}`));
    expect(diagnostics[0].hint).toContain('the git work tree that holds the study file');

    const accepted = await loadStudyFile(path.join(repo, 'studies', 'wave1', 'study.yaml'), { env: {}, allowOutsidePaths: true });
    expect(accepted.diagnostics.filter((d) => d.code === 'SF6011')).toEqual([]);
  });

  it('is lifted by allowOutsidePaths: the outside file is read and checked like any other', async () => {
    const home = path.join(dir, 'opt-out');
    const outside = await put(path.join(dir, 'opt-out-ids.txt'), '0f1ce179-a917-49ff-9d50-000000000001\n0f1ce179-a917-49ff-9d50-000000000002\n');
    const file = await put(path.join(home, 'study.yaml'), study('opt-out-study', ['../opt-out-ids.txt']));
    const { study: loaded, diagnostics } = await loadStudyFile(file, { env: {}, allowOutsidePaths: true });
    expect(diagnostics).toEqual([]);
    expect(loaded?.idLists).toEqual([expect.objectContaining({ file: outside, count: 2 })]);
  });

  it('studyflow validate: refused by default, accepted with --allow-outside-paths or STUDYFLOW_ALLOW_OUTSIDE_PATHS=1', async () => {
    const home = path.join(dir, 'cli');
    await put(path.join(dir, 'cli-ids.txt'), '0f1ce179-a917-49ff-9d50-000000000001\n');
    const file = await put(path.join(home, 'study.yaml'), study('cli-study', ['../cli-ids.txt']));
    const refused = await runCli(['validate', file], { env: {} });
    expect(refused.code).toBe(1);
    expect(refused.stdout).toContain(`${file}:${fileValueAt(0)}: error SF6011 ID list ../cli-ids.txt is outside the study repository ${home}; it is not read`);
    expect((await runCli(['validate', '--allow-outside-paths', file], { env: {} })).code).toBe(0);
    expect((await runCli(['validate', file], { env: { STUDYFLOW_ALLOW_OUTSIDE_PATHS: '1' } })).code).toBe(0);
  });
});
