// Profile operations (with version renames of paths and bodies), calendar, feasibility, recontact, accounts.
import { afterEach, describe, expect, it } from 'vitest';
import { API_ORIGIN, apiError, rejectionOf } from './helpers/mock-api';
import { createMockActivities, type MockActivities } from './helpers/mock-activities';

const P = '/v1/demand/accounts/1001';
const TG = `${P}/projects/p1/target-groups/tg1`;
const ctx = { accountId: '1001', apiVersion: '2025-12-18' as const };
const old = { accountId: '1001', apiVersion: '2025-02-17' as const };
const target = { projectId: 'p1', targetGroupId: 'tg1' };
let m: MockActivities;
afterEach(async () => {
  expect(m.agent.pendingInterceptors().filter((i) => i.origin === API_ORIGIN)).toEqual([]);
  await m.agent.close();
});

describe('profiles', () => {
  const profiling = { profile_adjustment_type: 'nominal', profiles: [{ object: 'regular', name: 'Age', quotas_enabled: true, targets: [{ conditions: [{ object: 'selection', question_id: 1, option: '1' }], quota: { name: 'q', completes_goal: 10 } }] }] };

  it('validateProfiles sends {locale, completes_goal, profiling}: 204 is valid; 400/422 come back as valid: false with invalid_params', async () => {
    m = createMockActivities();
    m.on('POST', `${P}/profiles/validate`, () => ({ status: 204 }));
    m.on('POST', `${P}/profiles/validate`, () => ({
      status: 422,
      body: { object: 'unprocessable_entity_error', title: 'profile request validation', detail: 'Validation error: duplicates', invalid_params: [{ error_type: 'data_validation_error', name: 'profile_validation_error_039', reason: 'duplicate_condition_039', detail: 'profiles[0].targets[1]' }] },
    }));
    const request = { locale: 'en_US', completes_goal: 10, profiling };
    expect(await m.activities.validateProfiles({ ctx, request })).toEqual({ valid: true });
    expect(m.requests[0].body).toEqual(request);
    expect(await m.activities.validateProfiles({ ctx, request })).toEqual({
      valid: false, object: 'unprocessable_entity_error', detail: 'Validation error: duplicates', invalidParams: [{ name: 'profile_validation_error_039', reason: 'duplicate_condition_039' }],
    });
  });

  it('validateProfiles refuses a body the reference would refuse (mixed adjustment, zip_code kind, older version) without calling', async () => {
    m = createMockActivities();
    const mixed = { ...profiling, profile_adjustment_type: 'percentage' };
    expect(await rejectionOf(m.activities.validateProfiles({ ctx, request: { locale: 'en_US', completes_goal: 10, profiling: mixed } }))).toMatchObject({ type: 'invalid_activity_input', nonRetryable: true });
    const zip = { profile_adjustment_type: 'percentage', profiles: [{ object: 'regular', name: 'Zip', quotas_enabled: false, targets: [{ object: 'nominal', conditions: [{ object: 'zip_code', question_id: 45, zip_codes: ['10001'] }] }] }] };
    expect(await rejectionOf(m.activities.validateProfiles({ ctx, request: { locale: 'en_US', completes_goal: 10, profiling: zip } }))).toMatchObject({ type: 'invalid_activity_input' });
    expect(await rejectionOf(m.activities.validateProfiles({ ctx: old, request: { locale: 'en_US', completes_goal: 10, profiling } }))).toMatchObject({ type: 'invalid_activity_input' });
    expect(m.requests).toEqual([]);
  });

  it('manageProfiles POSTs {completes_goal, profiling} to manage-profiles and reads 201 ProfilesResponseV3; another answer is wire_mismatch', async () => {
    m = createMockActivities();
    const answer = { locale: 'en_US', completes_goal: 10, profiles: [{ object: 'regular', id: '01J0000000000000000000000A', name: 'Age', description: 'Age?', quotas_enabled: true, targets: [{ id: '01J0000000000000000000000B', conditions: [{ object: 'selection', question_id: 1, option: '1' }], quota: { completes_goal_percentage: 100, quota_nominal: 10, completes_goal: 10 } }] }] };
    m.on('POST', `${TG}/profiles/manage-profiles`, () => ({ status: 201, body: answer }));
    m.on('POST', `${TG}/profiles/manage-profiles`, () => ({ status: 201, body: { profiles: [] } }));
    const { result } = await m.activities.manageProfiles({ ctx, ...target, request: { completes_goal: 10, profiling } });
    expect(m.requests[0].body).toEqual({ completes_goal: 10, profiling });
    expect(result).toEqual(answer);
    expect(await rejectionOf(m.activities.manageProfiles({ ctx, ...target, request: { completes_goal: 10, profiling } }))).toMatchObject({ type: 'wire_mismatch', nonRetryable: true });
  });

  it('supplierQuotaDistribution POSTs one profile (PanelDistributionRequestV3) and reads the profile with its projected goals; another answer is wire_mismatch', async () => {
    m = createMockActivities();
    const request = { locale: 'en_US', completes_goal: 10, profile_adjustment_type: 'nominal', start_at: '2027-01-04T00:00:00Z', end_at: '2027-02-01T00:00:00Z', profile: profiling.profiles[0] };
    const answer = { ...profiling.profiles[0], targets: [{ conditions: profiling.profiles[0].targets[0].conditions, quota: { name: 'q', completes_goal: 10 } }] };
    m.on('POST', `${P}/supplier-quota-distribution/draft`, () => ({ status: 200, body: answer }));
    m.on('POST', `${P}/supplier-quota-distribution/draft`, () => ({ status: 200, body: { filling_goal: 10, suppliers: [] } }));
    expect(await m.activities.supplierQuotaDistribution({ ctx, request })).toEqual({ profile: answer });
    expect(m.requests[0].body).toEqual(request);
    expect(await rejectionOf(m.activities.supplierQuotaDistribution({ ctx, request }))).toMatchObject({ type: 'wire_mismatch', nonRetryable: true });
  });

  it('supplierQuotaDistribution refuses what the reference would (the old supplier shape, quotas of the other adjustment type, an older version) without calling', async () => {
    m = createMockActivities();
    const request = { locale: 'en_US', completes_goal: 10, profile_adjustment_type: 'nominal', start_at: '2027-01-04T00:00:00Z', end_at: '2027-02-01T00:00:00Z', profile: profiling.profiles[0] };
    for (const bad of [{ locale: 'en_US', filling_goal: 10, supplier_ids: [1], profiles: profiling.profiles }, { ...request, profile_adjustment_type: 'percentage' }, { ...request, start_at: undefined }]) {
      expect(await rejectionOf(m.activities.supplierQuotaDistribution({ ctx, request: bad as never })), JSON.stringify(bad)).toMatchObject({ type: 'invalid_activity_input', nonRetryable: true });
    }
    expect(await rejectionOf(m.activities.supplierQuotaDistribution({ ctx: old, request }))).toMatchObject({ type: 'invalid_activity_input' });
    expect(m.requests).toEqual([]);
  });
});

