// Property: random JSON bodies, random field values, random query strings and random bytes thrown at
// every /v1 route of the profiles, feasibility, calendar, webhooks, reporting and live-target-groups modules never produce
// a 5xx, errors keep the standard body, and a rejected request never changes state.
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestSandbox } from '../fixtures/sandbox';
import { apiRouteModules } from '../../sandbox/routes/index';
import { P, draftBody } from './sandbox-test-client';

const { sb, api } = useTestSandbox({ start: { faults: { job_duration_ms: 0 } } });
let token: string;
const ids: Record<string, string[]> = {};
const PART2_MODULES = new Set(['profiles', 'feasibility', 'calendar', 'webhooks', 'reporting', 'live-target-groups']);
const routes = apiRouteModules.filter((m) => PART2_MODULES.has(m.name)).flatMap((m) => m.routes).filter((route) => route.path.startsWith('/v1/'));

const selection = (option: string) => ({ object: 'selection', question_id: 43, option });
const FIELDS: Record<string, fc.Arbitrary<unknown>> = {
  profiles: fc.oneof(
    fc.constant([{ object: 'regular', name: 'G', quotas_enabled: false, targets: [{ conditions: [selection('1')] }] }]),
    fc.constant([{ object: 'regular', name: 'G', quotas_enabled: true, targets: [{ id: 'a', conditions: [selection('1'), selection('1')], quota: { completes_goal: 5 } }] }]),
    fc.constant([{ object: 'blended', profile_ids: ['x', 'y'], targets: [] }]),
    fc.constant([{ name: 'G', quotas_enabled: false, ungrouped: [{ index: selection('2') }] }]),
    fc.array(fc.jsonValue({ maxDepth: 3 }), { maxLength: 3 }),
  ),
  interlocked_profiles: fc.jsonValue({ maxDepth: 2 }),
  profile_template_ids: fc.oneof(fc.constant(['0b7c3f6e-5a41-4c1e-9a6d-1f2e3d4c5b02']), fc.constant(['nope']), fc.jsonValue({ maxDepth: 1 })),
  profile_ids: fc.oneof(fc.constant(['gender', 'kids']), fc.jsonValue({ maxDepth: 1 })),
  targets: fc.oneof(fc.constant([{ conditions: [{ object: 'selection', question_id: 7064, option: '1' }] }]), fc.jsonValue({ maxDepth: 2 })),
  locale: fc.constantFrom('eng_us', 'en_US', 'xx_yy', '', 'de', 42),
  filling_goal: fc.oneof(fc.integer({ min: -5, max: 200_000 }), fc.jsonValue({ maxDepth: 0 })),
  expected_incidence_rate: fc.oneof(fc.double({ min: -1, max: 2, noNaN: true }), fc.jsonValue({ maxDepth: 0 })),
  expected_length_of_interview_minutes: fc.oneof(fc.integer({ min: -1, max: 300 }), fc.jsonValue({ maxDepth: 0 })),
  incidence_rate: fc.oneof(fc.constantFrom(0, 1, 0.5), fc.jsonValue({ maxDepth: 0 })),
  length_of_interview: fc.integer({ min: -1, max: 300 }),
  completes: fc.integer({ min: -1, max: 200_000 }),
  price: fc.oneof(fc.constant({ value: '2.50', currency_code: 'USD' }), fc.constant({ value: '0', currency_code: 'USD' }), fc.constant({ value: '1', currency_code: 'EUR' }), fc.jsonValue({ maxDepth: 2 })),
  supplier_ids: fc.oneof(fc.constant([1, 2]), fc.jsonValue({ maxDepth: 1 })),
  allocations: fc.oneof(fc.constant({ supplier_ids: [3] }), fc.jsonValue({ maxDepth: 2 })),
  url: fc.oneof(fc.constant('http://127.0.0.1:9/h'), fc.string({ maxLength: 20 })),
  events: fc.oneof(fc.constant(['target-group-updated']), fc.jsonValue({ maxDepth: 1 })),
  compression: fc.constantFrom('gzip', null, 'deflate', 1),
  start_fielding_at: fc.constantFrom('2026-01-01T00:00:00Z', 'soon'),
  end_fielding_at: fc.constantFrom('2026-02-01T00:00:00Z', '2025-01-01T00:00:00Z'),
  fielding_specification: fc.oneof(
    fc.constant({ start_at: '2026-01-01T00:00:00Z', end_at: '2026-02-01T00:00:00Z' }),
    fc.constant({ start_at: '2026-02-01T00:00:00Z', end_at: '2026-01-01T00:00:00Z' }),
    fc.jsonValue({ maxDepth: 2 }),
  ),
  profiling: fc.oneof(
    fc.constant({ profile_adjustment_type: 'percentage', profiles: [{ object: 'regular', name: 'G', quotas_enabled: false, targets: [{ conditions: [selection('1')] }] }] }),
    fc.constant({ profile_adjustment_type: 'nominal', profiles: [{ object: 'regular', name: 'G', quotas_enabled: true, targets: [{ conditions: [selection('1')], quota: { completes_goal: 5, completes_goal_percentage: 10 } }] }] }),
    fc.constant({ profile_adjustment_type: 'percentage', template_id: '0b7c3f6e-5a41-4c1e-9a6d-1f2e3d4c5b02', profiles: [{ object: 'regular', name: 'Z', quotas_enabled: false, targets: [{ object: 'nominal', conditions: [{ object: 'open_ended', question_id: 45, allow_all_values: false, open_ended_values: ['10001', '10001'] }] }] }] }),
    fc.constant({ profile_adjustment_type: 'percentage', profiles: [{ object: 'regular', name: 'Z', quotas_enabled: false, targets: [{ conditions: [{ object: 'open_ended', question_id: 45, allow_all_values: true, open_ended_values: ['x'] }, { object: 'zip_code', question_id: 45, zip_codes: [] }] }] }] }),
    fc.constant(null),
    fc.constant({ profile_adjustment_type: 'nominal', profiles: [{ name: 'G', quotas_enabled: false, ungrouped: [{ index: selection('2') }] }] }),
    fc.jsonValue({ maxDepth: 3 }),
  ),
  target_group_id: fc.oneof(fc.constant('tg_nope'), fc.jsonValue({ maxDepth: 0 })),
  completes_goal: fc.oneof(fc.constantFrom(1, 200, 0, -1, 2.5), fc.jsonValue({ maxDepth: 0 })),
  // The live-target-group writes (routes/live-target-groups.ts).
  target_group_cpi: fc.oneof(fc.constant({ value: '4.50', currency_code: 'USD' }), fc.constant({ value: '999', currency_code: 'USD' }), fc.jsonValue({ maxDepth: 2 })),
  open_exchange_allocations: fc.oneof(
    fc.constant({ blocked_supplier_ids: ['421'], exchange_min_percentage: 10, exchange_max_percentage: 90, groups: [{ group_name: 'g', min_percentage: 0, max_percentage: 50, supplier_ids: ['420'] }] }),
    fc.constant({ blocked_supplier_ids: [], exchange_min_percentage: 90, exchange_max_percentage: 10, groups: [] }),
    fc.jsonValue({ maxDepth: 3 }),
  ),
  private_exchange_allocations: fc.oneof(fc.constant({ blocked_supplier_ids: [], groups: [] }), fc.jsonValue({ maxDepth: 2 })),
  pacing: fc.oneof(fc.constant({ type: 'linear', increment_interval: 'P1D' }), fc.constant({ type: 'gemini' }), fc.jsonValue({ maxDepth: 2 })),
  quota_overlay: fc.oneof(fc.constant({ prevent_overfill: true, balance_fill: false }), fc.jsonValue({ maxDepth: 1 })),
  industry_lockout_code: fc.oneof(fc.constant('no_lock_out'), fc.jsonValue({ maxDepth: 0 })),
  live_url: fc.oneof(fc.constant('https://s.example/y'), fc.jsonValue({ maxDepth: 0 })),
  test_url: fc.oneof(fc.constant('https://s.example/t'), fc.jsonValue({ maxDepth: 0 })),
  project_manager_id: fc.constantFrom('6f1c2a4e-3001-4c8e-9d2b-000000003001', 'nobody', 7),
  business_unit_id: fc.constantFrom(2001, 2101, 'x'),
  quotas_enabled: fc.jsonValue({ maxDepth: 0 }),
  name: fc.jsonValue({ maxDepth: 0 }),
  project_id: fc.string({ maxLength: 5 }),
  start_at: fc.oneof(fc.constantFrom('2027-01-04T00:00:00Z', '2026-01-01'), fc.jsonValue({ maxDepth: 0 })),
  end_at: fc.oneof(fc.constantFrom('2027-02-01T00:00:00Z', '2027-01-01T00:00:00Z'), fc.jsonValue({ maxDepth: 0 })),
  collects_pii: fc.jsonValue({ maxDepth: 0 }),
  profile_adjustment_type: fc.constantFrom('percentage', 'nominal', 'weird'),
  profile: fc.oneof(
    fc.constant({ object: 'regular', name: 'G', quotas_enabled: true, targets: [{ conditions: [selection('1')], quota: { completes_goal_percentage: 100 } }] }),
    fc.constant({ object: 'regular', name: 'G', quotas_enabled: true, targets: [{ conditions: [selection('1')], quota: { completes_goal: 5 } }] }),
    fc.jsonValue({ maxDepth: 2 }),
  ),
  object: fc.constantFrom('regular', 'blended', 'weird'),
  profile_id: fc.constantFrom('gender', 'kids', 'nope'),
  target_ids: fc.oneof(fc.constant(['m', 'f']), fc.jsonValue({ maxDepth: 1 })),
  minutes: fc.jsonValue({ maxDepth: 0 }),
};

