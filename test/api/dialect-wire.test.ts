// The two dialects at the client's boundary, per deviation (shared/api-dialect.ts): what each profile sends and
// what it reads, over an undici MockAgent. Every request the `cint` profile sends is checked against the published
// reference's own request schema with the ajv oracle (test/contract/reference-openapi.ts), which also flags any
// field the reference does not name.
import { afterEach, describe, expect, it } from 'vitest';
import { createApiConfig } from '../../api/http/api-config';
import type { ApiProfileName } from '../../api/http/dialect';
import { API_ORIGIN, AUTH_ORIGIN, CLIENT_SECRET, apiError, draftAnswer, rejectionOf } from '../activities/helpers/mock-api';
import { createMockActivities, type MockActivities } from '../activities/helpers/mock-activities';
import { referenceAvailable, requestProblems } from '../contract/reference-openapi';

const P = '/v1/demand/accounts/1001';
const ctx = { accountId: '1001', apiVersion: '2025-12-18' as const };
const TA = '01JTARGETGR0UP000000000001';
const PR = '01JPR0JECT0000000000000000';
const TG = `${P}/projects/${PR}/target-groups/${TA}`;
const MANAGER = '6f1c2a4e-3001-4c8e-9d2b-000000003001';

let m: MockActivities | undefined;
/** Every API interceptor was used (a test that sends nothing leaves the token unasked), then the agent is closed. */
async function done(): Promise<void> {
  const current = m;
  m = undefined;
  if (!current) return;
  expect(current.agent.pendingInterceptors().filter((i) => i.origin !== AUTH_ORIGIN).map((i) => `${i.method} ${i.path}`)).toEqual([]);
  await current.agent.close();
}
afterEach(done);

/** Fresh activities speaking the profile (the previous ones checked and closed). */
async function activitiesFor(profile: ApiProfileName): Promise<MockActivities> {
  await done();
  const config = createApiConfig({ baseUrl: API_ORIGIN, authUrl: `${AUTH_ORIGIN}/auth`, audience: 'https://demand-api.test', clientId: 'studyflow-test', clientSecret: CLIENT_SECRET, profile });
  m = createMockActivities({ config });
  return m;
}

/** The reference's verdict on a request body the cint profile sent ([] when the reference is not at hand: reported skipped below). */
function referenceVerdict(operation: string, body: unknown): string[] {
  return referenceAvailable ? requestProblems(operation, body) : [];
}

const desiredDraft = {
  name: 'US general population', expected_incidence_rate: 0.3, expected_length_of_interview_minutes: 12, filling_goal: 400,
  project_manager_id: MANAGER, collects_pii: false, target_group_customer_reference_number: 'us_gen_pop',
  business_unit_id: '2001', locale: 'eng_us', fielding_assistant_assignment: {},
  fielding_specification: { start_at: '2027-01-04T00:00:00.000Z', end_at: '2027-02-01T00:00:00.000Z' },
  allocations: { open_exchange_allocations: { blocked_supplier_ids: [], exchange_min_percentage: 0, exchange_max_percentage: 100, groups: [] } },
  respondent_activity_exclusions: [{ type: 'project', id: '01JPR0JECT0000000000000001', duration: 'P30D', respondent_statuses: ['Complete'] }],
};

const feasibilityRequest = {
  business_unit_id: 2001, locale: 'eng_us', expected_incidence_rate: 0.3, expected_length_of_interview_minutes: 12, filling_goal: 400,
  fielding_specification: { start_at: '2027-01-04T00:00:00.000Z', end_at: '2027-02-01T00:00:00.000Z' }, collects_pii: false,
};
const feasibilityAnswer = { suggested_price: { value: '2.65', currency_code: 'USD' }, suggested_completes_goal_range: { min: 300, max: 900 } };

describe.skipIf(!referenceAvailable)('the reference is at hand for the oracle checks', () => {
  it('finds it', () => expect(referenceAvailable).toBe(true));
});

