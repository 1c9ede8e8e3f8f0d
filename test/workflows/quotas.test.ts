// The quota watch's pure parts (workflows/target-group/quotas.ts): when the quotas are read (quotas in the profiles,
// live or paused, the current API version, at most once per watch interval, a failed try counting), what status holds
// of a read (forecast with the pace, capped with the most behind kept, the worst cell over all), what the guards
// judge from it, and the current details' quota line (workflows/target-group/console.ts quotaLine).
import { describe, expect, it } from 'vitest';
import type { QuotaFigures, QuotaPace } from '../../plan/quotas';
import { desiredHasQuotas, MAX_QUOTA_CELLS, quotaPaceFrom, quotaReadDue, quotaReadingOf, quotaView } from '../../workflows/target-group/quotas';
import { quotaLine } from '../../workflows/target-group/console';
import { evaluateGuards } from '../../plan/guards';
import type { DesiredGuard } from '../../plan/types';
import type { TargetGroupStatus } from '../../workflows/messages';

const AGE = {
  object: 'regular', name: 'Age', quotas_enabled: true,
  targets: [
    { text: '18-34', conditions: [{ object: 'range', question_id: 42, min: 18, max: 34 }], quota: { name: 'age 18-34', completes_goal: 300 } },
    { text: '55-99', conditions: [{ object: 'range', question_id: 42, min: 55, max: 99 }], quota: { name: 'age 55+', completes_goal: 350 } },
  ],
};
const NO_QUOTAS = { object: 'regular', name: 'Gender', quotas_enabled: false, targets: [{ text: 'f', conditions: [{ object: 'selection', question_id: 43, option: '2' }] }] };

describe('desiredHasQuotas', () => {
  it('is true for a profile with quotas_enabled and a quota, or a profile template; false otherwise', () => {
    expect(desiredHasQuotas({ profiles: [AGE] })).toBe(true);
    expect(desiredHasQuotas({ profiles: [NO_QUOTAS] })).toBe(false);
    expect(desiredHasQuotas({ profiles: [{ ...AGE, quotas_enabled: false }] })).toBe(false);
    expect(desiredHasQuotas({})).toBe(false);
    expect(desiredHasQuotas({ profiles: [], profileTemplateIds: ['0f8fad5b-d9cb-469f-a165-70867728950e'] })).toBe(true);
  });
});

describe('quotaReadDue', () => {
  const base = { desired: { profiles: [AGE] }, phase: 'live' as const, apiVersion: '2025-12-18' as const, intervalMs: 60_000 };
  const t0 = Date.parse('2027-04-06T10:00:00Z');
  it('reads a live or paused target group with quotas on the current API version', () => {
    expect(quotaReadDue(base, t0)).toBe(true);
    expect(quotaReadDue({ ...base, phase: 'paused' }, t0)).toBe(true);
    for (const phase of ['draft', 'scheduled', 'launching', 'completed', 'failed'] as const) expect(quotaReadDue({ ...base, phase }, t0), phase).toBe(false);
    expect(quotaReadDue({ ...base, desired: { profiles: [NO_QUOTAS] } }, t0)).toBe(false);
    expect(quotaReadDue({ ...base, apiVersion: '2025-05-27' }, t0)).toBe(false);
  });
  it('not more often than the watch interval, counting from the last read or the last failed try', () => {
    const last = { readAt: '2027-04-06T09:59:30.000Z', cells: [] };
    expect(quotaReadDue({ ...base, last }, t0)).toBe(false);
    expect(quotaReadDue({ ...base, last }, t0 + 30_000)).toBe(true);
    const failed = { readAt: '2027-04-06T09:00:00.000Z', cells: [], error: 'timed out', failedAt: '2027-04-06T09:59:50.000Z' };
    expect(quotaReadDue({ ...base, last: failed }, t0)).toBe(false);
    expect(quotaReadDue({ ...base, last: failed }, t0 + 50_000)).toBe(true);
  });
});

const PACE: QuotaPace = { now: '2027-04-06T00:00:00.000Z', end: '2027-04-26T00:00:00.000Z', completes: 200, ratePerDay: { expected: 10, low: 8, high: 12 } };
const fig = (quota: string, goal: number, completes: number): QuotaFigures => ({ profile: 'Age', quota, goal, completes, prescreens: completes * 2 });

