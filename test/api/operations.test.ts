// The plain API operations of api/operations/ run over any ApiCaller, outside Temporal: no activity, no
// Context. The caller carries the client's dialect and reports page progress to whoever built it.
import { afterEach, describe, expect, it } from 'vitest';
import { createApiConfig } from '../../api/http/api-config';
import { apiCaller } from '../../api/operations/caller';
import { ensureProject } from '../../api/operations/projects';
import { createWebhook } from '../../api/operations/webhooks';
import { AUTH_ORIGIN, API_ORIGIN, CLIENT_SECRET, createMockApi, type MockApi } from '../activities/helpers/mock-api';

const P = '/v1/demand/accounts/1001';
const PA = '01JPR0JECT0000000000000000';
const PB = '01JPR0JECT0000000000000001';
const desired = { name: 'ACME Q4', project_customer_reference_number: 'PO-42', project_manager_id: '6f1c2a4e-3001-4c8e-9d2b-000000003001' };
const page = (projects: unknown[], next: string | null) => ({ status: 200, body: { projects, url: `${P}/projects`, has_more: next !== null, next_cursor: next } });

let m: MockApi;
afterEach(async () => {
  expect(m.agent.pendingInterceptors().filter((i) => i.origin === API_ORIGIN)).toEqual([]);
  await m.agent.close();
});

describe('plain operations over an ApiCaller', () => {
  it('ensureProject finds the project by its reference across pages, reporting each page to the caller, and creates nothing', async () => {
    m = createMockApi();
    m.serveTokens();
    m.on('GET', `${P}/projects?page_size=1`, () => page([{ id: PB, name: 'Other', project_customer_reference_number: 'PO-4' }], 'c1'));
    m.on('GET', `${P}/projects?page_size=1&start_after=c1`, () => page([{ id: PA, ...desired }], null));
    m.on('GET', `${P}/projects/${PA}`, () => ({ status: 200, body: { id: PA, ...desired, human_readable_id: 'FT354J', account_id: 1001 } }));
    const progress: Array<Record<string, unknown>> = [];
    const caller = apiCaller(m.client, { accountId: '1001', apiVersion: '2025-12-18', progress: (p) => progress.push(p) });

    const out = await ensureProject(caller, { idempotencyKey: 'k', desired, pageSize: 1 });

    expect(out.created).toBe(false);
    expect(out.project.id).toBe(PA);
    expect(progress).toEqual([{ page: 1, items: 1 }, { page: 2, items: 2 }]);
    expect(m.requests.map((r) => r.method)).toEqual(['GET', 'GET', 'GET']);
    expect(m.requests[0].headers['svc-api-version']).toBe('2025-12-18');
  });

  it("the caller speaks its client's dialect: under cint a gzip webhook is refused by name before any request", async () => {
    const config = createApiConfig({ baseUrl: API_ORIGIN, authUrl: `${AUTH_ORIGIN}/auth`, audience: 'https://demand-api.test', clientId: 'studyflow-test', clientSecret: CLIENT_SECRET, profile: 'cint' });
    m = createMockApi({ config });
    const caller = apiCaller(m.client, { accountId: '1001', apiVersion: '2025-12-18' });
    expect(caller.profile).toBe('cint');
    const saved: string[] = [];
    const secrets = { save: async (e: { secret: string }) => void saved.push(e.secret), has: async () => false };

    const refused = await createWebhook(caller, { idempotencyKey: 'k', desired: { url: 'https://hooks.example/s', events: ['a'], compression: 'gzip' }, secrets }).catch((e: unknown) => e);

    expect(refused).toMatchObject({ type: 'invalid_activity_input' });
    expect(String((refused as Error).message)).toMatch(/createWebhook: desired\.compression: the cint profile's API has no webhook compression/);
    expect(m.requests).toEqual([]);
    expect(saved).toEqual([]);
  });
});
