// `studyflow doctor` against the real sandbox: what works is said to work; a wrong secret, a wrong base URL
// and the wrong profile's header names are each named as the failing step, with exit 1.
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../sandbox/index';
import { runCli } from './run-cli';

let sandbox: RunningSandbox;
let env: Record<string, string>;
beforeAll(async () => {
  sandbox = await startSandbox({ quiet: true });
  env = {
    STUDYFLOW_API_BASE_URL: sandbox.info.base_url,
    STUDYFLOW_AUTH_URL: sandbox.info.auth_url,
    STUDYFLOW_AUDIENCE: sandbox.info.audience,
    STUDYFLOW_CLIENT_ID: sandbox.info.client_id,
    STUDYFLOW_CLIENT_SECRET: sandbox.info.client_secret,
  };
});
afterAll(() => sandbox.close());

/** A loopback port nothing listens on (bound, then released). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const lines = (text: string) => text.trim().split('\n');

describe('studyflow doctor', () => {
  it('reports every check ok against the sandbox: token, accounts, business unit, one project list (exit 0)', async () => {
    const before = sandbox.requests().filter((r) => r.path.startsWith('/v1/') && r.method !== 'GET').length;
    const result = await runCli(['doctor', '--account', '1001', '--business-unit', '2002'], { env });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(lines(result.stdout).map((l) => l.split(/\s+/).slice(0, 2).join(' '))).toEqual(['ok settings', 'ok token', 'ok accounts', 'ok business_unit', 'ok projects']);
    expect(result.stdout).toContain('reachable: 1001 (Sandbox Research Buyer), 1002 (Sandbox Basic Buyer); checking 1001');
    expect(result.stdout).toContain('account 1001 has business unit(s) 2001, 2002');
    // Read-only: no write reached the API.
    expect(sandbox.requests().filter((r) => r.path.startsWith('/v1/') && r.method !== 'GET').length).toBe(before);
    expect(result.stdout).not.toContain(sandbox.info.client_secret);
  });

  it('names a wrong secret as the failing token step and stops there (exit 1)', async () => {
    const result = await runCli(['doctor', '--json'], { env: { ...env, STUDYFLOW_CLIENT_SECRET: 'not-the-secret' } });
    expect(result.code).toBe(1);
    const report = JSON.parse(result.stdout) as { ok: boolean; checks: Array<{ check: string; ok: boolean; detail: string }> };
    expect(report.ok).toBe(false);
    expect(report.checks.map((c) => [c.check, c.ok])).toEqual([['settings', true], ['token', false]]);
    expect(report.checks[1].detail).toMatch(/401/);
    expect(report.checks[1].detail).toContain('STUDYFLOW_CLIENT_SECRET');
    expect(result.stdout).not.toContain('not-the-secret');
  });

  it('names a base URL where nothing answers as the failing accounts step (exit 1)', async () => {
    const result = await runCli(['doctor'], { env: { ...env, STUDYFLOW_API_BASE_URL: `http://127.0.0.1:${await closedPort()}` } });
    expect(result.code).toBe(1);
    expect(lines(result.stdout).map((l) => l.split(/\s+/).slice(0, 2).join(' '))).toEqual(['ok settings', 'ok token', 'FAIL accounts']);
    expect(result.stdout).toMatch(/ECONNREFUSED|failed without an answer/);
    expect(result.stdout).toContain('STUDYFLOW_API_BASE_URL');
  });

  it('an account the credentials do not reach, and a business unit the account lacks, are named', async () => {
    const other = await runCli(['doctor', '--account', '4242'], { env });
    expect(other.code).toBe(1);
    expect(other.stdout).toMatch(/FAIL\s+accounts\s+the credentials reach account\(s\) 1001, 1002, not 4242/);
    const unit = await runCli(['doctor', '--account', '1002', '--business-unit', '2001'], { env });
    expect(unit.code).toBe(1);
    expect(unit.stdout).toMatch(/FAIL\s+business_unit\s+account 1002 has business unit\(s\) 2101, not 2001/);
    expect(unit.stdout).toMatch(/ok\s+projects/);
  });

  it('the cint profile sends Cint-API-Version, which the sandbox (Svc- names) refuses: the profile is what differs', async () => {
    const result = await runCli(['doctor'], { env: { ...env, STUDYFLOW_API_PROFILE: 'cint' } });
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/ok\s+settings\s+.*version header Cint-API-Version/);
    expect(result.stdout).toMatch(/FAIL\s+accounts\s+.*403/);
    // Naming the header explicitly overrides the profile's.
    const overridden = await runCli(['doctor'], { env: { ...env, STUDYFLOW_API_PROFILE: 'cint', STUDYFLOW_API_VERSION_HEADER: 'Svc-API-Version' } });
    expect(overridden.code).toBe(0);
  });

  it('reports settings problems without calling anything', async () => {
    const result = await runCli(['doctor'], { env: { ...env, STUDYFLOW_API_PROFILE: 'prod', STUDYFLOW_AUTH_URL: '' } });
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/^FAIL\s+settings\s+/);
    expect(result.stdout).toContain('STUDYFLOW_AUTH_URL');
    expect(result.stdout).toContain('STUDYFLOW_API_PROFILE: must be one of sandbox, cint');
    expect(lines(result.stdout)).toHaveLength(1);
  });
});