describe('filling_goal: draft create, draft update and feasibility', () => {
  it('sandbox sends the spec\'s filling_goal (and the statuses), under Svc-API-Version', async () => {
    const m = await activitiesFor('sandbox');
    m.on('GET', /\/target-groups\?/, () => ({ status: 200, body: { target_groups: [], url: `${P}/projects/${PR}/target-groups`, has_more: false, next_cursor: null } }));
    m.on('POST', `${P}/projects/${PR}/target-groups`, () => ({ status: 201, body: { id: TA } }));
    await m.activities.ensureDraftTargetGroup({ ctx, projectId: PR, idempotencyKey: 'k1', desired: desiredDraft });
    const sent = m.requests[1];
    expect(sent.headers['svc-api-version']).toBe('2025-12-18');
    expect(sent.headers['cint-api-version']).toBeUndefined();
    expect(sent.body).toMatchObject({ filling_goal: 400, respondent_activity_exclusions: [{ type: 'project', respondent_statuses: ['Complete'] }] });
    expect(sent.body).not.toHaveProperty('completes_goal');
  });

  it('cint sends the reference\'s completes_goal, no statuses, under Cint-API-Version; the reference accepts the create and the update', async () => {
    const m = await activitiesFor('cint');
    m.on('GET', /\/target-groups\?/, () => ({ status: 200, body: { target_groups: [], url: `${P}/projects/${PR}/target-groups`, has_more: false, next_cursor: null } }));
    m.on('POST', `${P}/projects/${PR}/target-groups`, () => ({ status: 201, body: { id: TA } }));
    m.on('PUT', TG, () => ({ status: 204 }));
    await m.activities.ensureDraftTargetGroup({ ctx, projectId: PR, idempotencyKey: 'k1', desired: desiredDraft });
    await m.activities.updateDraftTargetGroup({ ctx, projectId: PR, targetGroupId: TA, desired: { ...desiredDraft, filling_goal: 500 } });
    const [create, update] = [m.requests[1], m.requests[2]];
    expect(create.headers['cint-api-version']).toBe('2025-12-18');
    expect(create.headers['svc-api-version']).toBeUndefined();
    expect(create.body).toMatchObject({ completes_goal: 400, respondent_activity_exclusions: [{ type: 'project', id: '01JPR0JECT0000000000000001', duration: 'P30D' }] });
    expect(update.body).toMatchObject({ completes_goal: 500 });
    for (const body of [create.body, update.body]) {
      expect(body).not.toHaveProperty('filling_goal');
      expect((body as { respondent_activity_exclusions: object[] }).respondent_activity_exclusions[0]).not.toHaveProperty('respondent_statuses');
    }
    expect(referenceVerdict('create_target_group', create.body)).toEqual([]);
    expect(referenceVerdict('update_target_group', update.body)).toEqual([]);
  });

  it('the oracle refuses what the sandbox profile sends to the real service (so the check above can fail)', () => {
    if (!referenceAvailable) return;
    const { respondent_activity_exclusions: _items, ...spec } = desiredDraft;
    expect(requestProblems('create_target_group', { ...spec, business_unit_id: '2001' }).join('; ')).toMatch(/completes_goal|filling_goal/);
  });

  it('cint refuses to send statuses other than [Complete] (invalid input naming the field), sending nothing', async () => {
    const m = await activitiesFor('cint');
    const desired = { ...desiredDraft, respondent_activity_exclusions: [{ type: 'project', id: '01JPR0JECT0000000000000001', respondent_statuses: ['Terminate'] }] };
    const failure = await rejectionOf(m.activities.updateDraftTargetGroup({ ctx, projectId: PR, targetGroupId: TA, desired }));
    expect(failure.type).toBe('invalid_activity_input');
    expect(failure.message).toMatch(/respondent_statuses/);
  });

  it('feasibility: sandbox sends filling_goal, cint completes_goal (accepted by the reference); the answer reads the same', async () => {
    for (const profile of ['sandbox', 'cint'] as const) {
      const m = await activitiesFor(profile);
      m.on('POST', `${P}/target-groups/calculate-feasibility`, () => ({ status: 200, body: feasibilityAnswer }));
      const { feasibility } = await m.activities.calculateFeasibility({ ctx, request: feasibilityRequest });
      expect(feasibility.suggested_completes_goal_range?.max).toBe(900);
      const body = m.requests[0].body as Record<string, unknown>;
      const goal = profile === 'sandbox' ? 'filling_goal' : 'completes_goal';
      expect(body[goal]).toBe(400);
      expect(Object.keys(body).filter((k) => k === 'filling_goal' || k === 'completes_goal')).toEqual([goal]);
      if (profile === 'cint') expect(referenceVerdict('calculate_target_group_feasibility', body)).toEqual([]);
    }
  });
});