describe('calendar', () => {
  it('suggestTimeRange sends locale and days, returns suggested_start/end', async () => {
    m = createMockActivities();
    m.on('GET', '/v1/demand/intelligent-calendar/suggest-time-range?locale=en_US&days=10', () => ({ status: 200, body: { suggested_start: '2026-01-05', suggested_end: '2026-01-15' } }));
    expect(await m.activities.suggestTimeRange({ ctx, locale: 'en_US', days: 10 })).toMatchObject({ suggestedStart: '2026-01-05', suggestedEnd: '2026-01-15' });
  });

  it('refuses days combined with start/end before calling the API', async () => {
    m = createMockActivities();
    expect((await rejectionOf(m.activities.suggestTimeRange({ ctx, locale: 'en_US', days: 3, start: '2026-01-01', end: '2026-01-09' }))).type).toBe('invalid_activity_input');
    expect((await rejectionOf(m.activities.suggestTimeRange({ ctx, locale: 'en_US', start: '2026-01-01' }))).type).toBe('invalid_activity_input');
    expect(m.requests).toHaveLength(0);
  });

  it('suggestDays posts the request; a 400 bad_request is non-retryable', async () => {
    m = createMockActivities();
    const request = { locale: 'en_US', price: { value: '2.50', currency_code: 'USD' }, length_of_interview: 10, incidence_rate: 0.5, completes: 300 };
    m.on('POST', '/v1/demand/intelligent-calendar/suggest-days', () => ({ status: 200, body: { days: 7 } }));
    m.on('POST', '/v1/demand/intelligent-calendar/suggest-days', () => ({ status: 400, body: apiError('bad_request', 'incidence_rate must be between 0 and 1') }));
    expect((await m.activities.suggestDays({ ctx, request })).suggestion).toEqual({ days: 7 });
    const f = await rejectionOf(m.activities.suggestDays({ ctx, request: { ...request, incidence_rate: 1 } }));
    expect(f.type).toBe('bad_request');
    expect(f.nonRetryable).toBe(true);
  });
});

