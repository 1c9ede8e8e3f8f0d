// Quotas forecast (plan/quotas.ts): each quota's completes at the end date at its share of the target group's
// pace, capped at its goal, and its shortfall; the worst cell; and the quota_behind guard's judgement in
// plan/guards.ts evaluateGuards (evidence with value and threshold, waiting for min_completes, quiet after a resume
// until a revision changes it).
import { describe, expect, it } from 'vitest';
import { forecastQuotas, mostBehind, quotaPaceOf, worstQuota, type QuotaFigures, type QuotaPace } from '../../plan/quotas';
import { forecastDuringFielding } from '../../plan/forecast';
import { acknowledgeGuards, evaluateGuards, guardText, type GuardReading } from '../../plan/guards';
import type { DesiredGuard } from '../../plan/types';

const NOW = '2027-04-10T00:00:00.000Z';
const END = '2027-04-20T00:00:00.000Z'; // 10 days left
/** 200 completes so far, 40 a day (band 30–50): 400 more by the end. */
const PACE: QuotaPace = { now: NOW, end: END, completes: 200, ratePerDay: { expected: 40, low: 30, high: 50 } };
const QUOTAS: QuotaFigures[] = [
  { profile: 'Age', quota: '18-34', goal: 300, completes: 40, prescreens: 130 }, // 20% of completes: 40 + 80 = 120
  { profile: 'Age', quota: '35-54', goal: 350, completes: 80, prescreens: 150 }, // 40%: 80 + 160 = 240
  { profile: 'Age', quota: '55+', goal: 350, completes: 80, prescreens: 140 }, // 40%: 240
  { profile: 'Region', quota: 'North', goal: 100, completes: 100 }, // full
  { profile: 'Region', quota: 'None', goal: 0, completes: 0 },
];

describe('forecastQuotas', () => {
  it('gives each quota its share of the pace to the end date, capped at its goal, and its shortfall', () => {
    const [young, middle, old, north, none] = forecastQuotas(QUOTAS, PACE);
    expect(young).toEqual({
      profile: 'Age',
      quota: '18-34',
      goal: 300,
      completes: 40,
      prescreens: 130,
      basis: 'forecast',
      fill: 0.1333333333,
      share: 0.2,
      completesByEnd: { expected: 120, low: 100, high: 140 },
      shortfall: 180,
      shortfallFraction: 0.6,
    });
    expect(middle).toMatchObject({ basis: 'forecast', share: 0.4, completesByEnd: { expected: 240, low: 200, high: 280 }, shortfall: 110, shortfallFraction: 0.3142857143 });
    expect(old.shortfall).toBe(110);
    expect(north).toMatchObject({ basis: 'full', fill: 1, completesByEnd: { expected: 100, low: 100, high: 100 }, shortfall: 0, shortfallFraction: 0 });
    expect(none).toEqual({ profile: 'Region', quota: 'None', goal: 0, completes: 0, basis: 'no_goal' });
  });

  it('caps a quota at its goal: a fast quota is forecast to fill, not past it', () => {
    const [f] = forecastQuotas([{ profile: 'Age', quota: '18-34', goal: 100, completes: 90 }], PACE);
    expect(f).toMatchObject({ completesByEnd: { expected: 100, low: 100, high: 100 }, shortfall: 0, shortfallFraction: 0 });
  });

  it('knows no share before the first complete, and no pace without a rate; past the end date nothing more comes', () => {
    expect(forecastQuotas([QUOTAS[0]], { ...PACE, completes: 0 })[0]).toMatchObject({ basis: 'no_share', fill: 0.1333333333 });
    const noPace = forecastQuotas([QUOTAS[0]], { now: NOW, end: END, completes: 200 })[0];
    expect(noPace).toMatchObject({ basis: 'no_pace', share: 0.2 });
    expect(noPace.shortfall).toBeUndefined();
    const over = forecastQuotas([QUOTAS[0]], { now: '2027-04-21T00:00:00Z', end: END, completes: 200 })[0];
    expect(over).toMatchObject({ basis: 'forecast', completesByEnd: { expected: 40, low: 40, high: 40 }, shortfall: 260 });
  });

  it('takes the pace from the fielding forecast (plan/forecast.ts)', () => {
    const forecast = forecastDuringFielding({
      key: 'us',
      goal: 1000,
      end: END,
      now: NOW,
      series: [
        { t: '2027-04-07T00:00:00Z', completes: 80 },
        { t: NOW, completes: 200 },
      ],
    });
    const pace = quotaPaceOf(forecast, NOW);
    expect(pace).toEqual({ now: NOW, end: END, completes: 200, ratePerDay: forecast.ratePerDay });
    expect(pace?.ratePerDay?.expected).toBeCloseTo(40, 9);
    expect(forecastQuotas([QUOTAS[0]], pace!)[0].completesByEnd?.expected).toBe(120);
    expect(quotaPaceOf({ ...forecast, endFieldingAt: undefined }, NOW)).toBeUndefined();
  });
});