describe('generate_price_prediction: the planning core\'s config as a GET query (sandbox) or a POST body (cint)', () => {
  // As plan/launch-gates.ts priceQuery builds it: the reference's rate-card config.
  const query = { type: 'rate_card', country_code: 'US', expected_incidence_rate: 0.25, expected_length_of_interview_minutes: 12 };
  const PRICE = `${P}/business-units/2001/generate-price-prediction`;
  const answer = {
    buyer_account_id: 1001, buyer_business_unit_id: '2001', buyer_business_unit_exchange_rate_from_usd: 1,
    open_exchange_price: { pricing_context: { type: 'rate_card', rate_card_token: 'tok' }, cost_per_interview: { value: '3.20', currency_code: 'USD', currency_scale: 2 } },
    private_exchange_prices: [{ supplier_id: '7', pricing_context: { type: 'dynamic' }, cost_per_interview: { value: '4.00' } }],
  };

  it('sandbox: the spec\'s GET carries the config as query parameters; the answer is the reference\'s', async () => {
    const m = await activitiesFor('sandbox');
    m.on('GET', /generate-price-prediction\?/, () => ({ status: 200, body: answer }));
    const { prediction } = await m.activities.generatePricePrediction({ ctx, businessUnitId: '2001', query });
    expect(m.requests[0].method).toBe('GET');
    expect(m.requests[0].body).toBeUndefined();
    expect(Object.fromEntries(new URL(m.requests[0].path, API_ORIGIN).searchParams)).toEqual({ type: 'rate_card', country_code: 'US', expected_incidence_rate: '0.25', expected_length_of_interview_minutes: '12' });
    expect(prediction).toMatchObject({ cost_per_interview: { value: '3.20', currency_code: 'USD' }, pricing_model: 'rate_card' });
  });

  it('cint: POST {config} the reference accepts; its answer read into cost_per_interview and pricing_model', async () => {
    const m = await activitiesFor('cint');
    m.on('POST', PRICE, () => ({ status: 200, body: answer }));
    const { prediction } = await m.activities.generatePricePrediction({ ctx, businessUnitId: '2001', query });
    const sent = m.requests[0];
    expect(sent.method).toBe('POST');
    expect(sent.path).toBe(PRICE);
    expect(sent.body).toEqual({ config: query });
    expect(referenceVerdict('generate_price_prediction', sent.body)).toEqual([]);
    expect(prediction).toMatchObject({ cost_per_interview: { value: '3.20', currency_code: 'USD' }, pricing_model: 'rate_card', buyer_account_id: 1001 });
    expect(prediction).not.toHaveProperty('total_cost');
  });

  it.each(['sandbox', 'cint'] as const)('%s: an answer without the reference\'s required fields is a wire_mismatch; a config the reference refuses is never sent', async (profile) => {
    const m = await activitiesFor(profile);
    m.on(profile === 'sandbox' ? 'GET' : 'POST', profile === 'sandbox' ? /generate-price-prediction\?/ : PRICE, () => ({ status: 200, body: { cost_per_interview: { value: '2.10', currency_code: 'USD' } } }));
    const mismatch = await rejectionOf(m.activities.generatePricePrediction({ ctx, businessUnitId: '2001', query }));
    expect(mismatch.type).toBe('wire_mismatch');
    expect(mismatch.nonRetryable).toBe(true);
    expect(mismatch.message).toMatch(/generate_price_prediction/);
    const sentBefore = m.requests.length;
    // A locale without a country gives no country_code; an incidence off the hundredths breaks multipleOf 0.01.
    for (const bad of [{ ...query, country_code: '' }, { ...query, expected_incidence_rate: 0.255 }, { ...query, type: 'dynamic' }]) {
      expect((await rejectionOf(m.activities.generatePricePrediction({ ctx, businessUnitId: '2001', query: bad }))).type).toBe('invalid_activity_input');
    }
    expect(m.requests).toHaveLength(sentBefore);
  });
});

