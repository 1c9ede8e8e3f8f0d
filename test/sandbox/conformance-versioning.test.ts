// Spec section "Versioning": version header, rename table, removed endpoints, forward-only rule.
import { describe, expect, it } from 'vitest';
import { useTestSandbox } from '../fixtures/sandbox';
import { P, V_MID, V_NEW, V_OLD, draftBody, paramNames } from './sandbox-test-client';

const { api } = useTestSandbox({ resetBeforeEach: true });

describe('Versioning › version header', () => {
  it('answers 403 required_header_missing without Svc-API-Version', async () => {
    const res = await api.req('GET', `${P()}/projects`, { version: null });
    expect(res.status).toBe(403);
    expect(res.body.object).toBe('required_header_missing');
  });

  it('answers 400 unsupported_api_version for an unknown version', async () => {
    for (const version of ['2025-01-01', 'latest', '2025-12-18x']) {
      const res = await api.req('GET', `${P()}/projects`, { version });
      expect(res.status).toBe(400);
      expect(res.body.object).toBe('unsupported_api_version');
    }
  });

  it.each([V_OLD, V_MID, V_NEW])('accepts version %s', async (version) => {
    expect((await api.req('GET', `${P()}/projects`, { version })).status).toBe(200);
  });
});

describe('Versioning › renames in 2025-12-18 › project', () => {
  const PM = '6f1c2a4e-3001-4c8e-9d2b-000000003001';

  it('spells the server-assigned id human-readable-id and keeps purchase_order_number before 2025-12-18', async () => {
    const created = await api.req('POST', `${P()}/projects`, {
      version: V_OLD,
      headers: { 'idempotency-key': 'old' },
      body: { name: 'Old project', project_manager_id: PM, purchase_order_number: 'PO-9' },
    });
    expect(created.status).toBe(202);
    const res = await api.req('GET', `${P()}/projects/${created.body.id}`, { version: V_OLD });
    expect(res.body['human-readable-id']).toMatch(/^[0-9A-Z]{6}$/);
    expect(res.body.human_readable_id).toBeUndefined();
    expect(res.body.purchase_order_number).toBe('PO-9');
  });

  it('uses human_readable_id and drops purchase_order_number from list, get, update and overview in 2025-12-18', async () => {
    const project = await api.createProject({}, { version: V_MID });
    const hrid = project['human-readable-id'];
    const base = `${P()}/projects/${project.id}`;
    const list = (await api.req('GET', `${P()}/projects`)).body.projects[0];
    const read = await api.req('GET', base);
    const get = read.body;
    const update = (await api.req('PUT', base, {
      headers: { 'if-match': read.headers.get('etag')!, 'idempotency-key': 'u' },
      body: { name: 'New name', project_manager_id: PM, project_customer_reference_number: 'PO-1' },
    })).body;
    const overview = (await api.req('GET', `${base}/overview`)).body;
    for (const body of [list, get, update, overview]) {
      expect(body.human_readable_id).toBe(hrid);
      expect(body).not.toHaveProperty('human-readable-id');
      expect(body).not.toHaveProperty('purchase_order_number');
    }
    const old = (await api.req('GET', base, { version: V_OLD })).body;
    expect(old['human-readable-id']).toBe(hrid);
    expect(old).toHaveProperty('purchase_order_number');
  });

  it('answers 400 for purchase_order_number in 2025-12-18 (renamed), in any version for a human-readable id (the server assigns it)', async () => {
    const a = await api.req('POST', `${P()}/projects`, { headers: { 'idempotency-key': 'a' }, body: { name: 'Project X', project_manager_id: PM, purchase_order_number: 'PO' } });
    expect(a.status).toBe(400);
    expect(paramNames(a)).toEqual(['purchase_order_number']);
    for (const version of [V_OLD, V_MID, V_NEW]) {
      const b = await api.req('POST', `${P()}/projects`, { version, headers: { 'idempotency-key': `b-${version}` }, body: { name: 'Project X', project_manager_id: PM, 'human-readable-id': 'x' } });
      expect(b.status).toBe(400);
      expect(paramNames(b)).toEqual(['human-readable-id']);
    }
  });
});

