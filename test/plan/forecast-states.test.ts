// plan/forecast.ts forecastTargetGroup, the one forecast of a target group, in each state it can be in: draft,
// scheduled at a future moment, awaiting a staged launch's completes, live, paused (by the file, a guard or the
// budget), in a soft launch, completed, and after a goal change. The study's status (workflows/forecast.ts) reads it the same way.
import { describe, expect, it } from 'vitest';
import { forecastBeforeLaunch, forecastFromFeasibility, forecastTargetGroup, studyForecastFromChecks, type TargetGroupForecast, type TargetGroupForecastState } from '../../plan/forecast';
import { evaluateServerChecks, skippedServerChecks } from '../../plan/server-checks';
import type { DesiredTargetGroup } from '../../plan/types';
import { withForecasts } from '../../workflows/forecast';
import type { StudyStatus, TargetGroupStatus } from '../../workflows/messages';

const USD = (value: string) => ({ value, currency_code: 'USD' });
// The gate's forecast for a goal of 300: feasibility 200-600 completes over a 20-day window (10-30 a day, 20
// expected), 4.50 USD a complete. Its rates and price are what each state makes its forecast from.
const gate = forecastBeforeLaunch({ key: 'us', goal: 300, start: '2026-12-01T00:00:00Z', end: '2026-12-21T00:00:00Z', feasibility: { minCompletes: 200, maxCompletes: 600, suggestedPrice: USD('4.50') } });
const state = (patch: Partial<TargetGroupForecastState>): TargetGroupForecastState => ({ key: 'us', phase: 'draft', goal: 300, now: '2026-12-01T00:00:00.000Z', endFieldingAt: '2026-12-21T00:00:00.000Z', launch: gate, ...patch });
const series = [
  { t: '2026-12-01T00:00:00Z', completes: 0 },
  { t: '2026-12-02T00:00:00Z', completes: 60 },
  { t: '2026-12-03T00:00:00Z', completes: 120 },
];