describe('quotaView', () => {
  it('forecasts each quota with the pace, names the worst cell by fill, keeps the exchange order and what was not reported', () => {
    // 20 days left at 10 a day: the group gains 200; 18-34 has 150 of 200 completes (75%): +150 -> 300 of 300;
    // 55+ has 10 (5%): +10 -> 20 of 350, short by 330.
    const view = quotaView({ quotas: [fig('age 18-34', 300, 150), fig('age 55+', 350, 10)], notReported: 1 }, PACE, '2027-04-06T00:00:05.000Z');
    expect(view.readAt).toBe('2027-04-06T00:00:05.000Z');
    expect(view.pace).toEqual(PACE);
    expect(view.cells.map((c) => [c.quota, c.basis, c.completesByEnd?.expected, c.shortfall])).toEqual([['age 18-34', 'forecast', 300, 0], ['age 55+', 'forecast', 20, 330]]);
    expect(view.cells[1].prescreens).toBe(20);
    expect(view.worst).toEqual({ profile: 'Age', quota: 'age 55+', goal: 350, completes: 10, fillPercent: 2.9 });
    expect(view.notReported).toBe(1);
    expect(view.omitted).toBeUndefined();
  });

  it('without a pace shows each quota\'s fill only (no forecast), a full one as full', () => {
    const view = quotaView({ quotas: [fig('a', 100, 100), fig('b', 100, 40), fig('c', 0, 3)], notReported: 0 }, undefined, '2027-04-06T00:00:00.000Z');
    expect(view.cells.map((c) => [c.basis, c.fill, c.shortfall])).toEqual([['full', 1, 0], ['no_pace', 0.4, undefined], ['no_goal', undefined, undefined]]);
    expect(view.pace).toBeUndefined();
    expect(quotaReadingOf(view)).toBeUndefined();
  });

  it(`keeps at most ${MAX_QUOTA_CELLS} cells, the most behind first, in the exchange's order, and counts the rest`, () => {
    // 60 quotas of goal 100; quota i has 100 - i completes (fuller first): the behind ones are the last.
    const quotas = Array.from({ length: 60 }, (_, i) => fig(`q${i}`, 100, 100 - i));
    const view = quotaView({ quotas, notReported: 0 }, { ...PACE, completes: 10_000, ratePerDay: { expected: 0, low: 0, high: 0 } }, PACE.now);
    expect(view.cells).toHaveLength(MAX_QUOTA_CELLS);
    expect(view.omitted).toBe(10);
    // q0 is full (shortfall 0) and q1..q9 nearly so: those ten are left out; the rest stay in order.
    expect(view.cells.map((c) => c.quota)).toEqual(Array.from({ length: 50 }, (_, i) => `q${i + 10}`));
    // The worst cell is taken over all the quotas read.
    expect(view.worst?.quota).toBe('q59');
  });
});

describe('quotaPaceFrom', () => {
  it('is the fielding forecast\'s pace and end date while fielding', () => {
    const status = { key: 'us', phase: 'live', liveAt: '2027-04-05T00:00:00.000Z', events: { received: 0, sessionsByStatus: {} }, updatedAt: '2027-04-05T00:00:00.000Z' } as TargetGroupStatus;
    const series = [{ t: '2027-04-05T00:00:00.000Z', completes: 0 }, { t: '2027-04-06T00:00:00.000Z', completes: 100 }];
    const performance = { readAt: '2027-04-06T00:00:00.000Z', completes: 100, phase: 'live' } as never;
    const pace = quotaPaceFrom({ status, report: { expected: { fillingGoal: 1000, endFieldingAt: '2027-04-26T00:00:00.000Z' }, series, performance } }, '2027-04-06T00:00:01.000Z');
    expect(pace).toMatchObject({ now: '2027-04-06T00:00:00.000Z', end: '2027-04-26T00:00:00.000Z', completes: 100 });
    expect(pace?.ratePerDay?.expected).toBeCloseTo(100, 6);
  });
});

describe('quota_behind judged from the status', () => {
  const guard: DesiredGuard = { name: 'quotas_on_track', kind: 'quota_behind', action: 'notify', shortfallAbove: 0.1, minCompletes: 30 } as DesiredGuard;
  it('trips on the quota most behind, with its evidence, from what status holds', () => {
    const view = quotaView({ quotas: [fig('age 18-34', 300, 150), fig('age 55+', 350, 10)], notReported: 0 }, PACE, PACE.now);
    const evaluation = evaluateGuards([guard], { at: PACE.now, quotas: quotaReadingOf(view) });
    expect(evaluation.tripped).toHaveLength(1);
    expect(evaluation.tripped[0]).toMatchObject({ kind: 'quota_behind', source: 'quotas', figures: { quota: { profile: 'Age', quota: 'age 55+', goal: 350, completes: 10, completesByEnd: 20, end: PACE.end } } });
  });
  it('is not judged before a read', () => {
    expect(evaluateGuards([guard], { at: PACE.now, quotas: quotaReadingOf(undefined) }).outcomes[0].state).toBe('unjudged');
  });
});

describe('the current details\' quota line', () => {
  it('names the worst cell and the shortfall of the one most behind; says a failed read', () => {
    const view = quotaView({ quotas: [fig('age 18-34', 300, 150), fig('age 55+', 350, 10)], notReported: 0 }, PACE, PACE.now);
    expect(quotaLine(view)).toBe('worst quota: Age / age 55+ 10 of 350 (2.9%), forecast short by 330 (94.3%) by 2027-04-26');
    expect(quotaLine({ ...view, error: 'list_profiles timed out' })).toMatch(/, last read failed: list_profiles timed out$/);
    expect(quotaLine({ readAt: PACE.now, cells: [], error: 'list_profiles timed out' })).toBe('quotas not read: list_profiles timed out');
    expect(quotaLine(undefined)).toBe('');
  });
});
