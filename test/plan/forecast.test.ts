// plan/forecast.ts with hand-computed cases: before launch from feasibility's range over the window and the
// calendar's days; during fielding from the recent completes with a Poisson band; the study's forecast; and
// the require_forecast_before_end rule.
import { describe, expect, it } from 'vitest';
import { forecastBeforeLaunch, forecastDuringFielding, forecastEndsBeforeEnd, forecastFromChecks, forecastGateFailures, forecastStudy, studyForecastFromChecks, type TargetGroupForecast } from '../../plan/forecast';
import { readFeasibility } from '../../plan/launch-gates';
import { evaluateServerChecks, skippedServerChecks } from '../../plan/server-checks';
import { judgeGate } from '../../workflows/launch';
import { gateReasons } from '../../workflows/target-group/console';
import type { DesiredTargetGroup } from '../../plan/types';

const USD = (value: string) => ({ value, currency_code: 'USD' });

describe('before launch', () => {
  // A 20-day window, a goal of 400; feasibility: 200-600 completes in the window (10-30 a day), 4.50 USD a complete.
  const input = { key: 'us', goal: 400, start: '2026-12-01T00:00:00Z', end: '2026-12-21T00:00:00Z', feasibility: { minCompletes: 200, maxCompletes: 600, suggestedPrice: USD('4.50') } };

  it('from feasibility alone: the middle rate (20 a day) expected, 30 earliest, 10 latest', () => {
    const f = forecastBeforeLaunch(input);
    expect(f).toMatchObject({
      basis: 'feasibility',
      finish: { expected: '2026-12-21T00:00:00.000Z', earliest: '2026-12-14T08:00:00.000Z', latest: '2027-01-10T00:00:00.000Z' },
      ratePerDay: { expected: 20, low: 10, high: 30 },
      completesByEnd: { expected: 400, low: 200, high: 400 },
      cost: { expected: USD('1800.00'), low: USD('900.00'), high: USD('1800.00') },
      finishesBeforeEnd: true,
      method: "before launch: feasibility's 200–600 completes over the 20-day window (10–30 a day)",
    });
  });

  it('the calendar\'s days give the expected finish: 16 days, within the band', () => {
    const f = forecastBeforeLaunch({ ...input, suggestedDays: 16 });
    expect(f).toMatchObject({ basis: 'calendar', finish: { expected: '2026-12-17T00:00:00.000Z', earliest: '2026-12-14T08:00:00.000Z' }, finishesBeforeEnd: true });
    expect(forecastEndsBeforeEnd(f)).toEqual({ ok: true });
  });

  it('25 calendar days end after end_fielding_at: 320 completes expected by then, and the rule holds the launch', () => {
    const f = forecastBeforeLaunch({ ...input, suggestedDays: 25 });
    expect(f).toMatchObject({ finish: { expected: '2026-12-26T00:00:00.000Z' }, completesByEnd: { expected: 320, low: 200, high: 400 }, finishesBeforeEnd: false });
    expect(f.cost?.expected).toEqual(USD('1440.00'));
    const desired = { key: 'us', launch: { mode: 'auto', requireFeasible: true, endFieldingAt: '2026-12-21T00:00:00Z', requireForecastBeforeEnd: true } } as unknown as DesiredTargetGroup;
    expect(forecastGateFailures(desired, f)).toEqual([
      'the forecast finishes 2026-12-26T00:00:00.000Z (at the earliest 2026-12-14T08:00:00.000Z), after end_fielding_at 2026-12-21T00:00:00Z (require_forecast_before_end)',
    ]);
    expect(forecastGateFailures({ ...desired, launch: { ...desired.launch, requireForecastBeforeEnd: undefined } }, f)).toEqual([]);
  });

  it('without a range and without days there is no forecast, and the rule says so', () => {
    const f = forecastBeforeLaunch({ ...input, feasibility: undefined });
    expect(f).toMatchObject({ basis: 'none', finish: {} });
    expect(forecastEndsBeforeEnd(f).ok).toBe(false);
  });
});

