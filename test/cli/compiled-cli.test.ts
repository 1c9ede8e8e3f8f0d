// The compiled CLI (dist/, `npm run build`; `npm test` builds it first) says what the sources say. Its structure
// check runs validators that the build precompiled with ajv's standalone code, while the sources compile them
// at run time: every invalid fixture must get the same diagnostics from both.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, runCli } from './run-cli';

const COMPILED = path.join(REPO_ROOT, 'dist', 'cli', 'studyflow.js');
const FIXTURES = path.join(REPO_ROOT, 'test', 'fixtures', 'invalid');

function compiled(args: string[]) {
  return spawnSync(process.execPath, [path.join(REPO_ROOT, 'bin', 'studyflow.js'), ...args], { cwd: REPO_ROOT, encoding: 'utf8', env: { PATH: process.env.PATH, NO_COLOR: '1' } });
}

describe('the compiled CLI', () => {
  it('is built (npm test runs `npm run build` first)', () => {
    expect(fs.existsSync(COMPILED), 'dist/ is missing: run `npm run build`').toBe(true);
  });

  it('carries the structure validators precompiled, not the empty stand-in of the sources', () => {
    const chunks = fs.readdirSync(path.join(REPO_ROOT, 'dist', 'cli', 'chunks')).filter((f) => f.endsWith('.js'));
    const withValidators = chunks.filter((f) => /PRECOMPILED_VALIDATORS = \{ study, shared \}/.test(fs.readFileSync(path.join(REPO_ROOT, 'dist', 'cli', 'chunks', f), 'utf8')));
    expect(withValidators).toHaveLength(1);
  });

  it('reports exactly what the sources report for every invalid fixture and every example', async () => {
    const paths = [FIXTURES, path.join(REPO_ROOT, 'examples')];
    const fromSources = await runCli(['validate', '--json', ...paths], { env: { NO_COLOR: '1' } });
    const fromBuild = compiled(['validate', '--json', ...paths]);
    expect(fromBuild.status).toBe(fromSources.code);
    const built = JSON.parse(fromBuild.stdout) as { diagnostics: unknown[]; errors: number };
    const sources = JSON.parse(fromSources.stdout) as { diagnostics: unknown[]; errors: number };
    expect(sources.errors).toBeGreaterThan(50);
    expect(built).toEqual(sources);
  });

  it('runs the study schema it ships', () => {
    const result = compiled(['schema']);
    expect(result.status).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual(JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'schema', 'study.schema.json'), 'utf8')));
  });
});
