// Spec sections "Errors" and "Limits" as they apply to every endpoint: the error body, body parsing,
// caps, unknown routes, and "a rejected request never changes state".
import { describe, expect, it } from 'vitest';
import { useTestSandbox } from '../fixtures/sandbox';
import { P, V_MID, draftBody } from './sandbox-test-client';

const { api } = useTestSandbox({ resetBeforeEach: true });

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('Errors › body shape', () => {
  it('answers {id: uuid, object, detail, invalid_params} with snake_case object', async () => {
    const res = await api.req('POST', `${P()}/projects`, { body: { name: 1 } });
    expect(res.status).toBe(400);
    expect(res.body.id).toMatch(UUID);
    expect(res.body.object).toMatch(/^[a-z]+(_[a-z]+)*$/);
    expect(typeof res.body.detail).toBe('string');
    expect(res.body.invalid_params.every((p: { name: unknown; reason: unknown }) => typeof p.name === 'string' && typeof p.reason === 'string')).toBe(true);
    expect(res.text).not.toMatch(/at .*\.ts:\d+/);
  });

  it('answers 400 bad_request_error for malformed JSON and for a JSON body that is not an object', async () => {
    for (const raw of ['{"name": ', 'null', '[1,2]', '"text"']) {
      const res = await api.req('POST', `${P()}/projects`, { raw, contentType: 'application/json' });
      expect(res.status).toBe(400);
      expect(res.body.object).toBe('bad_request_error');
    }
  });

  it('answers 400 for an empty body where one is required and 415 for a non-JSON content type', async () => {
    expect((await api.req('POST', `${P()}/projects`, { raw: '', contentType: 'application/json' })).status).toBe(400);
    expect((await api.req('POST', `${P()}/projects`, { raw: '{}', contentType: 'text/plain' })).status).toBe(415);
  });

  it('answers 413 content_too_large_error for a JSON body above 1 MiB', async () => {
    const res = await api.req('POST', `${P()}/projects`, { body: { name: 'x'.repeat(1_100_000), business_unit_id: 2001 } });
    expect(res.status).toBe(413);
    expect(res.body.object).toBe('content_too_large_error');
  });

  it('answers 404 for unknown paths and 405 (with Allow) for unsupported methods', async () => {
    expect((await api.req('GET', '/v1/nothing-here')).status).toBe(404);
    expect((await api.req('GET', '/')).status).toBe(404);
    const res = await api.req('DELETE', `${P()}/projects`);
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toContain('GET');
  });
});

describe('Errors › a rejected request never changes state', () => {
  it('leaves /_sandbox/state identical after every kind of rejected write', async () => {
    const { project, tg, tgPath } = await api.projectWithTargetGroup({ live_url: 'https://s.example/a' });
    const group = (await api.req('POST', `${P()}/exclusion-groups`, { body: { name: 'G' } })).body;
    const rejected: Array<() => Promise<{ status: number }>> = [
      () => api.req('PUT', `${P()}/projects/${project.id}`, { body: { name: 'N', business_unit_id: 2101 } }),
      () => api.req('PUT', `${P()}/projects/${project.id}`, { body: { name: 'N', business_unit_id: 2001, extra: 1 } }),
      () => api.req('POST', `${P()}/projects/${project.id}/target-groups`, { body: draftBody({ filling_goal: -1 }) }),
      () => api.req('PUT', tgPath, { body: draftBody({ project_manager_id: '6f1c2a4e-3101-4c8e-9d2b-000000003101' }) }),
      () => api.req('PUT', tgPath, { body: draftBody({ respondent_activity_exclusions: [{ type: 'project', id: project.id }, { type: 'project', id: 'nope' }] }) }),
      () => api.req('PUT', `${tgPath}/respondent-activity-exclusions`, { body: { respondent_activity_exclusions: [{ type: 'target-group', id: tg.id, duration: 'P999D' }] } }),
      () => api.req('POST', `${tgPath}/fielding-run-jobs/launch-from-draft`, { body: { end_fielding_at: '1999-01-01T00:00:00Z' } }),
      () => api.upload(`${tgPath}/exclusions/jobs/upload-respondents-by-file`, 'a\n', 'BAD'),
      () => api.req('POST', `${P()}/exclusion-groups/${group.id}/target-groups/add`, { body: { data: [tg.id, 'tg_missing'] } }),
      () => api.req('PUT', `${P()}/exclusion-groups/${group.id}`, { body: { name: '' } }),
      () => api.req('POST', `${tgPath}/exclusions/rid`, { version: V_MID, body: { data: ['ok', 'not ok'] } }),
      () => api.req('PUT', `${P()}/projects/${project.id}`, { version: V_MID, body: { name: 'Old', business_unit_id: 2001 } }),
    ];
    for (const attempt of rejected) {
      const before = await api.state();
      const res = await attempt();
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(res.status).toBeLessThan(500);
      expect(await api.state()).toEqual(before);
    }
  });
});
