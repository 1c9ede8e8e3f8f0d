// plan/guards.ts: each kind trips exactly past its threshold and not at it, rate guards wait for their
// entrants, durations count from the last complete (or the launch), a trip is reported once with its
// evidence, a resume acknowledges it, and a changed guard re-arms.
import { describe, expect, it } from 'vitest';
import { acknowledgeGuards, evaluateGuards, guardText, holdAfter, holdingGuards, type GuardPerformance, type GuardReading } from '../../plan/guards';
import type { DesiredGuard } from '../../plan/types';

const AT = '2026-12-05T12:00:00.000Z';
const HOUR = 3_600_000;

const incidence: DesiredGuard = { name: 'low_incidence', kind: 'incidence_below', fraction: 0.5, expectedIncidenceRate: 0.35, minEntrants: 200, action: 'pause' };
const cpi: DesiredGuard = { name: 'cpi_cap', kind: 'cost_per_complete_above', threshold: { value: '6.00', currency_code: 'USD' }, action: 'pause' };
const spend: DesiredGuard = { name: 'spend_cap', kind: 'spend_above', threshold: { value: '2400', currency_code: 'USD' }, action: 'notify' };
const stalled: DesiredGuard = { name: 'stalled', kind: 'no_completes_for', duration: 'P2D', durationMs: 48 * HOUR, action: 'pause' };
const dropOff: DesiredGuard = { name: 'drop', kind: 'drop_off_above', rate: 0.4, minEntrants: 100, action: 'pause' };

function perf(p: Partial<GuardPerformance>): GuardPerformance {
  return { readAt: AT, entrants: 0, completes: 0, ...p };
}
function reading(p: Partial<GuardPerformance>, extra: Partial<GuardReading> = {}): GuardReading {
  return { at: AT, performance: perf(p), fielding: { status: 'live', liveSince: '2026-12-01T00:00:00.000Z' }, ...extra };
}
const stateOf = (guard: DesiredGuard, r: GuardReading) => evaluateGuards([guard], r).outcomes[0].state;

describe('incidence_below', () => {
  it('trips below fraction × expected (0.5 × 0.35 = 0.175), not at it', () => {
    expect(stateOf(incidence, reading({ entrants: 200, incidenceRate: 0.175 }))).toBe('ok');
    expect(stateOf(incidence, reading({ entrants: 200, incidenceRate: 0.1749 }))).toBe('tripped');
  });

  it('waits for min_entrants: 199 entrants are not judged, 200 are', () => {
    const outcome = evaluateGuards([incidence], reading({ entrants: 199, incidenceRate: 0.05 })).outcomes[0];
    expect(outcome).toMatchObject({ state: 'waiting', detail: '199 of 200 entrants' });
    expect(stateOf(incidence, reading({ entrants: 200, incidenceRate: 0.05 }))).toBe('tripped');
  });

  it('records its evidence: the reading, the threshold, the time', () => {
    const result = evaluateGuards([incidence], reading({ entrants: 240, completes: 20, incidenceRate: 0.12 }));
    expect(result.pause).toBe(true);
    expect(result.tripped).toEqual([
      {
        guard: 'low_incidence',
        kind: 'incidence_below',
        action: 'pause',
        at: AT,
        value: 0.12,
        threshold: 0.175,
        unit: 'rate',
        source: 'performance',
        figures: { entrants: 240, completes: 20 },
        text: 'incidence 0.12 is below 0.175 (0.5 of the expected 0.35) after 240 entrants',
      },
    ]);
  });

  it('takes the session counts when they have seen more entrants: Complete / (Complete + Terminate)', () => {
    // Performance: 150 entrants (too few). Sessions: 30 Complete + 170 Terminate + 10 OverQuota = 210 entrants, incidence 30/200 = 0.15.
    const r = reading({ entrants: 150, incidenceRate: 0.3 }, { sessionsByStatus: { Complete: 30, Terminate: 170, OverQuota: 10 } });
    const [trip] = evaluateGuards([incidence], r).tripped;
    expect(trip).toMatchObject({ source: 'sessions', value: 0.15, figures: { entrants: 210, completes: 30 } });
  });
});