describe('during fielding', () => {
  // 100 completes in the last 3 days (33.3 a day); Poisson band 100 ± 1.96 × 10 = 80.4–119.6 in 3 days.
  const series = [
    { t: '2026-12-02T00:00:00Z', completes: 0 },
    { t: '2026-12-03T00:00:00Z', completes: 30 },
    { t: '2026-12-04T00:00:00Z', completes: 70 },
    { t: '2026-12-05T00:00:00Z', completes: 100 },
  ];
  const input = { key: 'us', goal: 500, end: '2026-12-15T00:00:00Z', now: '2026-12-05T00:00:00Z', series, spend: USD('450.00') };

  it('takes the recent rate with its band, the remaining 400 completes at it, and the cost per complete so far', () => {
    const f = forecastDuringFielding(input);
    expect(f.basis).toBe('fielding');
    // 400 / (100/3) = 12 days; 400 / (119.6/3) = 10.0334 days (10d 0h 48m); 400 / (80.4/3) = 14.9254 days (14d 22h 13m).
    expect(f.finish).toEqual({ expected: '2026-12-17T00:00:00.000Z', earliest: '2026-12-15T00:48:00.000Z', latest: '2026-12-19T22:13:00.000Z' });
    expect(f.ratePerDay?.expected).toBeCloseTo(100 / 3, 9);
    expect(f.ratePerDay?.low).toBeCloseTo(26.8, 9);
    expect(f.ratePerDay?.high).toBeCloseTo(119.6 / 3, 9);
    // 10 days left: 100 + 333 = 433; 100 + 268 = 368; 100 + 398 = 498; at 450.00 / 100 = 4.50 a complete.
    expect(f.completesByEnd).toEqual({ expected: 433, low: 368, high: 498 });
    expect(f.cost).toEqual({ expected: USD('1948.50'), low: USD('1656.00'), high: USD('2241.00') });
    expect(f.finishesBeforeEnd).toBe(false);
    expect(f.method).toBe('fielding: 100 completes in the last 72 h (33.3 a day, 26.8–39.9 at 95%), 400 to go');
  });

  it('takes only the last 72 hours: a fast first day does not carry a slow week', () => {
    const f = forecastDuringFielding({ ...input, series: [{ t: '2026-12-01T00:00:00Z', completes: 0 }, { t: '2026-12-02T00:00:00Z', completes: 300 }, { t: '2026-12-05T00:00:00Z', completes: 330 }] });
    expect(f.ratePerDay?.expected).toBeCloseTo(10, 9); // 30 completes in 3 days
    expect(f.finish.expected).toBe('2026-12-22T00:00:00.000Z'); // 170 to go at 10 a day: 17 days
  });

  it('with no complete in the window: no expected finish, no latest, an earliest from the rule of three', () => {
    const f = forecastDuringFielding({ ...input, series: [{ t: '2026-12-02T00:00:00Z', completes: 0 }, { t: '2026-12-05T00:00:00Z', completes: 0 }] });
    // At most 3 completes in 3 days: 1 a day, 500 to go.
    expect(f.finish).toEqual({ earliest: '2028-04-18T00:00:00.000Z' });
    expect(f.finishesBeforeEnd).toBeUndefined();
    expect(forecastEndsBeforeEnd(f).reason).toMatch(/^no forecast finish/);
  });

  it('a completed target group finished when the goal was first read; the cost is its spend', () => {
    const f = forecastDuringFielding({ ...input, goal: 70 });
    expect(f).toMatchObject({ basis: 'completed', finish: { expected: '2026-12-04T00:00:00.000Z' }, finishesBeforeEnd: true, cost: { expected: USD('450.00') } });
  });

  it('under an hour of readings gives the forecast made before launch', () => {
    const before = forecastBeforeLaunch({ key: 'us', goal: 500, start: '2026-12-05T00:00:00Z', end: '2026-12-15T00:00:00Z', suggestedDays: 8 });
    const f = forecastDuringFielding({ ...input, series: [{ t: '2026-12-04T23:30:00Z', completes: 0 }, { t: '2026-12-05T00:00:00Z', completes: 2 }], fallback: before });
    expect(f).toMatchObject({ basis: 'calendar', completes: 2, finish: before.finish });
    expect(f.method).toContain('under an hour of readings');
  });
});

