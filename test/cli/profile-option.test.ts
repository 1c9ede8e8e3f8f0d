// `validate --profile` and `migrate --profile` (and STUDYFLOW_API_PROFILE in their stead), in process.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, runCli } from './run-cli';

const EXAMPLE = path.join(REPO_ROOT, 'examples/multi-country-tracker/study.yaml');
const text = readFileSync(EXAMPLE, 'utf8');
const eventLine = text.split('\n').findIndex((l) => l.includes('com.svc.session.updated')) + 1;

describe('--profile', () => {
  it('validate --profile cint names the event at file:line:col and exits 1; sandbox (the default) passes', async () => {
    const cint = await runCli(['validate', '--profile', 'cint', EXAMPLE]);
    expect(cint.code).toBe(1);
    expect(cint.stdout).toMatch(new RegExp(`study\\.yaml:${eventLine}:\\d+: error SF4304 webhook event \`com\\.svc\\.session\\.updated\``));
    expect(cint.stdout).toContain('SF4305');
    const fromEnv = await runCli(['validate', EXAMPLE], { env: { STUDYFLOW_API_PROFILE: 'cint' } });
    expect(fromEnv.code).toBe(1);
    expect((await runCli(['validate', EXAMPLE])).code).toBe(0);
    expect((await runCli(['validate', '--profile', 'cint', EXAMPLE], { env: { STUDYFLOW_API_PROFILE: 'sandbox' } })).code).toBe(1);
  });

  it('an unknown profile is a usage error naming the choices', async () => {
    const option = await runCli(['validate', '--profile', 'prod', EXAMPLE]);
    expect(option.code).toBe(2);
    expect(option.stderr).toMatch(/sandbox, cint/);
    const env = await runCli(['validate', EXAMPLE], { env: { STUDYFLOW_API_PROFILE: 'prod' } });
    expect(env.code).toBe(2);
    expect(env.stderr).toContain('STUDYFLOW_API_PROFILE must be one of sandbox, cint');
  });

  it('migrate --profile cint renames the event in place; --check reports it first', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'studyflow-profile-'));
    const file = path.join(dir, 'study.yaml');
    writeFileSync(file, 'study: profile-test\nwebhooks:\n  - url: https://h.example.com/a\n    events: [target-group-updated, com.svc.session.updated] # both\n');
    const check = await runCli(['migrate', '--profile', 'cint', '--check', file]);
    expect(check.code).toBe(1);
    expect(check.stdout).toContain(`${file}:4: com.svc.session.updated -> session-updated`);
    expect((await runCli(['migrate', '--profile', 'cint', file])).code).toBe(0);
    expect(readFileSync(file, 'utf8')).toContain('events: [target-group-updated, session-updated] # both');
    expect((await runCli(['migrate', '--profile', 'cint', '--check', file])).code).toBe(0);
  });
});