describe('the forecast of a target group in each state', () => {
  it('draft: from now at the gate\'s rates, 300 at 20 a day, 300 × 4.50', () => {
    const f = forecastTargetGroup(state({}));
    expect(f).toMatchObject({ basis: 'feasibility', finish: { expected: '2026-12-16T00:00:00.000Z', earliest: '2026-12-11T00:00:00.000Z', latest: '2026-12-31T00:00:00.000Z' }, cost: { expected: USD('1350.00') }, remaining: 300 });
  });

  it('scheduled at a future moment: it cannot finish before it starts', () => {
    const f = forecastTargetGroup(state({ phase: 'scheduled', launchAt: '2027-03-01T00:00:00Z', endFieldingAt: undefined }));
    expect(f).toMatchObject({ from: { t: '2027-03-01T00:00:00.000Z', completes: 0 }, finish: { expected: '2027-03-16T00:00:00.000Z', earliest: '2027-03-11T00:00:00.000Z' }, endFieldingAt: '2027-03-31T00:00:00.000Z', finishesBeforeEnd: true });
    expect(f?.method).toContain('starts at its launch moment 2027-03-01T00:00:00.000Z');
    // The gate (and plan) make it alike from a file's launch.at: not "tomorrow".
    const desired = { key: 'us', draft: { filling_goal: 300 }, launch: { mode: 'auto', requireFeasible: true, at: '2027-03-01T00:00:00Z' } } as unknown as DesiredTargetGroup;
    const atGate = forecastFromFeasibility(desired, { minCompletes: 200, feasibleCompletes: 600, suggestedPrice: USD('4.50') }, Date.parse('2026-12-01T00:00:00Z'));
    expect(Date.parse(atGate.finish.earliest as string)).toBeGreaterThan(Date.parse('2027-03-01T00:00:00Z'));
    expect(atGate.from?.t).toBe('2027-03-01T00:00:00.000Z');
  });

  it('awaiting completes (launch.after): no start, so no finish; the goal\'s cost', () => {
    const f = forecastTargetGroup(state({ phase: 'awaiting_completes', awaiting: { targetGroup: 'uk', completes: 50, has: 10 } }));
    expect(f).toMatchObject({ basis: 'awaiting', finish: {}, cost: { expected: USD('1350.00') }, remaining: 300 });
    expect(f?.method).toBe('awaiting completes: starts when uk has 50 completes (it has 10); no finish before it starts');
  });

  it('live: from the readings (120 in 2 days, 60 a day: 180 to go in 3 days)', () => {
    const f = forecastTargetGroup(state({ phase: 'live', now: '2026-12-03T00:00:00.000Z', liveAt: '2026-12-01T00:00:00Z', series, spend: USD('540.00') }));
    expect(f).toMatchObject({ basis: 'fielding', completes: 120, remaining: 180, finish: { expected: '2026-12-06T00:00:00.000Z' }, cost: { expected: USD('1350.00') } });
  });

  it('paused (by a guard, the budget, the file): no finish while paused; done, remaining and spent', () => {
    const f = forecastTargetGroup(state({ phase: 'paused', now: '2026-12-03T00:00:00.000Z', liveAt: '2026-12-01T00:00:00Z', series, spend: USD('540.00'), pausedBy: 'a guard (ir)' }));
    expect(f).toMatchObject({ basis: 'paused', finish: {}, completes: 120, remaining: 180, spent: USD('540.00'), pausedBy: 'a guard (ir)' });
    expect(f?.cost).toBeUndefined();
    expect(f?.method).toBe('paused by a guard (ir): 120 of 300 completes done, 180 remain, 540.00 USD spent; no finish while paused');
  });

  it('in a soft launch: no finish of the goal until it is promoted (running, waiting, failed, aborted); promoted, from the readings again', () => {
    const running = forecastTargetGroup(state({ phase: 'live', now: '2026-12-03T00:00:00.000Z', liveAt: '2026-12-01T00:00:00Z', series, spend: USD('540.00'), softLaunch: { state: 'running', completes: 150, endsAt: '2026-12-04T00:00:00.000Z' } }));
    expect(running).toMatchObject({ basis: 'soft_launch', finish: {}, completes: 120, remaining: 180, spent: USD('540.00') });
    expect(running?.method).toBe('soft launch running: 120 of its 150 completes, judged by 2026-12-04T00:00:00.000Z at the latest; no finish of the goal of 300 until it is promoted');
    const waiting = forecastTargetGroup(state({ phase: 'paused', now: '2026-12-03T00:00:00.000Z', series, softLaunch: { state: 'awaiting_decision', completes: 150, endsAt: '2026-12-04T00:00:00.000Z' } }));
    expect(waiting?.method).toBe('soft launch awaiting decision: paused until `studyflow approve --promote`; no finish of the goal of 300 until it is promoted');
    for (const held of ['starting', 'paused', 'aborted'] as const) {
      expect(forecastTargetGroup(state({ phase: 'paused', series, softLaunch: { state: held, completes: 150, endsAt: '2026-12-04T00:00:00.000Z' } }))?.basis, held).toBe('soft_launch');
    }
    for (const done of ['promoted', 'analysed'] as const) {
      const f = forecastTargetGroup(state({ phase: 'live', now: '2026-12-03T00:00:00.000Z', liveAt: '2026-12-01T00:00:00Z', series, softLaunch: { state: done, completes: 150, endsAt: '2026-12-04T00:00:00.000Z' } }));
      expect(f?.basis, done).toBe('fielding');
    }
  });

  it('completed: the finish is when it completed, nothing remains, the cost is what it spent', () => {
    const f = forecastTargetGroup(state({ phase: 'completed', now: '2026-12-03T00:00:00.000Z', liveAt: '2026-12-01T00:00:00Z', series, spend: USD('540.00') }));
    expect(f).toMatchObject({ basis: 'completed', remaining: 0, finish: { expected: '2026-12-03T00:00:00.000Z', latest: '2026-12-03T00:00:00.000Z' }, cost: { expected: USD('540.00'), high: USD('540.00') } });
  });

  it('after a goal raise from 300 to 400: the goal the file holds now, 400 × 4.50', () => {
    const f = forecastTargetGroup(state({ goal: 400 }));
    expect(f).toMatchObject({ goal: 400, finish: { expected: '2026-12-21T00:00:00.000Z' }, cost: { expected: USD('1800.00') } });
  });
});

