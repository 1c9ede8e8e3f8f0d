// Sandbox admin surface (DESIGN.md) and the state file.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { useTestSandbox } from '../fixtures/sandbox';
import { startSandbox } from '../../sandbox/index';
import { P, SandboxTestClient, V_MID } from './sandbox-test-client';

const { sb, api } = useTestSandbox({ resetBeforeEach: true });

describe('Sandbox admin surface', () => {
  it('GET /_sandbox/info returns exactly base_url, auth_url, audience, client_id, client_secret, dialect, version_header and accounts', async () => {
    const res = await api.admin('GET', '/info');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      base_url: sb.baseUrl,
      auth_url: `${sb.baseUrl}/auth`,
      audience: 'https://demand-api.sandbox.local',
      client_id: 'studyflow-sandbox',
      client_secret: 'sandbox-secret',
      dialect: 'spec',
      version_header: 'Svc-API-Version',
      accounts: [
        { account_id: 1001, business_unit_ids: [2001, 2002], project_manager_ids: ['6f1c2a4e-3001-4c8e-9d2b-000000003001', '6f1c2a4e-3002-4c8e-9d2b-000000003002'], features: ['respondent_status_exclusions'] },
        { account_id: 1002, business_unit_ids: [2101], project_manager_ids: ['6f1c2a4e-3101-4c8e-9d2b-000000003101'], features: [] },
      ],
    });
    expect(sb.authUrl).toBe(res.body.auth_url);
  });

  it('logs method, path, route template, status, api version, time and idempotency key presence; never tokens or bodies', async () => {
    const token = await api.token();
    await api.req('POST', `${P()}/projects`, { body: { name: 'SECRET-NAME-123', project_manager_id: '6f1c2a4e-3001-4c8e-9d2b-000000003001' }, headers: { 'idempotency-key': 'key-abc' }, version: V_MID });
    const log = (await api.admin('GET', '/requests')).body.data;
    const entry = log.find((e: { method: string; path: string }) => e.method === 'POST' && e.path === `${P()}/projects`);
    expect(entry).toMatchObject({ route: '/v1/demand/accounts/{account_id}/projects', status: 202, api_version: V_MID, idempotency_key_present: true });
    expect(Date.parse(entry.time)).not.toBeNaN();
    const text = JSON.stringify(log);
    expect(text).not.toContain(token);
    expect(text).not.toContain('SECRET-NAME-123');
    expect(text).not.toContain('key-abc');
    expect(text).not.toContain('sandbox-secret');
  });

  it('GET /_sandbox/state returns counts and records of every resource, without the signing key', async () => {
    const { project, tg } = await api.projectWithTargetGroup();
    const state = await api.state();
    expect(state.counts).toMatchObject({ projects: 1, target_groups: 1, exclusion_groups: 0, jobs: 0, fielding_runs: 0 });
    expect(state.records.projects[project.id].name).toBe(project.name);
    expect(state.records.target_groups[tg.id].status).toBe('draft');
    expect(state.records).not.toHaveProperty('token_signing_key');
  });

  it('POST /_sandbox/reset empties the state and the request log; tokens stay valid', async () => {
    await api.projectWithTargetGroup();
    expect((await api.admin('POST', '/reset')).status).toBe(204);
    const state = await api.state();
    expect(state.counts.projects).toBe(0);
    expect((await api.admin('GET', '/requests')).body.data.filter((e: { path: string }) => e.path.startsWith('/v1'))).toEqual([]);
    expect((await api.req('GET', `${P()}/projects`)).status).toBe(200);
  });
});

describe('Sandbox state file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sandbox-state-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('persists every committed change atomically and continues after a restart (tokens and Processing jobs too)', async () => {
    const stateFile = join(dir, 'state.json');
    const first = await startSandbox({ quiet: true, stateFile, faults: { job_duration_ms: 400 } });
    const client = new SandboxTestClient(first);
    const token = await client.token();
    const { project, tg, tgPath } = await client.projectWithTargetGroup();
    const upload = await client.upload(`${tgPath}/exclusions/jobs/upload-respondents-by-file`, '0e8b5c1a-1234-4abc-8def-000000000001\n0e8b5c1a-1234-4abc-8def-000000000002\n', 'RSID');
    expect(upload.status).toBe(201);
    const onDisk = JSON.parse(readFileSync(stateFile, 'utf8'));
    expect(Object.keys(onDisk.projects)).toEqual([project.id]);
    expect(onDisk.jobs[upload.body.job_id].status).toBe('Processing');
    await first.close();
    expect(readdirSync(dir)).toEqual(['state.json']);

    const second = await startSandbox({ quiet: true, stateFile });
    try {
      const again = new SandboxTestClient(second);
      const res = await again.req('GET', `${P()}/projects/${project.id}/target-groups/${tg.id}`, { token });
      expect(res.status).toBe(200);
      expect({ id: tg.id, ...res.body }).toEqual(tg);
      const job = await again.waitForJob(`${tgPath}/exclusions/jobs/upload-respondents-by-file/${upload.body.job_id}`, { token });
      expect(job.body.status).toBe('Success');
      expect((await again.req('GET', `${tgPath}/exclusions/rsid/paginated`, { token })).body.data).toEqual(['0e8b5c1a-1234-4abc-8def-000000000001', '0e8b5c1a-1234-4abc-8def-000000000002']);
      expect(JSON.parse(readFileSync(stateFile, 'utf8')).jobs[upload.body.job_id].status).toBe('Success');
    } finally {
      await second.close();
    }
  });

  it('refuses a state file that is not a sandbox state', async () => {
    const bad = join(dir, 'bad.json');
    const { writeFileSync } = await import('node:fs');
    writeFileSync(bad, '{"hello": 1}');
    await expect(startSandbox({ quiet: true, stateFile: bad })).rejects.toThrow(/not a studyflow sandbox state/);
  });
});