describe('cost_per_complete_above', () => {
  it('trips when completes_cost / completes is above the threshold, exactly: 120.00 / 20 = 6.00 does not, 120.01 does', () => {
    expect(stateOf(cpi, reading({ completes: 20, completesCost: { value: '120.00', currency_code: 'USD' } }))).toBe('ok');
    const result = evaluateGuards([cpi], reading({ completes: 20, completesCost: { value: '120.01', currency_code: 'USD' } }));
    expect(result.tripped[0]).toMatchObject({ unit: 'money', currency: 'USD', threshold: 6, text: 'cost per complete 6.0005 USD (120.01 USD / 20 completes) is above 6.00 USD' });
    expect(result.tripped[0].value).toBeCloseTo(6.0005, 10);
  });

  it('waits for the first complete, and does not judge a spend in another currency', () => {
    expect(stateOf(cpi, reading({ completes: 0, completesCost: { value: '0.00', currency_code: 'USD' } }))).toBe('waiting');
    const other = evaluateGuards([cpi], reading({ completes: 5, completesCost: { value: '500.00', currency_code: 'EUR' } })).outcomes[0];
    expect(other).toMatchObject({ state: 'unjudged', detail: 'the spend is in EUR, the guard in USD' });
  });
});

describe('spend_above', () => {
  it('trips above the amount, not at it; a notify-only guard does not pause', () => {
    expect(stateOf(spend, reading({ completes: 400, completesCost: { value: '2400.00', currency_code: 'USD' } }))).toBe('ok');
    const result = evaluateGuards([spend], reading({ completes: 401, completesCost: { value: '2400.000001', currency_code: 'USD' } }));
    expect(result.tripped).toHaveLength(1);
    expect(result.pause).toBe(false);
    expect(result.tripped[0].figures.spend).toEqual({ value: '2400.000001', currency_code: 'USD' });
  });
});

describe('no_completes_for', () => {
  const lastComplete = '2026-12-03T12:00:00.000Z';
  it('trips at exactly the duration since the last complete, not a millisecond before', () => {
    const at = (ms: number) => new Date(Date.parse(lastComplete) + ms).toISOString();
    expect(stateOf(stalled, reading({ completes: 3, lastComplete }, { at: at(48 * HOUR - 1) }))).toBe('ok');
    const result = evaluateGuards([stalled], reading({ completes: 3, lastComplete }, { at: at(48 * HOUR) }));
    expect(result.tripped[0]).toMatchObject({ value: 48 * HOUR, threshold: 48 * HOUR, unit: 'duration_ms', figures: { silentSince: lastComplete }, text: `no complete for 2d (since ${lastComplete}); the guard allows P2D` });
  });

  it('counts from the launch when there is no complete yet, and only while the run is live', () => {
    const liveSince = '2026-12-01T00:00:00.000Z';
    expect(stateOf(stalled, reading({}, { at: '2026-12-02T23:59:00.000Z', fielding: { status: 'live', liveSince } }))).toBe('ok');
    expect(stateOf(stalled, reading({}, { at: '2026-12-03T00:00:00.000Z', fielding: { status: 'live', liveSince } }))).toBe('tripped');
    expect(stateOf(stalled, reading({}, { at: '2026-12-09T00:00:00.000Z', fielding: { status: 'paused', liveSince } }))).toBe('waiting');
    expect(stateOf(stalled, { at: AT })).toBe('unjudged');
  });

  it('without last_complete, counts from the reading that first showed the completes (never from an older launch)', () => {
    const first = evaluateGuards([stalled], reading({ completes: 10 }, { at: '2026-12-04T00:00:00.000Z' }));
    expect(first.outcomes[0].state).toBe('ok'); // 10 completes, launched 3 days ago: their time is unknown, so taken as now
    expect(first.memory).toMatchObject({ completes: 10, completesSeenAt: '2026-12-04T00:00:00.000Z' });
    const second = evaluateGuards([stalled], reading({ completes: 11 }, { at: '2026-12-04T06:00:00.000Z' }), first.memory);
    expect(second.memory.completesSeenAt).toBe('2026-12-04T06:00:00.000Z');
    const quiet = evaluateGuards([stalled], reading({ completes: 11 }, { at: '2026-12-06T05:59:00.000Z' }), second.memory);
    expect(quiet.outcomes[0].state).toBe('ok');
    expect(quiet.memory.completesSeenAt).toBe('2026-12-04T06:00:00.000Z');
    expect(evaluateGuards([stalled], reading({ completes: 11 }, { at: '2026-12-06T06:00:00.000Z' }), quiet.memory).tripped).toHaveLength(1);
  });

  it('session completes that ran ahead of the performance reading restart the count', () => {
    const lastComplete = '2026-12-01T00:00:00.000Z';
    const first = evaluateGuards([stalled], reading({ completes: 3, lastComplete }, { at: '2026-12-02T00:00:00.000Z' }));
    const event = evaluateGuards([stalled], reading({ completes: 3, lastComplete }, { at: '2026-12-02T12:00:00.000Z', sessionsByStatus: { Complete: 4 } }), first.memory);
    expect(event.outcomes[0]).toMatchObject({ state: 'ok', detail: 'no complete for 0m (since 2026-12-02T12:00:00.000Z); the guard allows P2D' });
  });
});