/** The fields each route reads, so random bodies reach its validation rather than stopping at unknown fields. */
const RELEVANT: [RegExp, string[]][] = [
  [/profiles\/validate$/, ['profiles', 'profile_template_ids', 'locale', 'filling_goal', 'target_group_id', 'interlocked_profiles', 'completes_goal', 'profiling']],
  [/(manage|apply)-profiles$/, ['profiles', 'profile_template_ids', 'interlocked_profiles', 'completes_goal', 'profiling']],
  [/generate-(blended|interlocked)-profile$/, ['profiles', 'locale', 'filling_goal', 'profile_ids', 'name', 'quotas_enabled', 'completes_goal', 'profiling', 'start_at', 'end_at', 'collects_pii']],
  [/create(-blended-|_interlocked_)profile$/, ['profile_ids', 'name', 'quotas_enabled', 'object', 'targets']],
  [/distribution\/draft$/, ['locale', 'filling_goal', 'supplier_ids', 'profiles', 'completes_goal', 'profile_adjustment_type', 'start_at', 'end_at', 'profile']],
  [/completes-goal$/, ['profiles', 'interlocked_profiles', 'completes_goal']],
  [/\/profiles$/, ['object', 'name', 'quotas_enabled', 'targets']],
  [/conditions$/, ['targets']],
  [/disable-quotas$/, ['profile_ids']],
  [/convert-to-regular-profile$/, ['profile_id']],
  [/group-quotas$/, ['profile_id', 'target_ids', 'name']],
  [/calculate-feasibility$/, ['locale', 'expected_incidence_rate', 'expected_length_of_interview_minutes', 'filling_goal', 'allocations', 'profiles', 'profiling', 'target_group_id', 'business_unit_id', 'fielding_specification', 'start_fielding_at', 'end_fielding_at']],
  [/suggest-days$/, ['locale', 'price', 'length_of_interview', 'incidence_rate', 'completes']],
  [/fielding-runs\/\{fielding_run_id\}$|schedule-from-draft$/, ['start_fielding_at', 'end_fielding_at']],
  [/details$/, ['name', 'project_manager_id', 'expected_length_of_interview_minutes', 'expected_incidence_rate', 'industry_lockout_code', 'live_url', 'test_url']],
  [/cost-per-interview$/, ['target_group_cpi']],
  [/allocation-specification$/, ['open_exchange_allocations', 'private_exchange_allocations']],
  [/fielding-assistant-assignment$/, ['pacing', 'quota_overlay']],
  [/webhooks/, ['url', 'events', 'compression']],
];
const relevantFields = (path: string): string[] => RELEVANT.find(([pattern]) => pattern.test(path))?.[1] ?? Object.keys(FIELDS);

