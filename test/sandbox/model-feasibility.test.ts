import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { estimateFeasibility, lengthOfInterviewCompletionFactor, supplierCoverage, type FeasibilityInput } from '../../sandbox/model/feasibility';
import { readFeasibilityRequest } from '../../sandbox/model/feasibility-request';
import { findLocaleMarket, listLocaleMarkets } from '../../sandbox/model/locale-markets';
import { businessUnitPriceFactor, costPerCompleteMinorUnits, predictedCostPerCompleteMinorUnits } from '../../sandbox/model/pricing';
import { validateProfiles } from '../../sandbox/model/profile-validation';
import { targetingShare } from '../../sandbox/model/targeting-share';
import { ApiError } from '../../sandbox/core/api-error';

const usa = findLocaleMarket('en_US')!;
const base: FeasibilityInput = { market: usa, incidenceRate: 0.5, lengthOfInterviewMinutes: 10, fillingGoal: 500, fieldingDays: 14, profiles: [], excludedRespondentCount: 0 };
const profiles = (raw: unknown[], fillingGoal = 500) => {
  let next = 0;
  return validateProfiles(raw, { locale: 'en_US', fillingGoal, newId: (kind) => `${kind}${++next}` });
};
const narrowAgeZip = profiles([
  { object: 'regular', name: 'Age', quotas_enabled: true, targets: [{ conditions: [{ object: 'range', question_id: 42, min: 18, max: 19 }], quota: { completes_goal: 5000 } }] },
  { object: 'regular', name: 'Zip', quotas_enabled: false, targets: [{ conditions: [{ object: 'zip_code', question_id: 45, zip_codes: ['10001', '10002', '10003'] }] }] },
], 5000);

