// The operator's console of a target group's workflow (workflows/target-group/console.ts): the reason code,
// fill, spend, forecast end and end date it shows as search attributes, the line it adds to current details,
// and that it upserts only what changed. Pure functions; the upserts themselves are checked on a real server
// by test/workflows/study-workflows.test.ts (the gate's reason) and test/integration/temporal-ui-console.test.ts.
import { describe, expect, it } from 'vitest';
import { attributeUpdates, consoleValues, figuresLine, gateReasons, reasonCode, type ConsoleSource } from '../../workflows/target-group/console';
import type { PerformanceSnapshot, TargetGroupStatus } from '../../workflows/messages';
import { CURRENCY, END_FIELDING_AT, FILL_PERCENT, FORECAST_END, REASON, SPEND } from '../../workflows/search-attributes';
import { targetGroup } from './fake-api';

const status = (patch: Partial<TargetGroupStatus> = {}): ConsoleSource['status'] => ({ key: 'us', phase: 'live', ...patch });
const desired = (patch: Partial<ReturnType<typeof targetGroup>> = {}) => {
  const tg = targetGroup('us', patch);
  return { draft: { ...tg.draft, filling_goal: 400 }, launch: tg.launch };
};
const reading = (readAt: string, completes: number, cost?: string): PerformanceSnapshot => ({
  readAt,
  entrants: completes * 3,
  prescreens: completes * 2,
  completes,
  respondents: [],
  ...(cost !== undefined ? { completesCost: { value: cost, currency_code: 'EUR' } } : {}),
});

describe('the reason code', () => {
  it('names why the gate holds from the figures it judged', () => {
    const d = desired();
    expect(reasonCode({ status: status({ phase: 'gate_blocked', feasibility: { feasible: false, feasibleCompletes: 120, fillingGoal: 400 } }), desired: d })).toBe('gate_blocked:not_feasible');
    const capped = desired({ launch: { mode: 'auto', requireFeasible: true, maxCpi: { value: '3.00', currency_code: 'USD' } } });
    const feasible = { feasible: true, feasibleCompletes: 900, fillingGoal: 400 };
    expect(gateReasons({ status: status({ phase: 'gate_blocked', feasibility: feasible, price: { value: '3.50', currency_code: 'USD' } }), desired: capped })).toEqual(['max_cpi']);
    expect(gateReasons({ status: status({ phase: 'gate_blocked', feasibility: feasible, price: { value: '2.50', currency_code: 'EUR' } }), desired: capped })).toEqual(['max_cpi']);
    expect(gateReasons({ status: status({ phase: 'gate_blocked', feasibility: feasible }), desired: capped })).toEqual(['max_cpi']);
    // Both: the first, in the gate's order.
    expect(reasonCode({ status: status({ phase: 'gate_blocked', feasibility: { feasible: false }, price: { value: '3.50', currency_code: 'USD' } }), desired: capped })).toBe('gate_blocked:not_feasible');
    expect(gateReasons({ status: status({ phase: 'gate_blocked', feasibility: feasible, price: { value: '3.00', currency_code: 'USD' } }), desired: capped })).toEqual(['held']);
    const forecastRule = 'the forecast finishes 2026-12-20T10:00:00.000Z, after end_fielding_at 2026-12-10T00:00:00Z (require_forecast_before_end)';
    expect(reasonCode({ status: status({ phase: 'gate_blocked', feasibility: feasible, message: forecastRule }), desired: d })).toBe('gate_blocked:forecast_after_end');
  });

  it('names a tripped guard first, then a failure, then drift; nothing for a target group that nothing holds', () => {
    const d = desired();
    expect(reasonCode({ status: status({ phase: 'paused', drift: [{ field: 'name', expected: 'a', actual: 'b' }] }), desired: d, activeGuards: [{ kind: 'spend_above' }, { kind: 'incidence_below' }] })).toBe('guard:incidence_below');
    // A guard that tripped before a revision failed the target group is not its reason.
    expect(reasonCode({ status: status({ phase: 'failed', failure: { type: 'LaunchJob Failed/x', message: 'boom' } }), desired: d, activeGuards: [{ kind: 'spend_above' }] })).toBe('failed:LaunchJob_Failed_x');
    expect(reasonCode({ status: status({ phase: 'failed' }), desired: d })).toBe('failed:unknown');
    expect(reasonCode({ status: status({ drift: [{ field: 'filling_goal', expected: 400, actual: 300 }, { field: 'name', expected: 'a', actual: 'b' }] }), desired: d })).toBe('drift:filling_goal');
    expect(reasonCode({ status: status({ drift: [] }), desired: d })).toBe('');
    expect(reasonCode({ status: status({ phase: 'awaiting_approval' }), desired: d })).toBe('');
  });
});

