// The forecast the study's status and report queries show (workflows/forecast.ts): computed from the copies of
// the target groups' status and readings the study holds, by the function the target group's console uses.
import { describe, expect, it } from 'vitest';
import { forecastFromFeasibility } from '../../plan/forecast';
import type { DesiredTargetGroup } from '../../plan/types';
import { fieldingEnd, targetGroupForecast, withForecasts } from '../../workflows/forecast';
import type { StudyStatus, TargetGroupReportData, TargetGroupStatus } from '../../workflows/messages';
import { consoleValues } from '../../workflows/target-group/console';

const EUR = (value: string) => ({ value, currency_code: 'EUR' });
const series = [
  { t: '2026-11-20T10:00:00.000Z', completes: 0 },
  { t: '2026-11-20T12:00:00.000Z', completes: 40 },
  { t: '2026-11-20T14:00:00.000Z', completes: 100 },
];
const report: Pick<TargetGroupReportData, 'expected' | 'series' | 'performance'> = {
  expected: { fillingGoal: 400, endFieldingAt: '2026-11-30T00:00:00.000Z' },
  series,
  performance: { readAt: '2026-11-20T14:00:00.000Z', entrants: 300, prescreens: 200, completes: 100, respondents: [], completesCost: EUR('250.00') },
};
const tg = (key: string, patch: Partial<TargetGroupStatus> = {}): TargetGroupStatus => ({ key, phase: 'live', liveAt: '2026-11-20T10:00:00.000Z', events: { received: 0, sessionsByStatus: {} }, updatedAt: '2026-11-20T14:00:00.000Z', ...patch });
const study = (targetGroups: TargetGroupStatus[]): StudyStatus => ({
  studyId: 's',
  accountId: 'a',
  phase: 'converged',
  writes: 0,
  targetGroups: Object.fromEntries(targetGroups.map((t) => [t.key, t])),
  exclusionGroups: {},
  updatedAt: '2026-11-20T14:00:00.000Z',
});

describe('the forecast of the study\'s status', () => {
  it('is the one the target group\'s console computes from the same readings', () => {
    const shown = withForecasts(study([tg('us')]), { us: report });
    const console = consoleValues({
      status: tg('us'),
      desired: { draft: { filling_goal: 400 }, launch: { mode: 'auto', requireFeasible: true, endFieldingAt: '2026-11-30T00:00:00.000Z' } } as unknown as Pick<DesiredTargetGroup, 'draft' | 'launch'>,
      performance: report.performance,
      series,
    });
    expect(shown.targetGroups.us.forecast).toEqual(console.forecast);
    // 100 completes in 4 h: 300 to go at 25 an hour.
    expect(shown.targetGroups.us.forecast).toMatchObject({ basis: 'fielding', finish: { expected: '2026-11-21T02:00:00.000Z' }, cost: { expected: EUR('1000.00') } });
    expect(shown.forecast).toMatchObject({ finish: { expected: '2026-11-21T02:00:00.000Z' }, cost: { expected: EUR('1000.00') }, finishesBeforeEnd: true });
  });

  it('before launch is the gate\'s forecast; the study has no finish while a target group has none', () => {
    const desired = { key: 'uk', draft: { filling_goal: 100 }, launch: { mode: 'auto', requireFeasible: true, endFieldingAt: '2026-12-01T00:00:00.000Z' } } as unknown as DesiredTargetGroup;
    const launchForecast = forecastFromFeasibility(desired, { minCompletes: 90, feasibleCompletes: 110, suggestedPrice: EUR('3.00') }, Date.parse('2026-11-21T00:00:00.000Z'));
    const gated = tg('uk', { phase: 'gate_blocked', launchForecast });
    // Made again at the gate's clock, it is the gate's forecast.
    expect(targetGroupForecast({ status: gated, now: '2026-11-21T00:00:00.000Z' })).toEqual(launchForecast);
    const both = withForecasts(study([tg('us'), gated]), { us: report }, '2026-11-21T00:00:00.000Z');
    expect(both.targetGroups.uk.forecast).toEqual(launchForecast);
    expect(both.forecast?.finish.expected).toBe('2026-12-01T00:00:00.000Z');
    const partial = withForecasts(study([tg('us'), tg('de', { phase: 'draft' })]), { us: report });
    expect(partial.targetGroups.de.forecast).toBeUndefined();
    expect(partial.forecast).toMatchObject({ finish: {}, method: 'no forecast yet for de' });
    expect(partial.forecast?.cost).toBeUndefined();
  });

  it('has none without readings or a gate, and changes nothing it was given', () => {
    const status = study([tg('us', { phase: 'draft', liveAt: undefined })]);
    expect(withForecasts(status, {})).toBe(status);
    const before = JSON.stringify(study([tg('us')]));
    const input = study([tg('us')]);
    withForecasts(input, { us: report });
    expect(JSON.stringify(input)).toBe(before);
  });

  it('fielding ends at end_fielding_at, else the default window from when it went live', () => {
    expect(fieldingEnd('2026-12-01T00:00:00Z', '2026-11-20T10:00:00.000Z')).toBe('2026-12-01T00:00:00.000Z');
    expect(fieldingEnd(undefined, '2026-11-20T10:00:00.000Z')).toBe('2026-12-20T10:00:00.000Z');
    expect(fieldingEnd(undefined, undefined)).toBeUndefined();
  });
});