describe('the study', () => {
  const tg = (key: string, expected: string, latest: string | undefined, cost: string): TargetGroupForecast => ({
    key,
    basis: 'fielding',
    goal: 100,
    completes: 10,
    finish: { expected, earliest: expected, ...(latest ? { latest } : {}) },
    cost: { expected: USD(cost), low: USD(cost), high: USD(cost) },
    finishesBeforeEnd: true,
    method: 'x',
  });

  it('finishes with its last target group and costs the sum', () => {
    const f = forecastStudy([tg('us', '2026-12-10T00:00:00.000Z', '2026-12-12T00:00:00.000Z', '100.50'), tg('uk', '2026-12-11T00:00:00.000Z', '2026-12-11T12:00:00.000Z', '200.25')]);
    expect(f.finish).toEqual({ expected: '2026-12-11T00:00:00.000Z', earliest: '2026-12-11T00:00:00.000Z', latest: '2026-12-12T00:00:00.000Z' });
    expect(f.cost?.expected).toEqual(USD('300.75'));
    expect(f.finishesBeforeEnd).toBe(true);
  });

  it('has no latest finish when a target group has none', () => {
    expect(forecastStudy([tg('us', '2026-12-10T00:00:00.000Z', undefined, '1'), tg('uk', '2026-12-11T00:00:00.000Z', '2026-12-12T00:00:00.000Z', '1')]).finish.latest).toBeUndefined();
  });
});

describe('from the plan\'s server checks', () => {
  it('reads the feasibility range and price and the calendar days over the window feasibility was asked for', () => {
    const desired = {
      key: 'us',
      draft: { filling_goal: 400, expected_incidence_rate: 0.35, locale: 'en_US', fielding_specification: { start_at: '2026-12-01T00:00:00Z', end_at: '2026-12-21T00:00:00Z' } },
      idLists: {},
      exclusionGroups: [],
      launch: { mode: 'manual', requireFeasible: true, endFieldingAt: '2026-12-21T00:00:00Z' },
    } as unknown as DesiredTargetGroup;
    const now = Date.parse('2026-11-20T00:00:00Z');
    const checks = evaluateServerChecks(
      desired,
      {
        feasibility: { ok: true, value: { suggested_completes_goal_range: { min: 200, max: 600 }, suggested_price: USD('4.50') } },
        suggestedDays: { ok: true, value: { days: 16 } },
      },
      { now },
    );
    const f = forecastFromChecks(desired, checks, now);
    expect(f).toMatchObject({ basis: 'calendar', finish: { expected: '2026-12-17T00:00:00.000Z', earliest: '2026-12-14T08:00:00.000Z', latest: '2027-01-10T00:00:00.000Z' } });
    expect(f.cost?.expected).toEqual(USD('1800.00'));
  });
});

/** A target group of `goal` completes whose fielding ends 2026-12-11, with or without the launch rule. */
const endingTargetGroup = (goal: number, rule: boolean) =>
  ({
    key: 'us',
    draft: { filling_goal: goal, expected_incidence_rate: 0.35, locale: 'en_US' },
    idLists: {},
    exclusionGroups: [],
    launch: { mode: 'auto', requireFeasible: false, endFieldingAt: '2026-12-11T00:00:00.000Z', ...(rule ? { requireForecastBeforeEnd: true } : {}) },
  }) as unknown as DesiredTargetGroup;