beforeAll(async () => {
  token = await api.token();
  await api.admin('PUT', '/fielding/settings', { speed: 0.001 });
  await api.admin('PUT', '/webhooks/settings', { max_attempts: 1 });
  const { project, tg, tgPath } = await api.projectWithTargetGroup();
  const legacy = await api.createTargetGroup(project.id, {}, { version: '2025-05-27' });
  const profiles = [
    { object: 'regular', id: 'gender', name: 'Gender', quotas_enabled: true, targets: [
      { id: 'm', conditions: [selection('1')], quota: { completes_goal: 100 } }, { id: 'f', conditions: [selection('2')], quota: { completes_goal: 100 } }] },
    { object: 'regular', id: 'kids', name: 'Kids', quotas_enabled: false, targets: [{ id: 'yes', conditions: [{ object: 'selection', question_id: 7064, option: '1' }] }] },
  ];
  // A draft's profiles travel in its own profiling.
  expect((await api.req('PUT', tgPath, { body: { ...draftBody(), profiling: { profile_adjustment_type: 'nominal', profiles } } })).status).toBe(204);
  const live = await api.createTargetGroup(project.id, { live_url: 'https://s.example/x' });
  const livePath = `${P()}/projects/${project.id}/target-groups/${live.id}`;
  const launch = await api.req('POST', `${livePath}/fielding-run-jobs/launch-from-draft`, { body: { end_fielding_at: '2099-01-01T00:00:00Z' } });
  const launched = await api.waitForJob(launch.headers.get('location')!);
  ids.fielding_run_id = [launched.body.created_fielding_run_id, 'run_nope'];
  ids.job_id = ['job_nope'];
  const webhook = await api.req('POST', '/v1/accounts/1001/webhooks', { body: { url: 'http://127.0.0.1:9/h', events: ['com.svc.session.updated'] } });
  ids.account_id = ['1001', '1001', '1001', '1001', '1002'];
  ids.project_id = [project.id];
  ids.target_group_id = [tg.id, legacy.id, live.id];
  ids.profile_id = ['gender', 'kids', 'nope'];
  ids.webhook_id = [webhook.body.id];
  ids.business_unit_id = ['2001', '2002', '2101'];
  ids.template_id = ['0b7c3f6e-5a41-4c1e-9a6d-1f2e3d4c5b02', 'tpl_nope'];
  ids.question_id = ['43', '42', '0'];
});