describe("no_completes_for by the exchange's clock", () => {
  // A simulation: the exchange's clock (the sandbox's simulated time) runs days ahead of the workflow's.
  const lastComplete = '2026-12-10T00:00:00.000Z';
  const simulated = (exchangeAt: string | undefined, memory?: Parameters<typeof evaluateGuards>[2]) =>
    evaluateGuards([stalled], reading({ completes: 3, lastComplete }, { at: AT, ...(exchangeAt ? { exchangeAt } : {}) }), memory);

  it("judges the silence as the exchange's latest report minus its last complete: trips at exactly the duration", () => {
    expect(simulated('2026-12-11T23:59:59.999Z').outcomes[0].state).toBe('ok');
    const result = simulated('2026-12-12T00:00:00.000Z');
    expect(result.tripped[0]).toMatchObject({
      value: 48 * HOUR,
      figures: { lastComplete, silentSince: lastComplete, exchangeAt: '2026-12-12T00:00:00.000Z' },
      text: `no complete for 2d (since ${lastComplete}, by the exchange's clock at 2026-12-12T00:00:00.000Z); the guard allows P2D`,
    });
    // By the workflow's clock alone the last complete is in the future: it can never trip.
    expect(simulated(undefined).outcomes[0]).toMatchObject({ state: 'ok', detail: `no complete for 0m (since ${lastComplete}); the guard allows P2D` });
    // An exchange report older than its last complete (events still on their way) names no clock.
    expect(simulated('2026-12-09T00:00:00.000Z').outcomes[0].detail).toBe(`no complete for 0m (since ${lastComplete}); the guard allows P2D`);
  });

  it("keeps the workflow's clock where it sees a longer silence (the exchange's latest report is older than its now)", () => {
    const quiet = evaluateGuards([stalled], reading({ completes: 3, lastComplete: '2026-12-02T00:00:00.000Z' }, { at: '2026-12-04T00:00:00.000Z', exchangeAt: '2026-12-02T00:05:00.000Z' }));
    expect(quiet.tripped[0]).toMatchObject({ value: 48 * HOUR, figures: { silentSince: '2026-12-02T00:00:00.000Z' } });
    expect(quiet.tripped[0].figures).not.toHaveProperty('exchangeAt');
  });

  it('counts from a resume after the last complete by the workflow clock only (the exchange does not tell when it resumed)', () => {
    const first = simulated('2026-12-12T00:00:00.000Z');
    const resumed = acknowledgeGuards(first.memory, '2026-12-05T12:30:00.000Z');
    expect(evaluateGuards([stalled], reading({ completes: 3, lastComplete }, { at: '2026-12-05T13:00:00.000Z', exchangeAt: '2026-12-14T00:00:00.000Z' }), resumed).outcomes[0].state).toBe('ok');
    // Launched again after the last complete was counted (liveSince later than when the completes were seen): the same.
    const fresh = evaluateGuards([stalled], reading({ completes: 3, lastComplete }, { at: '2026-12-05T13:00:00.000Z', exchangeAt: '2026-12-14T00:00:00.000Z', fielding: { status: 'live', liveSince: '2026-12-05T12:30:00.000Z' } }), { completes: 3, completesSeenAt: '2026-12-05T12:00:00.000Z', guards: {} });
    expect(fresh.outcomes[0].state).toBe('ok');
  });

  it("does not judge by the exchange's last complete when the session events counted more completes than the reading", () => {
    const ahead = evaluateGuards([stalled], reading({ completes: 3, lastComplete }, { at: AT, exchangeAt: '2026-12-14T00:00:00.000Z', sessionsByStatus: { Complete: 4 } }));
    expect(ahead.outcomes[0].state).toBe('ok');
  });
});

describe('drop_off_above', () => {
  it('trips above the rate once min_entrants have entered', () => {
    expect(stateOf(dropOff, reading({ entrants: 100, dropOffRate: 0.4 }))).toBe('ok');
    expect(stateOf(dropOff, reading({ entrants: 100, dropOffRate: 0.41 }))).toBe('tripped');
    expect(stateOf(dropOff, reading({ entrants: 99, dropOffRate: 0.9 }))).toBe('waiting');
    expect(stateOf(dropOff, reading({ entrants: 100 }))).toBe('unjudged');
  });
});