describe('the launch rule at the gate (require_forecast_before_end)', () => {
  // The gate reads one feasibility answer: its range over the window gives the forecast, as in `plan`.
  const desired = (goal: number, rule = true) => endingTargetGroup(goal, rule);
  const now = Date.parse('2026-12-01T00:00:00.000Z');
  // 10 days, 900–1000 completes: 95 a day expected, so 950 completes are the most that finish by the end.
  const answer = { feasibility: { suggested_completes_goal_range: { min: 900, max: 1000 }, suggested_price: USD('2.00') } };

  it('holds a launch whose forecast finishes after end_fielding_at, with the reason the console maps', () => {
    const gate = judgeGate(desired(980), answer, now);
    expect(gate.forecast).toMatchObject({ basis: 'feasibility', finish: { expected: '2026-12-11T07:35:00.000Z', earliest: '2026-12-10T19:12:00.000Z', latest: '2026-12-11T21:20:00.000Z' }, finishesBeforeEnd: false });
    expect(gate.held).toEqual(['the forecast finishes 2026-12-11T07:35:00.000Z (at the earliest 2026-12-10T19:12:00.000Z), after end_fielding_at 2026-12-11T00:00:00.000Z (require_forecast_before_end)']);
    expect(gateReasons({ status: { key: 'us', phase: 'gate_blocked', message: gate.held.join('; '), feasibility: gate.feasibility }, desired: desired(980) })).toEqual(['forecast_after_end']);
  });

  it('lets it launch when the forecast finishes in time, or when the rule is not set', () => {
    const inTime = judgeGate(desired(900), answer, now);
    expect(inTime.forecast?.finish.expected).toBe('2026-12-10T11:22:00.000Z');
    expect(inTime.held).toEqual([]);
    expect(judgeGate(desired(980, false), answer, now).held).toEqual([]);
  });

  it('holds when feasibility gives no range, since nothing says it finishes in time', () => {
    const gate = judgeGate(desired(500), { feasibility: { suggested_price: USD('2.00') } }, now);
    expect(gate.forecast?.basis).toBe('none');
    expect(gate.held).toEqual(["no forecast finish (no forecast: feasibility gave no completes range and the calendar no days) (require_forecast_before_end)"]);
  });

  it('plan judges the same answer alike: the server checks give the same forecast', () => {
    const checks = evaluateServerChecks(desired(980), { feasibility: { ok: true, value: answer.feasibility } }, { now });
    expect(forecastFromChecks(desired(980), checks, now)).toEqual(judgeGate(desired(980), answer, now).forecast);
  });
});

describe('the cost band before launch', () => {
  it('takes the fewest completes at the low end of suggested_price_range and the most at its high end', () => {
    const f = forecastBeforeLaunch({
      key: 'us',
      goal: 1000,
      start: '2026-12-01T00:00:00.000Z',
      end: '2026-12-11T00:00:00.000Z',
      // 60–100 a day over ten days: 600 to 1,000 completes by the end, 800 expected.
      feasibility: { minCompletes: 600, maxCompletes: 1000, suggestedPrice: USD('2.00'), suggestedPriceRange: { min: USD('1.80'), max: USD('2.30') } },
    });
    expect(f.completesByEnd).toEqual({ expected: 800, low: 600, high: 1000 });
    expect(f.cost).toEqual({ expected: USD('1600.00'), low: USD('1080.00'), high: USD('2300.00') });
    expect(f.method).toContain('a CPI of 1.80–2.30 USD');
    // A range in another currency is not used: the suggested price alone.
    const other = forecastBeforeLaunch({ key: 'us', goal: 1000, start: '2026-12-01T00:00:00.000Z', end: '2026-12-11T00:00:00.000Z', feasibility: { minCompletes: 600, maxCompletes: 1000, suggestedPrice: USD('2.00'), suggestedPriceRange: { min: { value: '1.00', currency_code: 'EUR' }, max: { value: '3.00', currency_code: 'EUR' } } } });
    expect(other.cost).toEqual({ expected: USD('1600.00'), low: USD('1200.00'), high: USD('2000.00') });
  });

  it('the gate reads the range from the feasibility answer', () => {
    const desired = { key: 'us', draft: { filling_goal: 400 }, idLists: {}, exclusionGroups: [], launch: { mode: 'auto', requireFeasible: true, endFieldingAt: '2026-12-11T00:00:00.000Z' } } as unknown as DesiredTargetGroup;
    const gate = judgeGate(desired, { feasibility: { suggested_price: USD('2.00'), suggested_price_range: { min: USD('1.80'), max: USD('2.30') }, suggested_completes_goal_range: { min: 900, max: 1000 } } }, Date.parse('2026-12-01T00:00:00.000Z'));
    expect(readFeasibility({ suggested_price: USD('2.00'), suggested_price_range: { min: USD('1.80'), max: USD('2.30') } }, desired).suggestedPriceRange).toEqual({ min: USD('1.80'), max: USD('2.30') });
    expect(gate.forecast?.cost).toEqual({ expected: USD('800.00'), low: USD('720.00'), high: USD('920.00') });
  });
});

