// Property: random JSON bodies, random field values and random bytes thrown at every core route never
// produce a 5xx, and a rejected request never changes state.
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestSandbox } from '../fixtures/sandbox';
import { apiRouteModules } from '../../sandbox/routes/index';
import { P } from './sandbox-test-client';

const { sb, api } = useTestSandbox({ start: { faults: { job_duration_ms: 0 } } });
let token: string;
const ids: Record<string, string[]> = {};
const CORE_MODULES = new Set([
  'accounts', 'projects', 'target-groups', 'activity-exclusions', 'id-exclusions', 'legacy-exclusions',
  'recontacts', 'exclusion-groups', 'fielding', 'reports-download',
]);
const routes = apiRouteModules.filter((m) => CORE_MODULES.has(m.name)).flatMap((m) => m.routes);

const FIELDS = [
  'name', 'business_unit_id', 'human_readable_id', 'human-readable-id', 'project_customer_reference_number', 'purchase_order_number',
  'expected_incidence_rate', 'expected_length_of_interview_minutes', 'filling_goal', 'project_manager_id', 'collects_pii',
  'live_url', 'study_type_code', 'pricing_model', 'type', 'client_cpi', 'allocations', 'respondent_activity_exclusions',
  'duration', 'data', 'target_group_ids', 'description', 'end_fielding_at', 'locale',
];

beforeAll(async () => {
  token = await api.token();
  const { project, tg, tgPath } = await api.projectWithTargetGroup({ live_url: 'https://s.example/a' });
  const draft = await api.createTargetGroup(project.id);
  const upload = await api.upload(`${tgPath}/exclusions/jobs/upload-respondents-by-file`, 'a\nb\n', 'RSID');
  await api.waitForJob(`${tgPath}/exclusions/jobs/upload-respondents-by-file/${upload.body.job_id}`);
  const launch = await api.req('POST', `${tgPath}/fielding-run-jobs/launch-from-draft`, { body: { end_fielding_at: '2099-01-01T00:00:00Z' } });
  const launched = await api.waitForJob(launch.headers.get('location')!);
  const group = (await api.req('POST', `${P()}/exclusion-groups`, { body: { name: 'G', target_group_ids: [tg.id] } })).body;
  ids.account_id = ['1001', '1001', '1001', '1002'];
  ids.project_id = [project.id];
  ids.target_group_id = [tg.id, draft.id];
  ids.job_id = [upload.body.job_id, launched.body.job_id];
  ids.fielding_run_id = [launched.body.created_fielding_run_id];
  ids.exclusion_group_id = [group.id];
});

const paramValue = (name: string) => fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...(ids[name] ?? ['x'])) }, { weight: 1, arbitrary: fc.string({ minLength: 1, maxLength: 12 }) });

const fieldBody = fc.dictionary(fc.constantFrom(...FIELDS), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 6 }).map((o) => JSON.stringify(o));
const body = fc.oneof(
  { weight: 3, arbitrary: fieldBody.map((text) => ({ text, type: 'application/json' })) },
  { weight: 2, arbitrary: fc.json({ maxDepth: 3 }).map((text) => ({ text, type: 'application/json' })) },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 200 }).map((bytes) => ({ text: Buffer.from(bytes).toString('latin1'), type: 'application/json' })) },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 200 }).map((bytes) => ({ text: Buffer.from(bytes).toString('latin1'), type: 'multipart/form-data; boundary=b0undary' })) },
  { weight: 1, arbitrary: fc.constant({ text: '', type: 'text/plain' }) },
);

const requestFor = (route: (typeof routes)[number]) => {
    const names = [...route.path.matchAll(/\{([a-z_]+)\}/g)].map((m) => m[1]);
    return fc.record({
      route: fc.constant(route),
      params: fc.tuple(...names.map((n) => paramValue(n).map((v) => [n, v] as const))),
      version: fc.constantFrom('2025-02-17', '2025-05-27', '2025-12-18', '2025-12-18', 'bogus'),
      query: fc.constantFrom('', '?entity_type=RSID', '?page_size=5', '?page_size=0', '?start_after=zz', '?entity_type=ACCESS_RESPONDENT_GUID'),
      body,
      idempotencyKey: fc.option(fc.constantFrom('k1', 'k2'), { nil: undefined }),
      ifMatch: fc.option(fc.constantFrom('*', '"stale"'), { nil: undefined }),
    });
};

describe('Property › robustness of every core route', () => {
  it.each(routes.map((route) => [`${route.method} ${route.path}`, route] as const))('%s never answers 5xx; a rejected request leaves the state unchanged', async (_name, route) => {
    await fc.assert(
      fc.asyncProperty(requestFor(route), async ({ route, params, version, query, body: b, idempotencyKey, ifMatch }) => {
        let path = route.path;
        for (const [name, value] of params) path = path.replace(`{${name}}`, encodeURIComponent(value));
        sb.settleJobs();
        const before = sb.state();
        const headers: Record<string, string> = { authorization: `Bearer ${token}`, 'Svc-API-Version': version, 'content-type': b.type };
        if (idempotencyKey) headers['idempotency-key'] = idempotencyKey;
        if (ifMatch) headers['if-match'] = ifMatch;
        const res = await fetch(`${sb.baseUrl}${path}${query}`, { method: route.method, headers, body: route.method === 'GET' || route.method === 'DELETE' ? undefined : Buffer.from(b.text, 'latin1') });
        const text = await res.text();
        expect(res.status, `${route.method} ${path}${query} -> ${text}`).toBeLessThan(500);
        if (res.status >= 400) {
          expect(sb.state(), `${route.method} ${path}${query} changed state`).toEqual(before);
          const error = JSON.parse(text);
          expect(typeof error.id === 'string' && typeof error.object === 'string' && typeof error.detail === 'string').toBe(true);
        }
      }),
      { numRuns: 25, seed: 20251218 },
    );
  });
});
