// Spec: Endpoints › Target groups (calculate-feasibility without project_id, generate-price-prediction),
// Limits (filling_goal up to 100,000 on feasibility), Removed endpoints (project-scoped feasibility),
// Resources (allocations.supplier_ids; pricing_model/type value rate_card, ratecard before 2025-12-18).
import { describe, expect, it } from 'vitest';
import { useTestSandbox } from '../fixtures/sandbox';
import { P, V_MID, V_OLD, paramNames } from './sandbox-test-client';

const { api } = useTestSandbox({ start: { faults: { job_duration_ms: 0 } }, resetBeforeEach: true });

const easy = { locale: 'eng_us', expected_incidence_rate: 0.5, expected_length_of_interview_minutes: 10, filling_goal: 500 };
/** The reference's body (2025-12-18): business unit, fielding window; the spec's filling_goal. */
const window = { start_at: '2026-03-01T00:00:00.000Z', end_at: '2026-03-15T00:00:00.000Z' };
const reference = { ...easy, business_unit_id: 2001, fielding_specification: window };
const FEASIBILITY = `${P()}/target-groups/calculate-feasibility`;
const women = { object: 'regular', name: 'G', quotas_enabled: false, targets: [{ conditions: [{ object: 'selection', question_id: 43, option: '2' }] }] };