describe("plan's forecast check", () => {
  const desired = (goal: number, rule = false) => endingTargetGroup(goal, rule);
  const now = Date.parse('2026-12-01T00:00:00.000Z');
  const feasibility = { suggested_completes_goal_range: { min: 900, max: 1000 }, suggested_price: USD('2.00'), suggested_price_range: { min: USD('1.80'), max: USD('2.30') } };
  const forecastOf = (goal: number, rule = false, answers: Parameters<typeof evaluateServerChecks>[1] = { feasibility: { ok: true, value: feasibility } }) =>
    evaluateServerChecks(desired(goal, rule), answers, { now }).checks.find((c) => c.name === 'forecast')!;

  it('shows the finish and the cost with their ranges, and the method', () => {
    const check = forecastOf(900);
    expect(check).toMatchObject({ outcome: 'pass', summary: 'finishes 2026-12-10T11:22:00.000Z (2026-12-10T00:00:00.000Z to 2026-12-11T00:00:00.000Z), costs 1800.00 USD (1620.00 to 2070.00 USD)' });
    expect(check.details).toEqual(["before launch: feasibility's 900–1000 completes over the 10-day window (90–100 a day); a CPI of 1.80–2.30 USD"]);
    expect((check.data as unknown as TargetGroupForecast).basis).toBe('feasibility');
  });

  it('blocks when the launch rule fails, as the gate will hold; warns without the rule', () => {
    expect(forecastOf(980, true)).toMatchObject({ outcome: 'blocking', reason: expect.stringMatching(/^the forecast finishes 2026-12-11T07:35:00\.000Z .*\(require_forecast_before_end\)$/) });
    expect(forecastOf(980)).toMatchObject({ outcome: 'warning', summary: expect.stringMatching(/: after end_fielding_at 2026-12-11T00:00:00.000Z$/) });
  });

  it('judges the rule as the gate will, on feasibility alone, when the calendar moves the finish shown', () => {
    // The calendar's 12 days put the finish shown after the end; feasibility alone (what the gate reads) before it.
    const check = forecastOf(900, true, { feasibility: { ok: true, value: feasibility }, suggestedDays: { ok: true, value: { days: 12 } } });
    expect(check).toMatchObject({ outcome: 'warning', summary: expect.stringMatching(/^finishes 2026-12-13T00:00:00\.000Z .*: after end_fielding_at/) });
    expect(check.details).toContain('require_forecast_before_end is judged as the launch gate will, on feasibility alone: finishes 2026-12-10T11:22:00.000Z');
    expect(judgeGate(desired(900, true), { feasibility }, now).held).toEqual([]);
  });

  it('is skipped or unavailable as feasibility is', () => {
    expect(forecastOf(900, true, {})).toMatchObject({ outcome: 'skipped' });
    expect(forecastOf(900, true, { feasibility: { ok: false, reason: 'HTTP 503' } })).toMatchObject({ outcome: 'unavailable', summary: 'unavailable: no feasibility answer (unavailable: HTTP 503)' });
    // A range of no completes: no finish; the rule blocks on it.
    expect(forecastOf(900, true, { feasibility: { ok: true, value: { suggested_completes_goal_range: { min: 0, max: 0 }, suggested_price: USD('2.00') } } })).toMatchObject({ outcome: 'blocking', summary: 'no forecast: feasibility gave no completes range and the calendar no days' });
  });

  it('the study: its target groups\' forecasts summed, none while some target group has none', () => {
    const a = evaluateServerChecks(desired(900), { feasibility: { ok: true, value: feasibility } }, { now });
    const b = { ...evaluateServerChecks({ ...desired(450), key: 'uk' }, { feasibility: { ok: true, value: feasibility } }, { now }), key: 'uk' };
    const study = studyForecastFromChecks([a, b]);
    expect(study).toMatchObject({ finish: { expected: '2026-12-10T11:22:00.000Z' }, cost: { expected: USD('2700.00'), low: USD('2430.00'), high: USD('3105.00') }, finishesBeforeEnd: true });
    expect(studyForecastFromChecks([a, skippedServerChecks('de', 'already live: no launch ahead to check')])).toMatchObject({ finish: {}, method: 'no forecast for de' });
    expect(studyForecastFromChecks([skippedServerChecks('de', 'offline')])).toBeUndefined();
  });
});