describe('estimateFeasibility', () => {
  it('an easy general-population study is feasible within days', () => {
    const estimate = estimateFeasibility(base);
    expect(estimate.feasible).toBe(true);
    expect(estimate.feasible_completes).toBeGreaterThanOrEqual(500);
    expect(estimate.estimated_field_time_days).toBe(1);
    expect(estimate.suggested_cpi).toEqual({ value: expect.stringMatching(/^\d+\.\d\d$/), currency_code: 'USD', currency_scale: 2 });
  });

  it('a demanding study (tiny incidence, long LOI, big goal, narrow quotas) is infeasible', () => {
    const estimate = estimateFeasibility({ ...base, incidenceRate: 0.01, lengthOfInterviewMinutes: 60, fillingGoal: 5000, fieldingDays: 7, profiles: narrowAgeZip });
    expect(estimate.feasible).toBe(false);
    expect(estimate.feasible_completes).toBeLessThan(50);
    expect(estimate.estimated_field_time_days).toBeNull();
  });

  it('narrowing by profiles reduces the targeted share multiplicatively', () => {
    const gender = profiles([{ object: 'regular', name: 'G', quotas_enabled: false, targets: [{ conditions: [{ object: 'selection', question_id: 43, option: '2' }] }] }]);
    const kids = profiles([{ object: 'regular', name: 'K', quotas_enabled: false, targets: [{ conditions: [{ object: 'selection', question_id: 7064, option: '1' }] }] }]);
    expect(targetingShare(gender, usa)).toBeCloseTo(0.5);
    expect(targetingShare([...gender, ...kids], usa)).toBeCloseTo(0.5 * 0.33);
  });

  it('binding quotas cut feasibility: a quota for a rare target asking for most of the goal', () => {
    const quotaFree = profiles([{ object: 'regular', name: 'G', quotas_enabled: false, targets: [{ conditions: [{ object: 'selection', question_id: 43, option: '3' }, { object: 'selection', question_id: 43, option: '1' }] }] }]);
    const skewed = profiles([{ object: 'regular', name: 'G', quotas_enabled: true, targets: [
      { conditions: [{ object: 'selection', question_id: 43, option: '3' }], quota: { completes_goal: 450 } },
      { conditions: [{ object: 'selection', question_id: 43, option: '1' }], quota: { completes_goal: 50 } },
    ] }]);
    const free = estimateFeasibility({ ...base, profiles: quotaFree, fieldingDays: 3 });
    const bound = estimateFeasibility({ ...base, profiles: skewed, fieldingDays: 3 });
    expect(bound.feasible_completes).toBeLessThan(free.feasible_completes / 10);
  });

  it('excluded IDs shrink the reachable population; suppliers restrict coverage', () => {
    const sweden = { ...base, market: findLocaleMarket('sv_SE')!, fieldingDays: 365, incidenceRate: 0.05, fillingGoal: 100 };
    expect(estimateFeasibility({ ...sweden, excludedRespondentCount: 89_000 }).feasible_completes).toBeLessThan(estimateFeasibility(sweden).feasible_completes / 50);
    expect(estimateFeasibility({ ...sweden, excludedRespondentCount: 10_000_000 }).feasible_completes).toBe(0);
    expect(supplierCoverage([], 'en_US')).toBe(1);
    expect(supplierCoverage([1], 'en_US')).toBeLessThan(supplierCoverage([1, 2, 3], 'en_US'));
    expect(estimateFeasibility({ ...base, supplierIds: [7] }).completes_per_day).toBeLessThan(estimateFeasibility(base).completes_per_day);
  });

  it('is monotonic: more days, higher incidence, shorter LOI and fewer exclusions never lower feasible completes (property)', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...listLocaleMarkets()),
        fc.double({ min: 0.005, max: 1, noNaN: true }), fc.double({ min: 0.005, max: 1, noNaN: true }),
        fc.integer({ min: 1, max: 180 }), fc.integer({ min: 1, max: 180 }),
        fc.double({ min: 0.1, max: 365, noNaN: true }), fc.double({ min: 0.1, max: 365, noNaN: true }),
        fc.integer({ min: 0, max: 100_000 }), fc.integer({ min: 1, max: 100_000 }),
        (market, irA, irB, loiA, loiB, daysA, daysB, excluded, fillingGoal) => {
          const input = { ...base, market, fillingGoal, excludedRespondentCount: excluded };
          const completes = (overrides: Partial<FeasibilityInput>) => estimateFeasibility({ ...input, ...overrides }).feasible_completes;
          const [lowIr, highIr] = [Math.min(irA, irB), Math.max(irA, irB)];
          const [shortLoi, longLoi] = [Math.min(loiA, loiB), Math.max(loiA, loiB)];
          const [fewDays, manyDays] = [Math.min(daysA, daysB), Math.max(daysA, daysB)];
          expect(completes({ incidenceRate: highIr })).toBeGreaterThanOrEqual(completes({ incidenceRate: lowIr }));
          expect(completes({ lengthOfInterviewMinutes: shortLoi })).toBeGreaterThanOrEqual(completes({ lengthOfInterviewMinutes: longLoi }));
          expect(completes({ fieldingDays: manyDays })).toBeGreaterThanOrEqual(completes({ fieldingDays: fewDays }));
          expect(completes({ excludedRespondentCount: 0 })).toBeGreaterThanOrEqual(completes({}));
          const estimate = estimateFeasibility(input);
          expect(estimate.feasible).toBe(estimate.feasible_completes >= fillingGoal);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('LOI completion factor is 1 up to 10 minutes and falls after', () => {
    expect(lengthOfInterviewCompletionFactor(5)).toBe(1);
    expect(lengthOfInterviewCompletionFactor(10)).toBe(1);
    expect(lengthOfInterviewCompletionFactor(30)).toBeLessThan(0.5);
  });
});

describe('pricing', () => {
  it('lower incidence and longer LOI give a higher CPI (property)', () => {
    fc.assert(
      fc.property(fc.constantFrom(...listLocaleMarkets()), fc.double({ min: 0.01, max: 1, noNaN: true }), fc.double({ min: 0.01, max: 1, noNaN: true }), fc.integer({ min: 1, max: 180 }), fc.integer({ min: 1, max: 180 }),
        (market, irA, irB, loiA, loiB) => {
          const [lowIr, highIr] = [Math.min(irA, irB), Math.max(irA, irB)];
          const [shortLoi, longLoi] = [Math.min(loiA, loiB), Math.max(loiA, loiB)];
          expect(costPerCompleteMinorUnits(market, lowIr, loiA)).toBeGreaterThanOrEqual(costPerCompleteMinorUnits(market, highIr, loiA));
          expect(costPerCompleteMinorUnits(market, irA, longLoi)).toBeGreaterThanOrEqual(costPerCompleteMinorUnits(market, irA, shortLoi));
        }),
      { numRuns: 200 },
    );
    expect(costPerCompleteMinorUnits(usa, 0.05, 30)).toBeGreaterThan(costPerCompleteMinorUnits(usa, 0.5, 10) * 3);
  });

  it('applies the business-unit factor to price predictions', () => {
    expect(businessUnitPriceFactor(2002)).toBeLessThan(businessUnitPriceFactor(2001));
    expect(predictedCostPerCompleteMinorUnits(usa, 0.5, 10, 2002)).toBe(Math.round(costPerCompleteMinorUnits(usa, 0.5, 10) * 0.9));
    const unknown = businessUnitPriceFactor(987_654);
    expect(unknown).toBeGreaterThanOrEqual(0.85);
    expect(unknown).toBeLessThanOrEqual(1.15);
  });
});

describe('readFeasibilityRequest', () => {
  const window = { start_at: '2026-03-02T10:00:00.000Z', end_at: '2026-03-16T10:00:00.000Z' };
  const body = { business_unit_id: 2001, locale: 'en_US', expected_incidence_rate: 0.3, expected_length_of_interview_minutes: 12, filling_goal: 1000, fielding_specification: window };
  const legacyBody = { locale: 'en_US', expected_incidence_rate: 0.3, expected_length_of_interview_minutes: 12, filling_goal: 1000 };
  const reject = (value: unknown, version: '2025-02-17' | '2025-12-18' = '2025-12-18') => {
    try {
      readFeasibilityRequest(value, version, Date.parse('2026-03-02T10:00:00Z'));
    } catch (error) {
      return error as ApiError;
    }
    throw new Error('expected a rejection');
  };

  it('reads the reference\'s body in 2025-12-18: the window from fielding_specification, supplier_ids from allocations', () => {
    const request = readFeasibilityRequest({ ...body, allocations: { supplier_ids: [3, 4] } }, '2025-12-18', 0);
    expect(request.fieldingDays).toBe(14);
    expect(request.supplierIds).toEqual([3, 4]);
    expect(request.market.locale).toBe('en_US');
    expect(request).toMatchObject({ businessUnitId: 2001, referenceShape: true });
  });

  it('defaults the window to 14 days from now in the older versions\' own body', () => {
    const request = readFeasibilityRequest(legacyBody, '2025-02-17', 0);
    expect(request.fieldingDays).toBe(14);
    expect(request.referenceShape).toBeUndefined();
  });

  it('caps filling_goal at 100,000 in 2025-12-18 and 10,000 before', () => {
    expect(readFeasibilityRequest({ ...body, filling_goal: 100_000 }, '2025-12-18', 0).fillingGoal).toBe(100_000);
    expect(reject({ ...body, filling_goal: 100_001 }).invalidParams![0]).toEqual({ name: 'filling_goal', reason: 'must be at most 100000' });
    expect(reject({ ...legacyBody, filling_goal: 10_001 }, '2025-02-17').status).toBe(400);
  });

  it('requires business_unit_id and fielding_specification; refuses project_id, completes_goal, top-level profiles, bad windows, bad supplier ids and unknown locales', () => {
    const { business_unit_id: _b, ...noUnit } = body;
    expect(reject(noUnit).invalidParams).toContainEqual({ name: 'business_unit_id', reason: 'is required' });
    const { fielding_specification: _f, ...noWindow } = body;
    expect(reject(noWindow).invalidParams).toContainEqual({ name: 'fielding_specification', reason: 'is required' });
    expect(reject({ ...body, project_id: 'p1' }).invalidParams![0].name).toBe('project_id');
    expect(reject({ ...body, completes_goal: 10 }).invalidParams![0].name).toBe('completes_goal');
    expect(reject({ ...body, profiles: [] }).invalidParams![0].name).toBe('profiles');
    expect(reject({ ...body, fielding_specification: { start_at: '2026-03-05T00:00:00Z', end_at: '2026-03-04T00:00:00Z' } }).invalidParams![0].name).toBe('fielding_specification.end_at');
    expect(reject({ ...body, business_unit_id: '2001' }).invalidParams![0].name).toBe('business_unit_id');
    expect(reject({ ...body, allocations: { supplier_ids: ['x'] } }).invalidParams![0].name).toBe('allocations.supplier_ids[0]');
    expect(reject({ ...body, locale: 'xx_YY' }).status).toBe(422);
    expect(reject({ ...body, expected_incidence_rate: 0 }).status).toBe(400);
  });

  it('reads profiles under profiling, and in the request version (old names before 2025-12-18)', () => {
    const gender = { object: 'regular', name: 'G', quotas_enabled: false, targets: [{ conditions: [{ object: 'selection', question_id: 43, option: '1' }] }] };
    expect(readFeasibilityRequest({ ...body, profiling: { profile_adjustment_type: 'percentage', profiles: [gender] } }, '2025-12-18', 0).rawProfiles).toHaveLength(1);
    expect(reject({ ...body, profiling: { profiles: [gender] } }).invalidParams).toContainEqual({ name: 'profiling.profile_adjustment_type', reason: 'is required' });
    const legacy = readFeasibilityRequest({ ...legacyBody, profiles: [{ name: 'G', quotas_enabled: false, ungrouped: [{ index: { object: 'selection', question_id: 43, option: '1' } }] }] }, '2025-05-27', 0);
    expect(legacy.rawProfiles).toEqual([{ name: 'G', quotas_enabled: false, object: 'regular', targets: [{ conditions: [{ object: 'selection', question_id: 43, option: '1' }] }] }]);
    expect(reject({ ...body, profiling: { profile_adjustment_type: 'percentage', profiles: [{ ungrouped: [] }] } }).invalidParams![0].name).toBe('ungrouped');
  });
});