describe('Versioning › renames in 2025-12-18 › target group', () => {
  it('spells the pricing value ratecard before 2025-12-18 and rate_card from 2025-12-18 (get of a draft, overview once launched)', async () => {
    const project = await api.createProject();
    const tg = await api.createTargetGroup(project.id, { pricing_model: 'ratecard', type: 'ratecard', live_url: 'https://survey.example/s' }, { version: V_OLD });
    const base = `${P()}/projects/${project.id}/target-groups/${tg.id}`;
    expect(tg.pricing_model).toBe('ratecard');
    const spelled = async (path: string) => {
      const newer = (await api.req('GET', path)).body;
      expect([newer.pricing_model, newer.type]).toEqual(['rate_card', 'rate_card']);
      const older = (await api.req('GET', path, { version: V_MID })).body;
      expect([older.pricing_model, older.type]).toEqual(['ratecard', 'ratecard']);
    };
    await spelled(base);
    const launch = await api.req('POST', `${base}/fielding-run-jobs/launch-from-draft`, { version: V_MID, body: { end_fielding_at: '2099-01-01T00:00:00Z' } });
    expect(launch.status).toBe(201);
    await api.waitForJob(launch.headers.get('location')!, { version: V_MID });
    await spelled(`${base}/overview`);
  });

  it('takes no pricing_model or type on a 2025-12-18 draft (the reference\'s request has neither), and refuses rate_card in older versions', async () => {
    const project = await api.createProject();
    const path = `${P()}/projects/${project.id}/target-groups`;
    for (const value of ['ratecard', 'rate_card']) {
      const a = await api.req('POST', path, { body: draftBody({ pricing_model: value, type: value }) });
      expect(a.status).toBe(400);
      expect(a.body.invalid_params).toEqual([
        { name: 'pricing_model', reason: 'is not a field of the draft request (the business unit sets the pricing model)' },
        { name: 'type', reason: 'is not a field of the draft request' },
      ]);
    }
    // What the target group reads back is the business unit's pricing model, in the version's spelling.
    const made = await api.req('POST', path, { body: draftBody() });
    expect((await api.req('GET', `${path}/${made.body.id}`)).body.pricing_model).toBe('rate_card');
    const b = await api.req('POST', path, { version: V_OLD, body: draftBody({ type: 'rate_card' }) });
    expect(b.status).toBe(400);
    expect(paramNames(b)).toEqual(['type']);
  });

  it('uses client_cpi before 2025-12-18 and client_cost_per_interview_note from 2025-12-18', async () => {
    const project = await api.createProject();
    const tg = await api.createTargetGroup(project.id, { client_cpi: 'about 2 USD' }, { version: V_MID });
    expect(tg.client_cpi).toBe('about 2 USD');
    const base = `${P()}/projects/${project.id}/target-groups/${tg.id}`;
    const now = (await api.req('GET', base)).body;
    expect(now.client_cost_per_interview_note).toBe('about 2 USD');
    expect(now).not.toHaveProperty('client_cpi');
    const res = await api.req('POST', `${P()}/projects/${project.id}/target-groups`, { body: draftBody({ client_cpi: 'x' }) });
    expect(res.status).toBe(400);
    expect(res.body.invalid_params).toEqual([{ name: 'client_cpi', reason: 'renamed to client_cost_per_interview_note in 2025-12-18' }]);
  });

  it('omits name from the target group list in 2025-12-18 only (get keeps it)', async () => {
    const project = await api.createProject();
    const tg = await api.createTargetGroup(project.id, { name: 'Named' });
    const path = `${P()}/projects/${project.id}/target-groups`;
    expect((await api.req('GET', path)).body.target_groups[0]).not.toHaveProperty('name');
    expect((await api.req('GET', path, { version: V_MID })).body.target_groups[0].name).toBe('Named');
    expect((await api.req('GET', `${path}/${tg.id}`)).body.name).toBe('Named');
  });
});