describe('suggest_time_range: a wire schema per dialect', () => {
  const RANGE = /\/v1\/demand\/intelligent-calendar\/suggest-time-range\?/;
  const spec = { suggested_start: '2027-01-04T08:00:00.000Z', suggested_end: '2027-01-18T22:00:00.000Z', days: 14 };
  const reference = { start: '2027-01-04T08:00:00.000Z', end: '2027-01-18T22:00:00.000Z', holidays: [{ date: '2027-01-06', name: 'Epiphany', respondent_rate: 0.8, completes_rate: 0.7 }], timezone: 'Europe/Berlin' };

  it('sandbox reads suggested_start/suggested_end; cint reads start/end, both returned under the spec\'s names', async () => {
    let m = await activitiesFor('sandbox');
    m.on('GET', RANGE, () => ({ status: 200, body: spec }));
    expect(await m.activities.suggestTimeRange({ ctx, locale: 'deu_de', days: 14 })).toMatchObject({ suggestedStart: spec.suggested_start, suggestedEnd: spec.suggested_end });
    m = await activitiesFor('cint');
    m.on('GET', RANGE, () => ({ status: 200, body: reference }));
    const out = await m.activities.suggestTimeRange({ ctx, locale: 'deu_de', days: 14 });
    expect(out).toMatchObject({ suggestedStart: reference.start, suggestedEnd: reference.end });
    expect(out.suggestion).toMatchObject({ suggested_start: reference.start, suggested_end: reference.end, timezone: 'Europe/Berlin' });
    expect(out.suggestion).not.toHaveProperty('start');
  });

  it('the other dialect\'s answer is a named, non-retryable wire_mismatch (never "? to ?")', async () => {
    for (const [profile, body] of [['sandbox', reference], ['cint', spec]] as const) {
      const m = await activitiesFor(profile);
      m.on('GET', RANGE, () => ({ status: 200, body }));
      const failure = await rejectionOf(m.activities.suggestTimeRange({ ctx, locale: 'deu_de', days: 14 }));
      expect(failure.type).toBe('wire_mismatch');
      expect(failure.nonRetryable).toBe(true);
      expect(failure.message).toMatch(/suggest_time_range/);
      expect(failure.message).toMatch(profile === 'sandbox' ? /suggested_start/ : /\bstart\b/);
    }
  });

  it('suggest_days reads {days} the same in both; either dialect\'s calendar error object is a final failure', async () => {
    for (const [profile, object] of [['sandbox', 'bad_request'], ['cint', 'bad_request_error']] as const) {
      const m = await activitiesFor(profile);
      const request = { locale: 'eng_us', price: { value: '2.50', currency_code: 'USD' }, length_of_interview: 10, incidence_rate: 0.5, completes: 300 };
      m.on('POST', '/v1/demand/intelligent-calendar/suggest-days', () => ({ status: 200, body: { days: 9 } }));
      m.on('POST', '/v1/demand/intelligent-calendar/suggest-days', () => ({ status: 400, body: apiError(object, 'incidence_rate must lie strictly between 0 and 1') }));
      expect((await m.activities.suggestDays({ ctx, request })).suggestion).toEqual({ days: 9 });
      if (profile === 'cint') expect(referenceVerdict('suggest_days', request)).toEqual([]);
      const failure = await rejectionOf(m.activities.suggestDays({ ctx, request: { ...request, incidence_rate: 1 } }));
      expect(failure.nonRetryable).toBe(true);
      expect(failure.type).toBe(object);
    }
  });
});

describe('webhooks: compression and event names', () => {
  const HOOKS = '/v1/accounts/1001/webhooks';
  const created = { id: '01JWEBH00K0000000000000001', url: 'https://hooks.example.com/sf', events: ['target-group-updated'], secret: 'c2VjcmV0', created_at: '2027-01-01T00:00:00.000Z', updated_at: '2027-01-01T00:00:00.000Z' };

  it('sandbox sends the spec\'s compression; cint sends {url, events} the reference accepts', async () => {
    for (const profile of ['sandbox', 'cint'] as const) {
      const m = await activitiesFor(profile);
      m.on('GET', /\/webhooks\?/, () => ({ status: 200, body: { webhooks: [], has_more: false } }));
      m.on('POST', HOOKS, () => ({ status: 201, body: created }));
      const events = profile === 'sandbox' ? ['target-group-updated', 'com.svc.session.updated'] : ['target-group-updated', 'session-updated'];
      await m.activities.createWebhook({ ctx, idempotencyKey: 'w1', desired: { url: created.url, events, compression: null } });
      const sent = m.requests[1].body;
      if (profile === 'sandbox') expect(sent).toEqual({ url: created.url, events, compression: null });
      else {
        expect(sent).toEqual({ url: created.url, events });
        expect(referenceVerdict('create_webhook', sent)).toEqual([]);
      }
    }
  });

  it('cint refuses gzip and the spec\'s event name before sending anything', async () => {
    const m = await activitiesFor('cint');
    const gzip = await rejectionOf(m.activities.updateWebhook({ ctx, webhookId: created.id, desired: { url: created.url, events: ['target-group-updated'], compression: 'gzip' } }));
    expect(gzip.type).toBe('invalid_activity_input');
    expect(gzip.message).toMatch(/compression/);
    const event = await rejectionOf(m.activities.updateWebhook({ ctx, webhookId: created.id, desired: { url: created.url, events: ['com.svc.session.updated'] } }));
    expect(event.type).toBe('invalid_activity_input');
    expect(event.message).toMatch(/events/);
    expect(m.requests).toHaveLength(0);
  });
});

