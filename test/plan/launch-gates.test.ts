import { describe, expect, it } from 'vitest';
import type { DesiredTargetGroup } from '../../plan/types';
import { draftFieldingSpecification, feasibilityRequest, feasibilityWindow, gateFailures, judgedCpi, readFeasibility, readPrice } from '../../plan/launch-gates';
import { adjustmentTypeOf, profilingOf } from '../../plan/profiling';
import { nextPollDelay } from '../../plan/job-timing';

const tg: DesiredTargetGroup = {
  key: 'us',
  draft: { locale: 'en_US', expected_incidence_rate: 0.3, expected_length_of_interview_minutes: 12, filling_goal: 400 },
  expected: { pricing_model: 'rate_card' },
  idLists: {},
  exclusionGroups: [],
  launch: { mode: 'auto', requireFeasible: true, maxCpi: { value: '5.00', currency_code: 'USD' } },
  timing: { jobPollInitialMs: 100, jobPollMaxMs: 1000, jobTimeoutMs: 10_000, launchRetries: 3, watchIntervalMs: 60_000 },
};

describe('launch gates', () => {
  const now = Date.parse('2026-03-02T10:00:00Z');
  const usd = (value: string) => ({ value, currency_code: 'USD' });
  const answer = (max: number, price = '4.25') => ({ suggested_price: { ...usd(price), currency_scale: 2 }, suggested_completes_goal_range: { min: Math.floor(max * 0.9), max } });

  it('builds the reference\'s feasibility request from the draft: business unit, window, filling_goal, no project_id', () => {
    const request = feasibilityRequest({ ...tg, launch: { ...tg.launch, endFieldingAt: '2026-03-20T00:00:00Z' } }, '2001', now);
    expect(request).toEqual({
      business_unit_id: 2001,
      locale: 'en_US',
      expected_incidence_rate: 0.3,
      expected_length_of_interview_minutes: 12,
      filling_goal: 400,
      fielding_specification: { start_at: '2026-03-02T10:00:00.000Z', end_at: '2026-03-20T00:00:00.000Z' },
    });
    expect(request).not.toHaveProperty('project_id');
  });

  it('takes business_unit_id and fielding_specification from the draft when it carries them; a past start becomes now', () => {
    const draft = { ...tg.draft, business_unit_id: 2002, fielding_specification: { start_at: '2026-01-01T00:00:00Z', end_at: '2026-04-01T00:00:00Z' } };
    expect(feasibilityRequest({ ...tg, draft }, '2001', now)).toMatchObject({
      business_unit_id: 2002,
      fielding_specification: { start_at: '2026-03-02T10:00:00.000Z', end_at: '2026-04-01T00:00:00.000Z' },
    });
    const later = { ...draft, fielding_specification: { start_at: '2026-03-10T00:00:00Z', end_at: '2026-04-01T00:00:00Z' } };
    expect(feasibilityWindow({ ...tg, draft: later }, now)).toEqual({ start_at: '2026-03-10T00:00:00.000Z', end_at: '2026-04-01T00:00:00.000Z' });
    // No end anywhere: the default 30-day window from now.
    expect(feasibilityWindow(tg, now)).toMatchObject({ start_at: '2026-03-02T10:00:00.000Z' });
  });

  it('gives every draft a fielding window: the study\'s, else from when the draft is written to the launch\'s end', () => {
    const window = { start_at: '2026-04-01T00:00:00Z', end_at: '2026-04-20T00:00:00Z' };
    expect(draftFieldingSpecification({ ...tg, draft: { ...tg.draft, fielding_specification: window } }, now)).toEqual(window);
    const withEnd = { ...tg, launch: { ...tg.launch, endFieldingAt: '2026-03-20T00:00:00Z' } };
    expect(draftFieldingSpecification(withEnd, now)).toEqual({ start_at: '2026-03-02T10:00:00.000Z', end_at: '2026-03-20T00:00:00.000Z' });
    expect(draftFieldingSpecification(tg, now)).toEqual({ start_at: '2026-03-02T10:00:00.000Z', end_at: new Date(now + 30 * 86_400_000).toISOString() });
    // An end already past still gives a window that ends after it starts (the API then says what it thinks of it).
    const past = draftFieldingSpecification({ ...tg, launch: { ...tg.launch, endFieldingAt: '2026-03-01T00:00:00Z' } }, now);
    expect(Date.parse(past.start_at)).toBeLessThan(Date.parse(past.end_at));
  });

  it('sends profiles under profiling with the adjustment type their quotas use', () => {
    const nominal = { object: 'regular', name: 'Gender', quotas_enabled: true, targets: [{ conditions: [{ object: 'selection', question_id: 43, option: '1' }], quota: { name: 'm', completes_goal: 200 } }] };
    const percentage = { ...nominal, targets: [{ ...nominal.targets[0], quota: { name: 'm', completes_goal_percentage: 50 } }] };
    const withProfiling = { ...tg, profiles: [nominal], draft: { ...tg.draft, profiling: profilingOf([nominal]) } };
    // Feasibility's profiles (FeasibilityRequestDraftRegularProfileV3): no profile name; the quota's name names the target.
    expect(feasibilityRequest(withProfiling, '2001', now).profiling).toEqual({
      profile_adjustment_type: 'nominal',
      profiles: [{ object: 'regular', quotas_enabled: true, targets: [{ name: 'm', conditions: nominal.targets[0].conditions, quota: { completes_goal: 200 } }] }],
    });
    const noQuotas = { ...nominal, quotas_enabled: false, targets: [{ conditions: nominal.targets[0].conditions }] };
    expect(feasibilityRequest({ ...tg, profiles: [noQuotas], draft: { ...tg.draft, profiling: profilingOf([noQuotas]) } }, '2001', now).profiling).toEqual({
      profile_adjustment_type: 'percentage',
      profiles: [{ object: 'regular', quotas_enabled: false, targets: [{ conditions: nominal.targets[0].conditions }] }],
    });
    expect(adjustmentTypeOf([percentage])).toBe('percentage');
    expect(adjustmentTypeOf([{ ...nominal, quotas_enabled: false, targets: [{ conditions: nominal.targets[0].conditions }] }])).toBe('percentage');
    // A template in the API takes percentages only, with or without own profiles.
    expect(profilingOf([], ['3f1c2a4e-3001-4c8e-9d2b-000000003001'])).toEqual({ profile_adjustment_type: 'percentage', template_id: '3f1c2a4e-3001-4c8e-9d2b-000000003001' });
  });

  it('is feasible when the filling goal is at most the suggested range\'s max (fewer than its min is deliverable too)', () => {
    expect(readFeasibility(answer(500), tg)).toEqual({ feasible: true, feasibleCompletes: 500, minCompletes: 450, fillingGoal: 400, suggestedPrice: usd('4.25') });
    expect(readFeasibility(answer(400), tg).feasible).toBe(true);
    expect(readFeasibility(answer(399), tg).feasible).toBe(false);
    expect(readFeasibility(answer(100_000), tg).feasible).toBe(true);
    // An answer without the range cannot say feasible.
    expect(readFeasibility({ suggested_price: usd('4.25') }, tg)).toEqual({ feasible: false, fillingGoal: 400, suggestedPrice: usd('4.25') });
  });

  it('holds the gate for an infeasible target group and for a suggested price above max_cpi, and says why', () => {
    const verdict = readFeasibility(answer(120, '6.10'), tg);
    const reasons = gateFailures(tg, verdict, judgedCpi(undefined, verdict));
    expect(reasons).toEqual([
      'infeasible: at most 120 completes in the fielding window for a filling_goal of 400',
      'suggested price 6.10 USD is above max_cpi 5.00',
    ]);
    expect(gateFailures(tg, readFeasibility({ suggested_price: usd('4.00') }, tg), usd('4.00'))).toEqual(['infeasible: feasibility gave no completes range for a filling_goal of 400']);
    expect(gateFailures(tg, readFeasibility(answer(500), tg), { value: '4.00', currency_code: 'EUR' })).toEqual(['suggested price is in EUR, max_cpi in USD']);
  });

  it('passes the gate when feasible and within price; a missing price with max_cpi set holds it', () => {
    const ok = readFeasibility(answer(1000), tg);
    expect(gateFailures(tg, ok, usd('4.99'))).toEqual([]);
    expect(gateFailures(tg, ok, undefined)).toEqual(['max_cpi is set but the API suggested no price']);
    expect(gateFailures({ ...tg, launch: { ...tg.launch, requireFeasible: false, maxCpi: undefined } }, readFeasibility(answer(1), tg), undefined)).toEqual([]);
  });

  it('reads a price prediction\'s cost_per_interview (the reference\'s open_exchange_price, or top-level)', () => {
    expect(readPrice({ cost_per_interview: { value: '3.25', currency_code: 'USD', currency_scale: 2 } })).toEqual(usd('3.25'));
    // The reference's GeneratePricePredictionResponse: the open exchange's CPI.
    const reference = { buyer_account_id: 1001, buyer_business_unit_id: '2001', buyer_business_unit_exchange_rate_from_usd: 1, private_exchange_prices: [] };
    expect(readPrice({ ...reference, open_exchange_price: { pricing_context: { type: 'rate_card', rate_card_token: 't' }, cost_per_interview: { value: '2.65', currency_code: 'USD', currency_scale: 2 } } })).toEqual(usd('2.65'));
    expect(readPrice({ nothing: true })).toBeUndefined();
  });

  it('judges feasibility\'s suggested price; a prediction only where feasibility gave none', () => {
    const verdict = readFeasibility(answer(1000, '4.00'), tg);
    expect(judgedCpi({ cost_per_interview: usd('2.50') }, verdict)).toEqual(usd('4.00'));
    expect(judgedCpi({ cost_per_interview: usd('2.50') }, { feasible: true })).toEqual(usd('2.50'));
    expect(judgedCpi(undefined, verdict)).toEqual(usd('4.00'));
    expect(judgedCpi(undefined, undefined)).toBeUndefined();
  });

  it('backs off job polling from the initial delay up to the maximum', () => {
    const delays: number[] = [];
    let d = 0;
    for (let i = 0; i < 8; i += 1) delays.push((d = nextPollDelay(d, 100, 1000)));
    expect(delays).toEqual([100, 150, 225, 338, 507, 761, 1000, 1000]);
  });
});