describe('Versioning › removed and version-specific endpoints', () => {
  it.each(['cid', 'rid'])('legacy %s exclusion endpoints (GET and POST) work before 2025-12-18 and are 404 in 2025-12-18', async (list) => {
    const { tgPath } = await api.projectWithTargetGroup({}, { version: V_MID });
    for (const version of [V_OLD, V_MID]) {
      expect((await api.req('POST', `${tgPath}/exclusions/${list}`, { version, body: { data: ['r1', 'r2'] } })).status).toBe(200);
      const got = await api.req('GET', `${tgPath}/exclusions/${list}`, { version });
      expect(got.status).toBe(200);
      expect(got.body.data).toEqual(['r1', 'r2']);
    }
    expect((await api.req('GET', `${tgPath}/exclusions/${list}`, { version: V_NEW })).status).toBe(404);
    expect((await api.req('POST', `${tgPath}/exclusions/${list}`, { version: V_NEW, body: { data: ['r3'] } })).status).toBe(404);
  });

  it('GET P/reports/download works before 2025-12-18 and is 404 in 2025-12-18', async () => {
    await api.projectWithTargetGroup({ name: 'Report me' });
    const old = await api.req('GET', `${P()}/reports/download`, { version: V_OLD });
    expect(old.status).toBe(200);
    expect(old.headers.get('content-type')).toContain('text/csv');
    expect(old.text).toContain('Report me');
    expect((await api.req('GET', `${P()}/reports/download`, { version: V_NEW })).status).toBe(404);
  });

  it.each([V_OLD, V_MID, V_NEW])('keeps the ID-based exclusion endpoints in %s', async (version) => {
    const { tgPath } = await api.projectWithTargetGroup({}, { version });
    const up = await api.upload(`${tgPath}/exclusions/jobs/upload-respondents-by-file`, '0e8b5c1a-1234-4abc-8def-000000000001\n', 'RSID', { version });
    expect(up.status).toBe(201);
    expect((await api.waitForJob(`${tgPath}/exclusions/jobs/upload-respondents-by-file/${up.body.job_id}`, { version })).body.status).toBe('Success');
    expect((await api.req('GET', `${tgPath}/exclusions/rsid/paginated`, { version })).status).toBe(200);
    expect((await api.req('GET', `${tgPath}/exclusions/access-respondent-guid/paginated`, { version })).status).toBe(200);
    expect((await api.req('POST', `${tgPath}/exclusions/jobs/remove-all-respondents?entity_type=RSID`, { version })).status).toBe(201);
  });
});

describe('Versioning › forward-only policy from 2025-12-18', () => {
  it('refuses an older-version update of a project written with 2025-12-18, without changing it', async () => {
    const project = await api.createProject({ name: 'Pinned' });
    const before = await api.state();
    const res = await api.req('PUT', `${P()}/projects/${project.id}`, { version: V_MID, body: { name: 'Old write', business_unit_id: 2001 } });
    expect(res.status).toBe(400);
    expect(res.body.object).toBe('version_downgrade_not_allowed');
    expect(await api.state()).toEqual(before);
  });

  it('lets a resource written with an older version move to 2025-12-18, then not back', async () => {
    const project = await api.createProject({}, { version: V_OLD });
    const tg = await api.createTargetGroup(project.id, {}, { version: V_OLD });
    const path = `${P()}/projects/${project.id}/target-groups/${tg.id}`;
    expect((await api.req('PUT', path, { version: V_MID, body: draftBody() })).status).toBe(204);
    expect((await api.req('PUT', path, { version: V_NEW, body: draftBody() })).status).toBe(204);
    const res = await api.req('PUT', path, { version: V_MID, body: draftBody() });
    expect(res.status).toBe(400);
    expect(res.body.object).toBe('version_downgrade_not_allowed');
  });

  it('applies to every write on a pinned target group (activity exclusions, uploads, launch)', async () => {
    const { tgPath } = await api.projectWithTargetGroup({ live_url: 'https://survey.example/s' });
    const writes = [
      api.req('PUT', `${tgPath}/respondent-activity-exclusions`, { version: V_OLD, body: { respondent_activity_exclusions: [] } }),
      api.upload(`${tgPath}/exclusions/jobs/upload-respondents-by-file`, '0e8b5c1a-1234-4abc-8def-000000000001\n', 'RSID', { version: V_OLD }),
      api.req('POST', `${tgPath}/fielding-run-jobs/launch-from-draft`, { version: V_MID, body: { end_fielding_at: '2099-01-01T00:00:00Z' } }),
    ];
    for (const res of await Promise.all(writes)) {
      expect(res.status).toBe(400);
      expect(res.body.object).toBe('version_downgrade_not_allowed');
    }
  });

  it('still serves reads of a pinned resource in older versions', async () => {
    const project = await api.createProject();
    expect((await api.req('GET', `${P()}/projects/${project.id}`, { version: V_OLD })).status).toBe(200);
  });
});