describe('feasibility, recontact, accounts', () => {
  it('calculateFeasibility posts to P/target-groups/calculate-feasibility', async () => {
    m = createMockActivities();
    const answer = { suggested_price: { value: '4.25', currency_code: 'USD' }, suggested_completes_goal_range: { min: 90, max: 100 } };
    m.on('POST', `${P}/target-groups/calculate-feasibility`, () => ({ status: 200, body: answer }));
    expect(await m.activities.calculateFeasibility({ ctx, request: { filling_goal: 100 } })).toEqual({ feasibility: answer });
  });

  it('generatePricePrediction sends the config as the GET query, spelling the rate card as an old version does, and reads the answer back', async () => {
    m = createMockActivities();
    const cpi = { value: '2.50', currency_code: 'USD' };
    const answer = (type: string) => ({
      buyer_account_id: 1001, buyer_business_unit_id: '2001', buyer_business_unit_exchange_rate_from_usd: 1,
      open_exchange_price: { pricing_context: { type }, cost_per_interview: cpi }, private_exchange_prices: [],
    });
    const config = { type: 'rate_card', country_code: 'US', expected_incidence_rate: 0.3, expected_length_of_interview_minutes: 10 };
    m.on('GET', `${P}/business-units/2001/generate-price-prediction?type=ratecard&country_code=US&expected_incidence_rate=0.3&expected_length_of_interview_minutes=10`, () => ({ status: 200, body: answer('ratecard') }));
    expect((await m.activities.generatePricePrediction({ ctx: old, businessUnitId: '2001', query: config })).prediction).toMatchObject({ pricing_model: 'rate_card', cost_per_interview: cpi });
    // The answer is read with its wire schema: one without the reference's fields is wire_mismatch, never "no price".
    m.on('GET', `${P}/business-units/2001/generate-price-prediction?type=ratecard&country_code=US&expected_incidence_rate=0.3&expected_length_of_interview_minutes=11`, () => ({ status: 200, body: { pricing_model: 'ratecard' } }));
    expect(await rejectionOf(m.activities.generatePricePrediction({ ctx: old, businessUnitId: '2001', query: { ...config, expected_length_of_interview_minutes: 11 } }))).toMatchObject({
      type: 'wire_mismatch', nonRetryable: true,
    });
  });

  it('getQuestionTexts reads every page of the questions (QuestionResponseProfileFormat) filtered by id, in a locale; another item shape is wire_mismatch', async () => {
    m = createMockActivities();
    const question = (id: number, name: string) => ({
      object: 'regular', name, description: `${name}?`, description_translated: `${name}?`, quotas_enabled: false, standard: true, profile_condition_type: 'Single Punch',
      targets: [{ text: 'Yes', text_translated: 'Yes', conditions: [{ object: 'selection', question_id: id, option: '1' }] }],
    });
    m.on('GET', `${P}/questions-translation?locale=en_US&id=42%2C43&page_size=2`, () => ({ status: 200, body: { total: 2, profiles: [question(42, 'AGE')], has_more: true, next_cursor: 'c1' } }));
    m.on('GET', `${P}/questions-translation?locale=en_US&id=42%2C43&page_size=2&start_after=c1`, () => ({ status: 200, body: { total: 2, profiles: [question(43, 'GENDER')], has_more: false, next_cursor: null } }));
    expect(await m.activities.getQuestionTexts({ ctx, locale: 'en_US', questionIds: [42, 43] })).toEqual({ items: [question(42, 'AGE'), question(43, 'GENDER')] });
    expect(m.requests).toHaveLength(2);
    // Nothing found: profiles null is an empty list. The earlier item shape of our own is refused.
    m.on('GET', `${P}/questions-translation?locale=en_US&id=7&page_size=2`, () => ({ status: 200, body: { total: 0, profiles: null, has_more: false, next_cursor: null } }));
    expect(await m.activities.getQuestionTexts({ ctx, locale: 'en_US', questionIds: [7] })).toEqual({ items: [] });
    m.on('GET', `${P}/questions-translation?locale=en_US&id=42&page_size=2`, () => ({ status: 200, body: { total: 1, profiles: [{ question_id: 42, text: 'Age?' }], has_more: false } }));
    expect(await rejectionOf(m.activities.getQuestionTexts({ ctx, locale: 'en_US', questionIds: [42] }))).toMatchObject({ type: 'wire_mismatch', nonRetryable: true });
    expect(await rejectionOf(m.activities.getQuestionTexts({ ctx, locale: 'en_US', questionIds: [] }))).toMatchObject({ type: 'invalid_activity_input' });
  });

  it('checkLaunchGatesBatch reads only feasibility: one call an item, the answer checked against the reference', async () => {
    m = createMockActivities();
    const answer = { suggested_price: { value: '4.25', currency_code: 'USD', currency_scale: 2 }, suggested_completes_goal_range: { min: 450, max: 500 } };
    m.on('POST', `${P}/target-groups/calculate-feasibility`, () => ({ status: 200, body: answer }));
    expect(await m.activities.checkLaunchGatesBatch({ items: [{ ctx, feasibility: { filling_goal: 100 } }] })).toEqual({ results: [{ ok: true, feasibility: answer }] });
    expect(m.requests.map((r) => r.method)).toEqual(['POST']);
  });

  it('checkLaunchGatesBatch fails an item whose answer is not the reference\'s (the old feasible/suggested_cpi shape) as wire_mismatch', async () => {
    m = createMockActivities();
    m.on('POST', `${P}/target-groups/calculate-feasibility`, () => ({ status: 200, body: { feasible: true, suggested_cpi: { value: '4.25', currency_code: 'USD' } } }));
    const { results } = await m.activities.checkLaunchGatesBatch({ items: [{ ctx, feasibility: { filling_goal: 100 } }] });
    expect(results).toEqual([{ ok: false, retryable: false, failure: { type: 'wire_mismatch', message: expect.stringContaining('calculate_target_group_feasibility') } }]);
  });

  it('checkLaunchGatesBatch fails an item as its failing read does (a final 422 stays final)', async () => {
    m = createMockActivities();
    m.on('POST', `${P}/target-groups/calculate-feasibility`, () => ({ status: 422, body: apiError('unprocessable_entity', 'locale is not supported') }));
    const { results } = await m.activities.checkLaunchGatesBatch({ items: [{ ctx, feasibility: { locale: 'xx' } }] });
    expect(results).toEqual([{ ok: false, retryable: false, failure: { type: 'unprocessable_entity', message: expect.any(String) } }]);
  });

  it('uploadRecontactList posts the stored list to the recontact job path; getRecontactJob polls it', async () => {
    m = createMockActivities();
    const list = await m.putList('rsid-1\nrsid-2\n');
    m.on('POST', `${TG}/recontacts/jobs/upload-respondents-by-file?entity_type=RSID`, () => ({ status: 201, body: { job_id: 'rj1' } }));
    m.on('GET', `${TG}/recontacts/jobs/upload-respondents-by-file/rj1`, () => ({ status: 200, body: { job_id: 'rj1', status: 'Completed' } }));
    expect(await m.activities.uploadRecontactList({ ctx, ...target, list, idempotencyKey: 'rc' })).toEqual({ jobId: 'rj1' });
    expect(m.requests[0].headers['content-type']).toMatch(/^multipart\/form-data; boundary=studyflow-/);
    expect(await m.activities.getRecontactJob({ ctx, ...target, jobId: 'rj1' })).toEqual({ status: 'Completed' });
  });

  it('getAccounts reads get_user_accounts {accounts: [{id, name}]} (integer ids); another envelope is a wire_mismatch', async () => {
    m = createMockActivities();
    m.on('GET', '/v1/accounts', () => ({ status: 200, body: { accounts: [{ id: 1001, name: 'Buyer' }] } }));
    m.on('GET', '/v1/accounts', () => ({ status: 200, body: { data: [{ id: '1002' }] } }));
    expect(await m.activities.getAccounts({ ctx })).toEqual({ accounts: [{ id: '1001', name: 'Buyer' }] });
    const f = await rejectionOf(m.activities.getAccounts({ ctx }));
    expect(f.type).toBe('wire_mismatch');
    expect(f.nonRetryable).toBe(true);
    expect(f.message).toContain('get_user_accounts (GET /v1/accounts) answered 200 with {data: array(1) of object(1 keys)}');
  });

  it('getBusinessUnits reads get_business_units {business_units: [...]} of the ctx account', async () => {
    m = createMockActivities();
    m.on('GET', '/v1/accounts/1001/business-units', () => ({ status: 200, body: { business_units: [{ id: 2001, name: 'Unit', currency_code: 'USD', pricing_models: ['rate_card'] }] } }));
    expect(await m.activities.getBusinessUnits({ ctx })).toEqual({ businessUnits: [{ id: '2001', name: 'Unit', currency_code: 'USD', pricing_models: ['rate_card'] }] });
  });
});