describe('the figures', () => {
  it('fill is completes over the filling goal in percent (one decimal), spend the reading\'s completes_cost', () => {
    const values = consoleValues({ status: status({ phase: 'launching' }), desired: desired(), performance: reading('2026-11-20T12:00:00.000Z', 133, '352.45'), series: [] });
    expect(values).toEqual({ reason: '', fillPercent: 33.3, spend: 352.45, currency: 'EUR' });
  });

  it('no reading: no fill, spend or forecast; end_fielding_at only as the study file states it', () => {
    expect(consoleValues({ status: status(), desired: desired(), series: [] })).toEqual({ reason: '' });
    const ended = desired({ launch: { mode: 'auto', requireFeasible: true, endFieldingAt: '2026-12-01T18:30:00+01:00' } });
    expect(consoleValues({ status: status(), desired: ended, series: [] })).toEqual({ reason: '', endFieldingAt: '2026-12-01T17:30:00.000Z' });
  });

  it('forecasts the finish during fielding from the completes series, to the hour, and says so in current details', () => {
    // 100 completes in two hours, 300 to go at 50 an hour: six hours on, at 18:00; 95% band ±19.6 completes.
    const series = [
      { t: '2026-11-20T10:00:00.000Z', completes: 0 },
      { t: '2026-11-20T11:00:00.000Z', completes: 40 },
      { t: '2026-11-20T12:00:00.000Z', completes: 100 },
    ];
    const source: ConsoleSource = { status: status({ liveAt: '2026-11-20T10:00:00.000Z' }), desired: desired(), performance: reading('2026-11-20T12:00:00.000Z', 100, '250.00'), series };
    const values = consoleValues(source);
    expect(values.forecastEnd).toBe('2026-11-20T18:00:00.000Z');
    expect(values.forecast).toMatchObject({ basis: 'fielding', finish: { expected: '2026-11-20T18:00:00.000Z', earliest: '2026-11-20T17:01:00.000Z', latest: '2026-11-20T19:28:00.000Z' } });
    expect(figuresLine(values, 400, 100)).toBe('fill 25.0% (100/400) · spend 250.00 EUR · forecast end 2026-11-20T18:00:00.000Z, 2026-11-20T17:01:00.000Z to 2026-11-20T19:28:00.000Z');
    // Less than an hour of readings: no forecast (and no attribute), said plainly.
    const young = consoleValues({ ...source, series: series.slice(2) });
    expect(young.forecastEnd).toBeUndefined();
    expect(figuresLine(young, 400, 100)).toBe('fill 25.0% (100/400) · spend 250.00 EUR · no forecast yet');
    // Not fielding: no forecast.
    expect(consoleValues({ ...source, status: status({ phase: 'gate_blocked' }) }).forecast).toBeUndefined();
    // The goal reached: the finish is when it was.
    const done = consoleValues({ ...source, status: status({ phase: 'completed' }), performance: reading('2026-11-20T16:40:00.000Z', 400, '1000.00'), series: [...series, { t: '2026-11-20T16:40:00.000Z', completes: 400 }] });
    expect(done).toMatchObject({ fillPercent: 100, forecastEnd: '2026-11-20T17:00:00.000Z', forecast: { basis: 'completed' } });
  });
});

describe('the upserts', () => {
  it('carries only what changed, removes what is gone (an empty reason too), and nothing when nothing changed', () => {
    const before = { reason: 'gate_blocked:not_feasible', fillPercent: 10, spend: 20, currency: 'EUR', endFieldingAt: '2026-12-01T00:00:00.000Z' };
    expect(attributeUpdates(before, { ...before })).toEqual([]);
    const after = { reason: '', fillPercent: 12.5, spend: 20, currency: 'EUR', forecastEnd: '2026-11-30T10:00:00.000Z' };
    expect(attributeUpdates(before, after)).toEqual([
      { key: REASON, value: null },
      { key: FILL_PERCENT, value: 12.5 },
      { key: FORECAST_END, value: new Date('2026-11-30T10:00:00.000Z') },
      { key: END_FIELDING_AT, value: null },
    ]);
    expect(attributeUpdates({ reason: '' }, { reason: 'drift:name', spend: 1.5, currency: 'USD' })).toEqual([
      { key: REASON, value: 'drift:name' },
      { key: SPEND, value: 1.5 },
      { key: CURRENCY, value: 'USD' },
    ]);
  });
});