describe('worstQuota and mostBehind', () => {
  it('the worst cell is the lowest fill, in percent to one decimal; quotas without a goal are left out', () => {
    expect(worstQuota(QUOTAS)).toEqual({ profile: 'Age', quota: '18-34', goal: 300, completes: 40, fillPercent: 13.3 });
    expect(worstQuota([QUOTAS[4]])).toBeUndefined();
    expect(worstQuota([])).toBeUndefined();
  });

  it('the quota most behind is the largest shortfall share of its goal', () => {
    expect(mostBehind(forecastQuotas(QUOTAS, PACE))?.quota).toBe('18-34');
    // With no group complete only the full quota is forecast (short by 0); with no quota forecast, none.
    expect(mostBehind(forecastQuotas(QUOTAS, { ...PACE, completes: 0 }))?.quota).toBe('North');
    expect(mostBehind(forecastQuotas(QUOTAS.slice(0, 3), { ...PACE, completes: 0 }))).toBeUndefined();
  });
});

describe('the quota_behind guard', () => {
  const guard: DesiredGuard = { name: 'quotas', kind: 'quota_behind', action: 'pause', shortfallAbove: 0.1, minCompletes: 30 };
  const reading = (figures: QuotaFigures[], pace: QuotaPace = PACE): GuardReading => ({ at: NOW, quotas: { figures, pace } });

  it('says what it does', () => {
    expect(guardText(guard)).toBe('quotas: a quota forecast to miss more than 10% of its goal by the end date, after 30 completes; pauses');
  });

  it('trips on the quota most behind, with its evidence: value and threshold as shares of the goal', () => {
    const e = evaluateGuards([guard], reading(QUOTAS));
    expect(e.pause).toBe(true);
    expect(e.tripped).toEqual([
      {
        guard: 'quotas',
        kind: 'quota_behind',
        action: 'pause',
        at: NOW,
        value: 0.6,
        threshold: 0.1,
        unit: 'rate',
        source: 'quotas',
        figures: { completes: 200, quota: { profile: 'Age', quota: '18-34', goal: 300, completes: 40, completesByEnd: 120, end: END } },
        text: `quota Age / 18-34 is forecast at 120 of 300 completes by ${END}: short by 60%, more than 10%`,
      },
    ]);
  });

  it('is ok at or under its threshold (strict), waits for min_completes, and is unjudged without quota figures or pace', () => {
    // 18-34 at 90 of 100 by the end: short by exactly 10%.
    const onTrack: QuotaFigures[] = [{ profile: 'Age', quota: '18-34', goal: 100, completes: 10 }];
    const atThreshold = evaluateGuards([guard], reading(onTrack, { ...PACE, ratePerDay: { expected: 40, low: 40, high: 40 }, completes: 50 }));
    // share 10/50 = 0.2 of 40 a day for 10 days = 80: 90 of 100.
    expect(atThreshold.outcomes[0]).toMatchObject({ state: 'ok' });
    expect(atThreshold.outcomes[0].detail).toContain('short by 10%, not more than 10%');
    expect(evaluateGuards([guard], reading(QUOTAS, { ...PACE, completes: 29 })).outcomes[0]).toMatchObject({ state: 'waiting', detail: '29 of 30 completes' });
    expect(evaluateGuards([guard], { at: NOW }).outcomes[0]).toMatchObject({ state: 'unjudged', detail: 'the quotas were not read' });
    // No pace: the full quota is short by nothing, the others cannot be forecast, so it is not judged ok.
    const noPace = evaluateGuards([guard], reading(QUOTAS, { now: NOW, end: END, completes: 200 })).outcomes[0];
    expect(noPace).toMatchObject({ state: 'unjudged' });
    expect(noPace.detail).toMatch(/^3 quotas not forecast yet \(no pace\); quota Region \/ North is forecast at 100 of 100/);
    expect(evaluateGuards([guard], reading(QUOTAS.slice(0, 3), { now: NOW, end: END, completes: 200 })).outcomes[0]).toMatchObject({ state: 'unjudged', detail: '3 quotas not forecast yet (no pace)' });
    expect(evaluateGuards([guard], reading([])).outcomes[0]).toMatchObject({ state: 'unjudged', detail: 'the target group has no quota' });
  });

  it('trips once, stays tripped, is quiet after a resume, and re-arms when a revision changes it', () => {
    const first = evaluateGuards([guard], reading(QUOTAS));
    const again = evaluateGuards([guard], reading(QUOTAS), first.memory);
    expect(again.tripped).toEqual([]);
    expect(again.active).toHaveLength(1);
    const resumed = acknowledgeGuards(again.memory, '2027-04-10T01:00:00Z');
    const after = evaluateGuards([guard], reading(QUOTAS), resumed);
    expect(after.outcomes[0].state).toBe('acknowledged');
    expect(after.pause).toBe(false);
    const changed = evaluateGuards([{ ...guard, shortfallAbove: 0.2 }], reading(QUOTAS), after.memory);
    expect(changed.tripped).toHaveLength(1);
  });

  it('notify-only: trips without pausing', () => {
    const e = evaluateGuards([{ ...guard, action: 'notify' }], reading(QUOTAS));
    expect(e.tripped).toHaveLength(1);
    expect(e.pause).toBe(false);
  });
});