describe('Feasibility › POST P/target-groups/calculate-feasibility (2025-12-18: the reference\'s request and answer)', () => {
  it('answers suggested_price (the business unit\'s), its range and suggested_completes_goal_range; no feasible, no suggested_cpi', async () => {
    const res = await api.req('POST', FEASIBILITY, { body: reference });
    expect(res.status, res.text).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['suggested_completes_goal_range', 'suggested_price', 'suggested_price_range']);
    expect(res.body.suggested_price).toEqual({ value: '2.65', currency_code: 'USD', currency_scale: 2 });
    expect(res.body.suggested_completes_goal_range.max).toBeGreaterThanOrEqual(500);
    expect(res.body.suggested_completes_goal_range.min).toBeLessThanOrEqual(res.body.suggested_completes_goal_range.max);
    const other = await api.req('POST', FEASIBILITY, { body: { ...reference, business_unit_id: 2002 } });
    expect(other.body.suggested_price.value).toBe('2.39');
    expect((await api.req('POST', FEASIBILITY, { body: { ...reference, business_unit_id: 2101 } })).status).toBe(422);
  });

  it('a demanding target group reaches fewer completes than it wants; a longer window reaches more', async () => {
    const hard = {
      ...reference, expected_incidence_rate: 0.01, expected_length_of_interview_minutes: 60, filling_goal: 50_000,
      fielding_specification: { start_at: '2026-03-01T00:00:00Z', end_at: '2026-03-08T00:00:00Z' },
      profiling: { profile_adjustment_type: 'nominal', profiles: [{ object: 'regular', name: 'Age', quotas_enabled: true, targets: [{ conditions: [{ object: 'range', question_id: 42, min: 18, max: 20 }], quota: { completes_goal: 50_000 } }] }] },
    };
    const res = await api.req('POST', FEASIBILITY, { body: hard });
    expect(res.status, res.text).toBe(200);
    expect(res.body.suggested_completes_goal_range.max).toBeLessThan(50_000);
    const shortWindow = (await api.req('POST', FEASIBILITY, { body: { ...reference, locale: 'swe_se', expected_incidence_rate: 0.05, fielding_specification: { start_at: '2026-03-01T00:00:00Z', end_at: '2026-03-02T00:00:00Z' } } })).body;
    const longWindow = (await api.req('POST', FEASIBILITY, { body: { ...reference, locale: 'swe_se', expected_incidence_rate: 0.05 } })).body;
    expect(longWindow.suggested_completes_goal_range.max).toBeGreaterThan(shortWindow.suggested_completes_goal_range.max);
  });

  it('filling_goal up to 100,000 in 2025-12-18 (400 above), 10,000 before', async () => {
    expect((await api.req('POST', FEASIBILITY, { body: { ...reference, filling_goal: 100_000 } })).status).toBe(200);
    const over = await api.req('POST', FEASIBILITY, { body: { ...reference, filling_goal: 100_001 } });
    expect(over.status).toBe(400);
    expect(over.body.invalid_params).toEqual([{ name: 'filling_goal', reason: 'must be at most 100000' }]);
    expect((await api.req('POST', FEASIBILITY, { body: { ...easy, filling_goal: 10_001 }, version: V_MID })).status).toBe(400);
    expect((await api.req('POST', FEASIBILITY, { body: { ...easy, filling_goal: 10_000 }, version: V_MID })).status).toBe(200);
  });

  it('takes no project_id in 2025-12-18; allocations may hold supplier_ids, which narrow supply', async () => {
    expect(paramNames(await api.req('POST', FEASIBILITY, { body: { ...reference, project_id: 'prj_1' } }))).toEqual(['project_id']);
    const all = await api.req('POST', FEASIBILITY, { body: reference });
    const some = await api.req('POST', FEASIBILITY, { body: { ...reference, allocations: { supplier_ids: [17] } } });
    expect(some.status).toBe(200);
    expect(some.body.suggested_completes_goal_range.max).toBeLessThan(all.body.suggested_completes_goal_range.max);
    expect(paramNames(await api.req('POST', FEASIBILITY, { body: { ...reference, allocations: { supplier_ids: [0] } } }))).toEqual(['allocations.supplier_ids[0]']);
  });

  it('ID exclusions of a named target group shrink the population (the older versions\' target_group_id)', async () => {
    const { tg, tgPath } = await api.projectWithTargetGroup({ locale: 'swe_se' });
    const narrow = { ...easy, locale: 'swe_se', expected_incidence_rate: 0.05, filling_goal: 100, start_fielding_at: '2026-01-01T00:00:00Z', end_fielding_at: '2026-12-01T00:00:00Z' };
    const before = (await api.req('POST', FEASIBILITY, { body: { ...narrow, target_group_id: tg.id }, version: V_MID })).body.feasible_completes;
    const ids = Array.from({ length: 60_000 }, (_, i) => `0e8b5c1a-1234-4abc-8def-${String(i).padStart(12, '0')}`).join('\n');
    const upload = await api.upload(`${tgPath}/exclusions/jobs/upload-respondents-by-file`, ids, 'RSID');
    await api.waitForJob(`${tgPath}/exclusions/jobs/upload-respondents-by-file/${upload.body.job_id}`);
    const after = (await api.req('POST', FEASIBILITY, { body: { ...narrow, target_group_id: tg.id }, version: V_MID })).body.feasible_completes;
    expect(after).toBeLessThan(before);
    expect((await api.req('POST', FEASIBILITY, { body: { ...narrow, target_group_id: 'tg_nope' }, version: V_MID })).status).toBe(404);
    expect(paramNames(await api.req('POST', FEASIBILITY, { body: { ...reference, target_group_id: tg.id } }))).toEqual(['target_group_id']);
  });

  it('profiles (under profiling) narrow the estimate and follow the request version\'s names', async () => {
    const all = (await api.req('POST', FEASIBILITY, { body: easy, version: V_OLD })).body.completes_per_day;
    const narrowedOld = await api.req('POST', FEASIBILITY, { body: { ...easy, profiles: [{ name: 'G', quotas_enabled: false, ungrouped: [{ index: { object: 'selection', question_id: 43, option: '2' } }] }] }, version: V_OLD });
    expect(narrowedOld.body.completes_per_day).toBeCloseTo(all / 2, 0);
    const wide = (await api.req('POST', FEASIBILITY, { body: { ...reference, filling_goal: 100 } })).body.suggested_completes_goal_range.max;
    const narrowed = await api.req('POST', FEASIBILITY, { body: { ...reference, filling_goal: 100, profiling: { profile_adjustment_type: 'percentage', profiles: [women] } } });
    expect(narrowed.status, narrowed.text).toBe(200);
    expect(narrowed.body.suggested_completes_goal_range.max).toBeLessThan(wide);
    expect((await api.req('POST', FEASIBILITY, { body: { ...reference, profiling: { profile_adjustment_type: 'percentage', profiles: [{ name: 'G', ungrouped: [] }] } } })).body.invalid_params[0].name).toBe('ungrouped');
    expect(paramNames(await api.req('POST', FEASIBILITY, { body: { ...reference, profiles: [women] } }))).toEqual(['profiles']);
  });

  it('400 for malformed bodies and out-of-range values; 422 for an unsupported locale', async () => {
    for (const [body, name] of [
      [{ ...reference, expected_incidence_rate: 0 }, 'expected_incidence_rate'],
      [{ ...reference, expected_length_of_interview_minutes: 0 }, 'expected_length_of_interview_minutes'],
      [{ ...reference, filling_goal: 0 }, 'filling_goal'],
      [{ ...reference, locale: undefined }, 'locale'],
      [{ ...reference, business_unit_id: undefined }, 'business_unit_id'],
      [{ ...reference, fielding_specification: { start_at: 'tomorrow', end_at: window.end_at } }, 'fielding_specification.start_at'],
      [{ ...reference, fielding_specification: { start_at: window.start_at } }, 'fielding_specification.end_at'],
      [{ ...reference, bogus: true }, 'bogus'],
    ] as const) {
      const res = await api.req('POST', FEASIBILITY, { body });
      expect(res.status).toBe(400);
      expect(paramNames(res)).toContain(name);
    }
    expect((await api.req('POST', FEASIBILITY, { body: { ...reference, locale: 'xx_yy' } })).status).toBe(422);
  });
});

describe('Feasibility › the project-scoped endpoint (removed in 2025-12-18)', () => {
  it('404 in 2025-12-18, answers in older versions (404 for another account\'s project)', async () => {
    const project = await api.createProject({}, { version: V_MID });
    const path = `${P()}/projects/${project.id}/target-groups/calculate-feasibility`;
    expect((await api.req('POST', path, { body: easy })).status).toBe(404);
    const res = await api.req('POST', path, { body: easy, version: V_MID });
    expect(res.status, res.text).toBe(200);
    expect(res.body.feasible).toBe(true);
    expect((await api.req('POST', `${P()}/projects/prj_nope/target-groups/calculate-feasibility`, { body: easy, version: V_MID })).status).toBe(404);
  });
});

