import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../sandbox';
import { makeTempDir, runCli, type CapturedRun } from '../cli/run-cli';

// The CLI with a wrong or malformed client secret (and other bad settings that carry one): it fails
// with a named, one-line error and never prints the secret, whole or in part.

const STUDY = `format: studyflow/v1
study: secret-scan
account: "1001"
business_unit: "2001"
project:
  name: Secret scan
  project_customer_reference_number: PO-SECRET-SCAN
target_groups:
  us:
    locale: en_US
    live_url: https://survey.example.com/s/secret?rid=[%RID%]
    expected_incidence_rate: 0.5
    expected_length_of_interview_minutes: 10
    filling_goal: 100
    project_manager_id: "6f1c2a4e-3001-4c8e-9d2b-000000003001"
    collects_pii: false
`;

/** Fragments of a secret long enough to identify it (whitespace and control characters split it). */
function fragments(secret: string): string[] {
  const parts = secret.split(/[\s\u0000-\u001f"{}:,]+/).filter((p) => p.length >= 6);
  return parts.flatMap((p) => (p.length > 24 ? [p.slice(0, 12), p.slice(-12)] : [p]));
}

function expectNoSecret(run: CapturedRun, secret: string): void {
  const text = run.stdout + run.stderr;
  for (const part of fragments(secret)) expect(text, `output contains part of the secret: ${part.slice(0, 3)}…`).not.toContain(part);
  expect(text).not.toMatch(/^\s{4}at /m);
}

describe('credentials in CLI errors', () => {
  let sandbox: RunningSandbox;
  let dir: string;
  let remove: () => void;
  let file: string;
  let env: Record<string, string>;
  beforeAll(async () => {
    sandbox = await startSandbox({ port: 0, quiet: true });
    ({ dir, remove } = makeTempDir('secrets'));
    file = path.join(dir, 'study.yaml');
    fs.writeFileSync(file, STUDY);
    env = {
      TEMPORAL_ADDRESS: '127.0.0.1:1',
      STUDYFLOW_API_BASE_URL: sandbox.baseUrl,
      STUDYFLOW_AUTH_URL: sandbox.authUrl,
      STUDYFLOW_AUDIENCE: sandbox.info.audience,
      STUDYFLOW_CLIENT_ID: sandbox.info.client_id,
      STUDYFLOW_CLIENT_SECRET: sandbox.info.client_secret,
      STUDYFLOW_BLOB_DIR: path.join(dir, 'blobs'),
      NO_COLOR: '1',
    };
  });
  afterAll(async () => {
    await sandbox?.close();
    remove?.();
  });

  it('the right secret plans (the control: the same run with a wrong secret fails below)', async () => {
    const run = await runCli(['plan', file], { env });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/create project/);
    expectNoSecret(run, sandbox.info.client_secret);
  });

  it('a wrong secret: `plan` fails with 401 unauthorized, one line, and never prints the secret', async () => {
    const secret = 'wrong-secret-4f9c2a7e1d83b6';
    const before = sandbox.requests().length;
    const run = await runCli(['plan', file], { env: { ...env, STUDYFLOW_CLIENT_SECRET: secret } });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^error: .*401 unauthorized/m);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    // The secret really was sent to the token endpoint and refused.
    expect(sandbox.requests().slice(before).map((r) => `${r.path} ${r.status}`)).toContain('/auth/oauth/token 401');
    expectNoSecret(run, secret);
    const json = await runCli(['plan', file, '--json'], { env: { ...env, STUDYFLOW_CLIENT_SECRET: secret } });
    expect(json.code).toBe(1);
    expectNoSecret(json, secret);
  });

  const malformed: { name: string; secret: string }[] = [
    { name: 'a newline inside', secret: 'first-half-7d2c\nsecond-half-91be' },
    { name: 'control characters', secret: '\u0000ctl-secret-5a8e\u0007\u001b[31mred-part-33' },
    { name: 'JSON-breaking quotes', secret: '"}{"client_secret":"quoted-secret-6b1f' },
    { name: 'non-ASCII', secret: 'pässwörd-ünïcode-secret-55' },
    { name: 'surrounding whitespace', secret: '   padded-secret-0c4d9e   ' },
    { name: 'very long', secret: `long-secret-${'x9'.repeat(4000)}-tail-end-77` },
  ];
  for (const { name, secret } of malformed) {
    // Concurrent: each plan waits ~5 s for the unreachable Temporal address before it calls the API.
    it.concurrent(`a malformed secret (${name}): plan and worker fail without printing it`, async () => {
      const planned = await runCli(['plan', file], { env: { ...env, STUDYFLOW_CLIENT_SECRET: secret } });
      expect(planned.code).toBe(1);
      expect(planned.stderr).toMatch(/^error: /m);
      expectNoSecret(planned, secret);
      const worker = await runCli(['worker'], { env: { ...env, STUDYFLOW_CLIENT_SECRET: secret } });
      expect(worker.code).toBe(1);
      expect(worker.stderr).toMatch(/^error: cannot reach a service: .* \(is `studyflow dev` running/m);
      expectNoSecret(worker, secret);
    });
  }

  it('a blank secret is named as missing, with every other bad setting, and nothing is echoed', async () => {
    const run = await runCli(['worker'], {
      env: {
        ...env,
        STUDYFLOW_CLIENT_SECRET: '   ',
        STUDYFLOW_API_BASE_URL: 'http://studyflow:url-password-8841@127.0.0.1:1',
        STUDYFLOW_AUTH_URL: 'https://auth.example.com/?token=query-token-55aa',
        STUDYFLOW_AUDIENCE: '',
      },
    });
    expect(run.code).toBe(1);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    for (const variable of ['STUDYFLOW_CLIENT_SECRET', 'STUDYFLOW_API_BASE_URL', 'STUDYFLOW_AUTH_URL', 'STUDYFLOW_AUDIENCE']) {
      expect(run.stderr).toContain(variable);
    }
    expectNoSecret(run, 'url-password-8841');
    expectNoSecret(run, 'query-token-55aa');
  });
});