describe('trips, resumes and revisions', () => {
  const low = reading({ entrants: 240, incidenceRate: 0.12 });

  it('reports a trip once; the next reading keeps it active with its first evidence', () => {
    const first = evaluateGuards([incidence], low);
    const next = evaluateGuards([incidence], reading({ entrants: 300, incidenceRate: 0.1 }, { at: '2026-12-05T13:00:00.000Z' }), first.memory);
    expect(next.tripped).toEqual([]);
    expect(next.pause).toBe(false);
    expect(next.active).toEqual(first.tripped);
  });

  it('after a resume, a rate guard judges again after another min_entrants entrants', () => {
    const first = evaluateGuards([incidence], low);
    const resumed = acknowledgeGuards(first.memory, '2026-12-05T14:00:00.000Z', low);
    const soon = evaluateGuards([incidence], reading({ entrants: 439, incidenceRate: 0.12 }), resumed);
    expect(soon.outcomes[0]).toMatchObject({ state: 'acknowledged', detail: 'resumed at 240 entrants; judged again at 440 (now 439)' });
    expect(soon.active).toEqual([]);
    const later = evaluateGuards([incidence], reading({ entrants: 440, incidenceRate: 0.12 }), soon.memory);
    expect(later.tripped).toHaveLength(1);
  });

  it('after a resume, a money guard stays quiet; a revision that changes it re-arms it', () => {
    const over = reading({ completes: 20, completesCost: { value: '130.00', currency_code: 'USD' } });
    const first = evaluateGuards([cpi], over);
    const resumed = acknowledgeGuards(first.memory, AT);
    expect(evaluateGuards([cpi], over, resumed).outcomes[0].state).toBe('acknowledged');
    const raised: DesiredGuard = { ...cpi, threshold: { value: '6.40', currency_code: 'USD' } };
    expect(evaluateGuards([raised], over, resumed).tripped).toHaveLength(1);
    const relaxed: DesiredGuard = { ...cpi, threshold: { value: '7.00', currency_code: 'USD' } };
    expect(evaluateGuards([relaxed], over, first.memory).outcomes[0].state).toBe('ok');
  });

  it('after a resume, no_completes_for counts its silence from the resume', () => {
    const lastComplete = '2026-12-01T00:00:00.000Z';
    const first = evaluateGuards([stalled], reading({ completes: 3, lastComplete }, { at: '2026-12-03T00:00:00.000Z' }));
    expect(first.tripped).toHaveLength(1);
    const resumed = acknowledgeGuards(first.memory, '2026-12-03T06:00:00.000Z');
    expect(evaluateGuards([stalled], reading({ completes: 3, lastComplete }, { at: '2026-12-05T05:59:00.000Z' }), resumed).outcomes[0].state).toBe('ok');
    expect(evaluateGuards([stalled], reading({ completes: 3, lastComplete }, { at: '2026-12-05T06:00:00.000Z' }), resumed).tripped).toHaveLength(1);
  });

  it('lists a guard for the plan in one line', () => {
    expect(guardText(incidence)).toBe('low_incidence: incidence below 0.175 (0.5 of the expected 0.35) after 200 entrants; pauses');
    expect(guardText(spend)).toBe('spend_cap: spend above 2400 USD; notifies only');
    expect(guardText(stalled)).toBe('stalled: no complete for P2D while live; pauses');
  });
});

describe('the hold of pausing guards (holdAfter, holdingGuards)', () => {
  const low = (incidenceRate: number, entrants = 240) => reading({ entrants, completes: Math.round(entrants * incidenceRate), incidenceRate });
  it('holds the pausing trips with their guard as it was; a notify-only trip holds nothing; a changed or dropped guard is released', () => {
    const first = evaluateGuards([incidence, spend], { ...low(0.1), performance: { ...low(0.1).performance!, completesCost: { value: '2500', currency_code: 'USD' } } });
    expect(first.tripped.map((t) => t.guard)).toEqual(['low_incidence', 'spend_cap']);
    const hold = holdAfter(undefined, [incidence, spend], first);
    expect(hold?.guards).toEqual([{ guard: 'low_incidence', kind: 'incidence_below', definition: first.memory.guards.low_incidence.definition, at: AT, text: first.tripped[0].text }]);
    // The next reading trips nothing new: the hold stays as it was.
    const next = evaluateGuards([incidence, spend], low(0.1, 300), first.memory);
    expect(next.tripped).toEqual([]);
    expect(holdAfter(hold, [incidence, spend], next)).toEqual(hold);
    // A revision with another fraction, or without the guard, re-arms it: nothing holds.
    expect(holdingGuards(hold, [{ ...incidence, fraction: 0.25 }, spend])).toEqual([]);
    expect(holdingGuards(hold, [spend])).toEqual([]);
    expect(holdingGuards(hold, undefined)).toEqual([]);
    expect(holdingGuards(hold, [incidence])).toEqual(hold!.guards);
    expect(holdAfter(undefined, [spend], evaluateGuards([spend], { ...low(0.5), performance: { ...low(0.5).performance!, completesCost: { value: '2500', currency_code: 'USD' } } }))).toBeUndefined();
  });
});