describe('the study\'s status names who paused a target group', () => {
  const tg = (patch: Partial<TargetGroupStatus>): TargetGroupStatus => ({ key: 'us', phase: 'paused', liveAt: '2026-12-01T00:00:00Z', launchForecast: gate, events: { received: 0, sessionsByStatus: {} }, updatedAt: '2026-12-03T00:00:00Z', ...patch });
  const report = { expected: { fillingGoal: 300 }, series, performance: { readAt: '2026-12-03T00:00:00.000Z', entrants: 0, prescreens: 0, completes: 120, respondents: [] } };
  const status = (t: TargetGroupStatus, budget?: StudyStatus['budget']): StudyStatus => ({ studyId: 's', accountId: 'a', phase: 'converged', writes: 0, targetGroups: { us: t }, exclusionGroups: {}, ...(budget ? { budget } : {}), updatedAt: '2026-12-03T00:00:00Z' });

  it('a guard, the budget, else the file or the operator; none of them gives a finish', () => {
    const guard = withForecasts(status(tg({ guards: { states: [], active: [], trips: 1, hold: { guards: [{ guard: 'ir', kind: 'incidence_below', definition: 'x', at: '2026-12-02T00:00:00Z', text: 't' }] } } })), { us: report });
    expect(guard.targetGroups.us.forecast).toMatchObject({ basis: 'paused', pausedBy: 'a guard (ir)', finish: {} });
    const budget = withForecasts(status(tg({}), { budget: USD('500'), reached: { at: '2026-12-02T00:00:00Z', spent: USD('540'), paused: ['us'] } }), { us: report });
    expect(budget.targetGroups.us.forecast?.pausedBy).toBe("the study's budget");
    const file = withForecasts(status(tg({})), { us: report });
    expect(file.targetGroups.us.forecast?.pausedBy).toBe('the file or the operator');
    expect(file.forecast?.finish.expected).toBeUndefined();
  });

  it('completed by the file before its goal: no future finish in status', () => {
    const done = withForecasts(status(tg({ phase: 'completed' })), { us: report });
    expect(done.targetGroups.us.forecast).toMatchObject({ basis: 'completed', finish: { expected: '2026-12-03T00:00:00.000Z' }, remaining: 0 });
  });
});

describe('plan shows the forecast status shows', () => {
  const desired = (launch: Record<string, unknown>) =>
    ({ key: 'us', draft: { filling_goal: 300 }, launch: { mode: 'auto', requireFeasible: true, endFieldingAt: '2026-12-21T00:00:00Z', ...launch } }) as unknown as DesiredTargetGroup;
  const answers = { feasibility: { ok: true as const, value: { suggested_completes_goal_range: { min: 200, max: 600 }, suggested_price: USD('4.50') } } };
  const now = Date.parse('2026-12-01T00:00:00Z');

  it('a staged launch (launch.after) is awaiting in plan too: no finish, the goal\'s cost', () => {
    const check = evaluateServerChecks(desired({ after: { targetGroup: 'uk', completes: 50 } }), answers, { now }).checks.find((c) => c.name === 'forecast')!;
    expect(check).toMatchObject({ outcome: 'pass', summary: 'awaiting completes: starts when uk has 50 completes; no finish before it starts, costs 1350.00 USD' });
    expect((check.data as unknown as TargetGroupForecast).finish).toEqual({});
  });

  it('a launched target group (no forecast check) has the forecast its workflow\'s status shows, not "no forecast"', () => {
    const live = forecastTargetGroup(state({ phase: 'live', now: '2026-12-03T00:00:00.000Z', liveAt: '2026-12-01T00:00:00Z', series, spend: USD('540.00') }));
    const study = studyForecastFromChecks([skippedServerChecks('us', 'already live: no launch ahead to check')], { us: live });
    expect(study).toMatchObject({ finish: { expected: '2026-12-06T00:00:00.000Z' }, cost: { expected: USD('1350.00') } });
  });
});