describe('activity exclusions PUT and read', () => {
  const PATH = `${TG}/respondent-activity-exclusions`;
  const items = [{ type: 'target_group' as const, id: '01JTARGETGR0UP000000000002', duration: 'P60D', respondent_statuses: ['Complete'] }];

  it('cint leaves the default [Complete] out and reads items without statuses as [Complete]; sandbox sends and reads them as given', async () => {
    let m = await activitiesFor('cint');
    m.on('PUT', PATH, () => ({ status: 204 }));
    m.on('GET', PATH, () => ({ status: 200, body: { respondent_activity_exclusions: [{ type: 'target-group', id: items[0].id, duration: 'P60D' }] } }));
    await m.activities.putActivityExclusions({ ctx, projectId: PR, targetGroupId: TA, items });
    expect(m.requests[0].body).toEqual({ respondent_activity_exclusions: [{ type: 'target-group', id: items[0].id, duration: 'P60D' }] });
    expect(referenceVerdict('set_target_group_respondent_activity_exclusions', m.requests[0].body)).toEqual([]);
    expect((await m.activities.getActivityExclusions({ ctx, projectId: PR, targetGroupId: TA })).items).toEqual(items);

    m = await activitiesFor('sandbox');
    m.on('PUT', PATH, () => ({ status: 204 }));
    await m.activities.putActivityExclusions({ ctx, projectId: PR, targetGroupId: TA, items: [{ ...items[0], respondent_statuses: ['Terminate'] }] });
    expect(m.requests[0].body).toEqual({ respondent_activity_exclusions: [{ type: 'target-group', id: items[0].id, duration: 'P60D', respondent_statuses: ['Terminate'] }] });
  });
});

describe('reads each dialect\'s form: type, list name, ids sent as digits', () => {
  it('the draft read takes business_unit_id as a number or a string of digits (the reference\'s own example), as the number', async () => {
    for (const [sent, read] of [[2001, 2001], ['3337', 3337]] as const) {
      const m = await activitiesFor('cint');
      m.on('GET', TG, () => draftAnswer({ business_unit_id: sent }));
      const { state } = await m.activities.readTargetGroupState({ ctx, projectId: PR, targetGroupId: TA, reads: [] });
      expect(state.fields.business_unit_id).toBe(read);
      expect(state.fields.filling_goal).toBe(200);
    }
  });

  it('nothing else loosens: business_unit_id "33x" or 2001.5 is a wire_mismatch', async () => {
    for (const sent of ['33x', 2001.5, '']) {
      const m = await activitiesFor('cint');
      m.on('GET', TG, () => draftAnswer({ business_unit_id: sent }));
      expect((await rejectionOf(m.activities.readTargetGroupState({ ctx, projectId: PR, targetGroupId: TA, reads: [] }))).type).toBe('wire_mismatch');
    }
  });

  it('the spec\'s `type` on the draft read is kept where present and never required; the list reads items with or without name', async () => {
    for (const [profile, extra] of [['sandbox', { type: 'rate_card' }], ['cint', {}]] as const) {
      const m = await activitiesFor(profile);
      m.on('GET', TG, () => draftAnswer(extra));
      const { state } = await m.activities.readTargetGroupState({ ctx, projectId: PR, targetGroupId: TA, reads: [] });
      expect(state.fields.type).toBe(profile === 'sandbox' ? 'rate_card' : undefined);
      const item = { id: TA, status: 'draft', target_group_customer_reference_number: 'us_gen_pop', ...(profile === 'cint' ? { name: 'US general population' } : {}) };
      m.on('GET', /\/target-groups\?/, () => ({ status: 200, body: { target_groups: [item], url: `${P}/projects/${PR}/target-groups`, has_more: false, next_cursor: null } }));
      const { targetGroups } = await m.activities.listTargetGroups({ ctx, projectId: PR });
      expect(targetGroups.map((t) => t.id)).toEqual([TA]);
    }
  });
});