describe('Pricing › GET P/business-units/{id}/generate-price-prediction (spec line 210: a GET; the reference\'s config as query parameters)', () => {
  const query = '?type=rate_card&country_code=US&expected_incidence_rate=0.5&expected_length_of_interview_minutes=10';

  it('answers the reference\'s GeneratePricePredictionResponse: the business unit\'s CPI, the renamed pricing value in pricing_context.type', async () => {
    const res = await api.req('GET', `${P()}/business-units/2002/generate-price-prediction${query}`);
    expect(res.status, res.text).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['buyer_account_id', 'buyer_business_unit_exchange_rate_from_usd', 'buyer_business_unit_id', 'open_exchange_price', 'private_exchange_prices']);
    expect(res.body).toMatchObject({ buyer_account_id: 1001, buyer_business_unit_id: '2002', buyer_business_unit_exchange_rate_from_usd: 1, private_exchange_prices: [] });
    expect(res.body.open_exchange_price.cost_per_interview).toEqual({ value: '2.39', currency_code: 'USD', currency_scale: 2 });
    expect(res.body.open_exchange_price.pricing_context).toMatchObject({ type: 'rate_card', rate_card_token: expect.stringMatching(/\S/) });
    const other = await api.req('GET', `${P()}/business-units/2001/generate-price-prediction${query}`);
    expect(other.body.open_exchange_price.cost_per_interview.value).toBe('2.65');
    const legacy = await api.req('GET', `${P()}/business-units/2001/generate-price-prediction${query.replace('rate_card', 'ratecard')}`, { version: V_OLD });
    expect(legacy.body.open_exchange_price.pricing_context.type).toBe('ratecard');
    // Before 2025-12-18 the pricing value is spelled ratecard, in the request as in the answer.
    expect(paramNames(await api.req('GET', `${P()}/business-units/2001/generate-price-prediction${query}`, { version: V_OLD }))).toEqual(['type']);
    // A boost adds to the rate card price, a maximum caps it (money in the deepObject style).
    const capped = await api.req('GET', `${P()}/business-units/2001/generate-price-prediction${query}&cpi_boost[value]=0.50&cpi_boost[currency_code]=USD&maximum_cpi[value]=3.00&maximum_cpi[currency_code]=USD`);
    expect(capped.body.open_exchange_price.cost_per_interview.value).toBe('3.00');
    expect(capped.body.open_exchange_price.pricing_context).toMatchObject({ maximum_cpi: { value: '3.00', currency_code: 'USD' }, cpi_boost: { value: '0.50', currency_code: 'USD' } });
    const dynamic = await api.req('GET', `${P()}/business-units/2001/generate-price-prediction?type=dynamic&user_requested_cpi[value]=4.10&user_requested_cpi[currency_code]=USD`);
    expect(dynamic.body.open_exchange_price).toEqual({ pricing_context: { type: 'dynamic' }, cost_per_interview: { value: '4.10', currency_code: 'USD', currency_scale: 2 } });
  });

  it('404 for a business unit outside the account; 400 naming every missing, bad or unknown parameter (type is required)', async () => {
    expect((await api.req('GET', `${P()}/business-units/2101/generate-price-prediction${query}`)).status).toBe(404);
    const bad = await api.req('GET', `${P()}/business-units/2001/generate-price-prediction?type=rate_card&country_code=US&expected_incidence_rate=2`);
    expect(bad.status).toBe(400);
    expect(paramNames(bad).sort()).toEqual(['expected_incidence_rate', 'expected_length_of_interview_minutes']);
    const untyped = await api.req('GET', `${P()}/business-units/2001/generate-price-prediction?country_code=US&expected_incidence_rate=0.5&expected_length_of_interview_minutes=10`);
    expect([untyped.status, paramNames(untyped)]).toEqual([400, ['type']]);
    // The earlier query (locale, filling_goal) is not the reference's config: refused by name.
    const earlier = await api.req('GET', `${P()}/business-units/2001/generate-price-prediction${query}&locale=eng_us&filling_goal=100`);
    expect([earlier.status, paramNames(earlier)]).toEqual([400, ['locale', 'filling_goal']]);
    const loi = await api.req('GET', `${P()}/business-units/2001/generate-price-prediction?type=rate_card&country_code=US&expected_incidence_rate=0.333&expected_length_of_interview_minutes=46`);
    expect(paramNames(loi).sort()).toEqual(['expected_incidence_rate', 'expected_length_of_interview_minutes']);
    // POST is the reference's method, not the spec's: this dialect does not serve it.
    const post = await api.req('POST', `${P()}/business-units/2001/generate-price-prediction`, { body: { config: { type: 'dynamic', user_requested_cpi: { value: '1.00', currency_code: 'USD' } } } });
    expect([post.status, post.headers.get('allow')]).toEqual([405, 'GET']);
  });
});
