// Idempotency-Key on creating POSTs (DESIGN.md "not shown" table; docs/api-conventions.md › Writes).
import { describe, expect, it } from 'vitest';
import { useTestSandbox } from '../fixtures/sandbox';
import { BASIC_ACCOUNT, P, draftBody, projectManager } from './sandbox-test-client';

const { sb, api } = useTestSandbox({ resetBeforeEach: true });

const key = (k: string) => ({ 'idempotency-key': k });
const projectBody = (name = 'Idem project', account = 1001) => ({ name, project_manager_id: projectManager(account) });

describe('Idempotency', () => {
  it('replays the identical stored response (status and body) for the same key and body, creating once', async () => {
    const first = await api.req('POST', `${P()}/projects`, { body: projectBody(), headers: key('k-1') });
    const second = await api.req('POST', `${P()}/projects`, { body: projectBody(), headers: key('k-1') });
    expect(first.status).toBe(202);
    expect(second.status).toBe(202);
    expect(second.body).toEqual(first.body);
    expect(second.headers.get('location')).toBe(first.headers.get('location'));
    expect((await api.state()).counts.projects).toBe(1);
  });

  it('answers 422 idempotency_key_reused for the same key with another body or on another endpoint', async () => {
    await api.req('POST', `${P()}/projects`, { body: projectBody('Project A'), headers: key('k-2') });
    const other = await api.req('POST', `${P()}/projects`, { body: projectBody('Project B'), headers: key('k-2') });
    expect(other.status).toBe(422);
    expect(other.body.object).toBe('idempotency_key_reused');
    const elsewhere = await api.req('POST', `${P()}/exclusion-groups`, { body: { name: 'A' }, headers: key('k-2') });
    expect(elsewhere.status).toBe(422);
    expect((await api.state()).counts.projects).toBe(1);
  });

  it('scopes keys per account', async () => {
    await api.req('POST', `${P()}/projects`, { body: projectBody(), headers: key('shared') });
    const res = await api.req('POST', `${P(BASIC_ACCOUNT)}/projects`, { body: projectBody('Other project', BASIC_ACCOUNT), headers: key('shared') });
    expect(res.status).toBe(202);
    expect((await api.state()).counts.projects).toBe(2);
  });

  it('stores nothing for a rejected request, so the key can be retried with a corrected body', async () => {
    const bad = await api.req('POST', `${P()}/projects`, { body: { name: 'X' }, headers: key('k-3') });
    expect(bad.status).toBe(400);
    expect((await api.state()).counts.idempotency_keys).toBe(0);
    expect((await api.req('POST', `${P()}/projects`, { body: projectBody(), headers: key('k-3') })).status).toBe(202);
  });

  it('covers target group creation, launch and upload jobs', async () => {
    const project = await api.createProject();
    const tgs = `${P()}/projects/${project.id}/target-groups`;
    const a = await api.req('POST', tgs, { body: draftBody({ live_url: 'https://s.example/x' }), headers: key('tg') });
    const b = await api.req('POST', tgs, { body: draftBody({ live_url: 'https://s.example/x' }), headers: key('tg') });
    expect(b.body.id).toBe(a.body.id);
    const tgPath = `${tgs}/${a.body.id}`;
    const ids = '0e8b5c1a-1234-4abc-8def-000000000001\n0e8b5c1a-1234-4abc-8def-000000000002\n';
    const up1 = await api.upload(`${tgPath}/exclusions/jobs/upload-respondents-by-file`, ids, 'RSID', { headers: key('up') });
    const up2 = await api.upload(`${tgPath}/exclusions/jobs/upload-respondents-by-file`, ids, 'RSID', { headers: key('up') });
    expect(up2.status).toBe(201);
    expect(up2.body.job_id).toBe(up1.body.job_id);
    const up3 = await api.upload(`${tgPath}/exclusions/jobs/upload-respondents-by-file`, ids, 'ACCESS_RESPONDENT_GUID', { headers: key('up') });
    expect(up3.status).toBe(422);
    const l1 = await api.req('POST', `${tgPath}/fielding-run-jobs/launch-from-draft`, { body: { end_fielding_at: '2099-01-01T00:00:00Z' }, headers: key('launch') });
    await api.waitForJob(l1.headers.get('location')!);
    const l2 = await api.req('POST', `${tgPath}/fielding-run-jobs/launch-from-draft`, { body: { end_fielding_at: '2099-01-01T00:00:00Z' }, headers: key('launch') });
    expect(l2.status).toBe(201);
    expect(l2.body).toEqual(l1.body);
  });

  it('returns the committed response when a retry follows a dropped response', async () => {
    sb.setFaults({ drop_after_commit_rate: 1 });
    await expect(api.req('POST', `${P()}/projects`, { body: projectBody(), headers: key('drop') })).rejects.toThrow();
    sb.setFaults({});
    const retry = await api.req('POST', `${P()}/projects`, { body: projectBody(), headers: key('drop') });
    expect(retry.status).toBe(202);
    const state = await api.state();
    expect(state.counts.projects).toBe(1);
    expect(Object.keys(state.records.projects)).toEqual([retry.body.id]);
  });

  it('rejects a malformed Idempotency-Key with 400', async () => {
    const res = await api.req('POST', `${P()}/projects`, { body: projectBody(), headers: key('x'.repeat(256)) });
    expect(res.status).toBe(400);
  });
});
