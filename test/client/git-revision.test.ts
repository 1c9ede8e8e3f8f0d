// The commit `studyflow apply` records with a revision: --git-revision, else GITHUB_SHA, else the checkout's HEAD.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { gitRevisionOf } from '../../client/study-runs';

const dirs: string[] = [];
const tempDir = () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'studyflow-git-'));
  dirs.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

describe('gitRevisionOf', () => {
  it('takes --git-revision first, then GITHUB_SHA', async () => {
    expect(await gitRevisionOf('abc123', { GITHUB_SHA: 'f'.repeat(40) }, tempDir())).toBe('abc123');
    expect(await gitRevisionOf(undefined, { GITHUB_SHA: 'f'.repeat(40) }, tempDir())).toBe('f'.repeat(40));
  });

  it("reads the checkout's HEAD, and nothing outside a git checkout", async () => {
    const repo = tempDir();
    const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { cwd: repo, encoding: 'utf8' }).trim();
    git('init', '-q');
    git('commit', '-q', '--allow-empty', '-m', 'first');
    expect(await gitRevisionOf(undefined, {}, repo)).toBe(git('rev-parse', '--short=12', 'HEAD'));
    expect(await gitRevisionOf(undefined, {}, tempDir())).toBeUndefined();
  });
});
