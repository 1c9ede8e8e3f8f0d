// The dev stack's connection profile reaches the CLI of its directory (as its payload key does), a CLI with another
// STUDYFLOW_API_PROFILE is refused by name, and `doctor` passes against a sandbox in the cint dialect under the cint
// profile (and names the header when the profiles differ).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiConfigError } from '../../api/http/api-config';
import { startSandbox, type RunningSandbox } from '../../sandbox/index';
import { devApiProfile, withDevDefaults, writeDevApiProfile } from '../../api/http/api-environment';
import { parseApiProfile } from '../../cli/commands/sandbox';
import { runCli } from './run-cli';

describe('the dev stack\'s profile in .studyflow/api-profile', () => {
  let dir: string;
  let file: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'studyflow-dev-profile-'));
    file = path.join(dir, 'api-profile');
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('is written by the dev stack, read by a CLI of the directory, and removed when the stack stops', () => {
    expect(devApiProfile(file)).toBeUndefined();
    expect(withDevDefaults({}, file).STUDYFLOW_API_PROFILE).toBeUndefined();
    const forget = writeDevApiProfile(dir, 'cint');
    expect(devApiProfile(file)).toBe('cint');
    // No profile set: the dev stack's is used, with its URLs.
    expect(withDevDefaults({}, file)).toMatchObject({ STUDYFLOW_API_PROFILE: 'cint', STUDYFLOW_API_BASE_URL: 'http://127.0.0.1:4010' });
    // The same profile set: fine.
    expect(withDevDefaults({ STUDYFLOW_API_PROFILE: 'cint' }, file).STUDYFLOW_API_PROFILE).toBe('cint');
    forget();
    expect(devApiProfile(file)).toBeUndefined();
  });

  it('refuses another STUDYFLOW_API_PROFILE by name, saying how to match; a configured API is not the dev stack', () => {
    const forget = writeDevApiProfile(dir, 'cint');
    let error: unknown;
    try {
      withDevDefaults({ STUDYFLOW_API_PROFILE: 'sandbox' }, file);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ApiConfigError);
    expect((error as ApiConfigError).issues).toEqual([{ setting: 'STUDYFLOW_API_PROFILE', message: expect.stringContaining('speaks the cint profile') }]);
    expect((error as ApiConfigError).message).toContain('--profile cint');
    // With STUDYFLOW_API_BASE_URL the settings are the user's own: the dev stack's note does not apply.
    expect(withDevDefaults({ STUDYFLOW_API_BASE_URL: 'https://api.example.com', STUDYFLOW_API_PROFILE: 'sandbox' }, file).STUDYFLOW_API_PROFILE).toBe('sandbox');
    forget();
  });

  it('--profile takes sandbox or cint; anything else is a named error', () => {
    expect(parseApiProfile('cint')).toBe('cint');
    expect(parseApiProfile(undefined)).toBe('sandbox');
    expect(() => parseApiProfile('real')).toThrow(/--profile must be one of sandbox, cint \(got "real"/);
  });
});

describe('studyflow doctor against a sandbox in the cint dialect', () => {
  let sandbox: RunningSandbox;
  let env: Record<string, string>;
  beforeAll(async () => {
    sandbox = await startSandbox({ quiet: true, dialect: 'cint' });
    env = {
      STUDYFLOW_API_BASE_URL: sandbox.info.base_url,
      STUDYFLOW_AUTH_URL: sandbox.info.auth_url,
      STUDYFLOW_AUDIENCE: sandbox.info.audience,
      STUDYFLOW_CLIENT_ID: sandbox.info.client_id,
      STUDYFLOW_CLIENT_SECRET: sandbox.info.client_secret,
    };
  });
  afterAll(() => sandbox.close());

  it('passes under the cint profile (Cint-API-Version), and fails naming the step under the sandbox profile', async () => {
    const ok = await runCli(['doctor', '--account', '1001', '--business-unit', '2001'], { env: { ...env, STUDYFLOW_API_PROFILE: 'cint' } });
    expect(ok.stderr).toBe('');
    expect(ok.code).toBe(0);
    expect(ok.stdout).toMatch(/ok\s+settings\s+.*version header Cint-API-Version/);
    const wrong = await runCli(['doctor', '--account', '1001'], { env: { ...env, STUDYFLOW_API_PROFILE: 'sandbox' } });
    expect(wrong.code).toBe(1);
    expect(wrong.stdout).toMatch(/Svc-API-Version/);
  });
});