const paramValue = (name: string) => fc.oneof({ weight: 8, arbitrary: fc.constantFrom(...(ids[name] ?? ['x'])) }, { weight: 1, arbitrary: fc.string({ minLength: 1, maxLength: 12 }) });
const fieldBody = (keys: string[], maxKeys: number) => fc.subarray(keys, { maxLength: Math.min(maxKeys, keys.length) })
  .chain((picked) => fc.record(Object.fromEntries(picked.map((key) => [key, FIELDS[key]]))))
  .map((o) => JSON.stringify(o));
const bodyFor = (path: string) => fc.oneof(
  { weight: 5, arbitrary: fieldBody(relevantFields(path), 10).map((text) => ({ text, type: 'application/json' })) },
  { weight: 2, arbitrary: fieldBody(Object.keys(FIELDS), 6).map((text) => ({ text, type: 'application/json' })) },
  { weight: 2, arbitrary: fc.json({ maxDepth: 3 }).map((text) => ({ text, type: 'application/json' })) },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 200 }).map((bytes) => ({ text: Buffer.from(bytes).toString('latin1'), type: 'application/json' })) },
  { weight: 1, arbitrary: fc.constant({ text: '', type: 'text/plain' }) },
);
const query = fc.constantFrom(
  '', '?locale=eng_us&days=3', '?locale=eng_us&days=3&start=2099-01-01&end=2099-01-02', '?locale=eng_us&start=2099-01-01&end=2099-01-03', '?days=0',
  '?locale=ger_de&question_ids=42,43', '?locale=eng_us&page_size=0', '?start_after=zz',
  '?locale=eng_us&expected_incidence_rate=0.5&expected_length_of_interview_minutes=10', '?locale=eng_us&expected_incidence_rate=9',
);

describe('Property › robustness of the profiles, feasibility, calendar, webhooks, reporting and live-target-group routes', () => {
  it.each(routes.map((route) => [`${route.method} ${route.path}`, route] as const))('%s never answers 5xx; a rejected request leaves the state unchanged', async (_name, route) => {
    const names = [...route.path.matchAll(/\{([a-z_]+)\}/g)].map((m) => m[1]);
    await fc.assert(
      fc.asyncProperty(
        fc.tuple(...names.map((n) => paramValue(n).map((v) => [n, v] as const))),
        fc.constantFrom('2025-02-17', '2025-05-27', '2025-12-18', '2025-12-18', 'bogus'),
        query,
        bodyFor(route.path),
        fc.option(fc.constantFrom('k1', 'k2'), { nil: undefined }),
        async (params, version, q, b, idempotencyKey) => {
          let path = route.path;
          for (const [name, value] of params) path = path.replace(`{${name}}`, encodeURIComponent(value));
          await sb.events.idle();
          const before = sb.state();
          const headers: Record<string, string> = { authorization: `Bearer ${token}`, 'Svc-API-Version': version, 'content-type': b.type };
          if (idempotencyKey) headers['idempotency-key'] = idempotencyKey;
          const res = await fetch(`${sb.baseUrl}${path}${q}`, { method: route.method, headers, body: route.method === 'GET' || route.method === 'DELETE' ? undefined : Buffer.from(b.text, 'latin1') });
          const text = await res.text();
          expect(res.status, `${route.method} ${path}${q} -> ${text}`).toBeLessThan(500);
          if (res.status >= 400) {
            expect(sb.state(), `${route.method} ${path}${q} changed state`).toEqual(before);
            const error = JSON.parse(text);
            // The profile operations' 422 is the reference's validation shape (no id; a title and typed
            // invalid_params); every other error is the standard {id, object, detail}.
            if (res.status === 422 && error.object === 'unprocessable_entity_error') {
              expect(typeof error.title === 'string' && typeof error.detail === 'string' && Array.isArray(error.invalid_params), text).toBe(true);
            } else expect(typeof error.id === 'string' && typeof error.object === 'string' && typeof error.detail === 'string', text).toBe(true);
          }
        },
      ),
      { numRuns: 100, seed: 20251218 },
    );
  });
});
