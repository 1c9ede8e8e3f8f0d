// The report figures the workflows hold (workflows/report-data.ts): bounded series, bounded changes,
// performance (TargetGroupPerformance) reduced to counts, money, dates and rates, and the study's copy
// brought up to date by its children's updates.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { CompletesPoint } from '../../workflows/messages';
import type { TargetGroupReportUpdate } from '../../workflows/child-protocol';
import { appendChanges, appendPoint, expectedFigures, MAX_SERIES_POINTS, mergeReportUpdate, performanceSnapshot } from '../../workflows/report-data';

const at = (minute: number) => new Date(Date.UTC(2026, 2, 2, 12, minute)).toISOString();
const point = (minute: number, completes: number): CompletesPoint => ({ t: at(minute), completes });

describe('completes series', () => {
  it('keeps a plateau as its first and last reading', () => {
    let series: CompletesPoint[] = [];
    for (const [m, c] of [[0, 0], [1, 5], [2, 5], [3, 5], [4, 5], [5, 9]] as const) series = appendPoint(series, point(m, c));
    expect(series).toEqual([point(0, 0), point(1, 5), point(4, 5), point(5, 9)]);
  });

  it('never holds more than the bound, keeps the first and the latest reading, and stays in time order (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 3 }), { minLength: 1, maxLength: 1500 }), fc.integer({ min: 3, max: 60 }), (steps, max) => {
        let series: CompletesPoint[] = [];
        let completes = 0;
        steps.forEach((step, i) => {
          completes += step;
          series = appendPoint(series, point(i, completes), max);
        });
        expect(series.length).toBeLessThanOrEqual(max);
        expect(series[0].t).toBe(at(0));
        expect(series.at(-1)).toEqual(point(steps.length - 1, completes));
        for (let i = 1; i < series.length; i += 1) expect(series[i].t > series[i - 1].t).toBe(true);
      }),
      { numRuns: 150 },
    );
  });

  it('bounds the default series at 500 points', () => {
    let series: CompletesPoint[] = [];
    for (let i = 0; i < 2000; i += 1) series = appendPoint(series, point(i, i));
    expect(MAX_SERIES_POINTS).toBe(500);
    expect(series.length).toBeLessThanOrEqual(500);
    expect(series.length).toBeGreaterThan(200);
    expect(series.at(-1)?.completes).toBe(1999);
  });
});

describe('changes', () => {
  it('keeps the most recent ones', () => {
    const changes = Array.from({ length: 60 }, (_, i) => ({ seq: i + 1, time: at(i), kind: 'event' as const, detail: `e${i}` }));
    const kept = appendChanges([], changes, 50);
    expect(kept).toHaveLength(50);
    expect(kept[0].seq).toBe(11);
    expect(kept.at(-1)?.seq).toBe(60);
  });
});

describe('performance snapshot', () => {
  const answer = {
    entrants: 180,
    prescreens: 150,
    completes: 42,
    completes_cost: { value: '111.30', currency_code: 'USD', currency_scale: 2 },
    first_complete: '2026-03-02T12:03:00.000Z',
    last_complete: '2026-03-02T12:41:00.000Z',
    incidence_rate: 0.5833,
    conversion_rate: 0.2333,
    drop_off_rate: 0.0167,
    respondent_analysis: {
      live: [
        { status: 'In Survey', label: 'In survey', description: 'not finished', count: 3 },
        { status: 'Complete', label: 'Completed', description: 'done', count: 42 },
        { status: 'Terminate', label: 'Terminate', count: 30 },
        { label: 'no status', count: 1 },
        { status: 'OverQuota' },
      ],
      test: [{ status: 'Complete', label: 'Completed', count: 5 }],
    },
    respondents: ['sbx-en_US-000001'],
    status: 'live',
  };

  it('keeps counts, cost, complete dates, rates and live respondents by status, and drops everything else', () => {
    const snapshot = performanceSnapshot(answer, at(0), 'live');
    expect(snapshot).toEqual({
      readAt: at(0),
      phase: 'live',
      entrants: 180,
      prescreens: 150,
      completes: 42,
      completesCost: { value: '111.30', currency_code: 'USD' },
      firstComplete: '2026-03-02T12:03:00.000Z',
      lastComplete: '2026-03-02T12:41:00.000Z',
      incidenceRate: 0.5833,
      conversionRate: 0.2333,
      dropOffRate: 0.0167,
      // Test respondents are left out; entries without a status or count are skipped; a label equal to the status is not kept.
      respondents: [{ status: 'In Survey', label: 'In survey', count: 3 }, { status: 'Complete', label: 'Completed', count: 42 }, { status: 'Terminate', count: 30 }],
    });
    expect(JSON.stringify(snapshot)).not.toContain('sbx-');
  });

  it('leaves out what the answer does not give, and out-of-range rates or unreadable dates', () => {
    expect(performanceSnapshot({ entrants: 0, prescreens: 0, completes: 0, incidence_rate: 1.5, first_complete: 'soon' }, at(0))).toEqual({ readAt: at(0), entrants: 0, prescreens: 0, completes: 0, respondents: [] });
  });

  it('is bounded: at most 20 statuses, status codes and labels cut to 80 characters (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.record({ status: fc.string({ minLength: 1, maxLength: 200 }), label: fc.string({ maxLength: 300 }), count: fc.nat() }), { maxLength: 60 }), (live) => {
        const snapshot = performanceSnapshot({ entrants: 1, prescreens: 1, completes: 1, respondent_analysis: { live } }, at(0));
        expect(snapshot.respondents.length).toBe(Math.min(20, live.length));
        for (const r of snapshot.respondents) {
          expect(r.status.length).toBeLessThanOrEqual(80);
          expect((r.label ?? '').length).toBeLessThanOrEqual(80);
        }
      }),
      { numRuns: 100 },
    );
  });

  it('takes the expected figures from the draft', () => {
    expect(expectedFigures({ expected_incidence_rate: 0.4, expected_length_of_interview_minutes: 12, filling_goal: 300, name: 'x' })).toEqual({ incidenceRate: 0.4, lengthOfInterviewMinutes: 12, fillingGoal: 300 });
  });
});

describe('the study copy of a child report', () => {
  const update = (patch: Partial<TargetGroupReportUpdate>): TargetGroupReportUpdate => ({ key: 'us', expected: { fillingGoal: 400 }, changes: [], ...patch });

  it('appends points and changes, keeps the latest performance and the launch time', () => {
    let held = mergeReportUpdate(undefined, update({ launchedAt: at(0), point: point(1, 0), changes: [{ seq: 1, time: at(0), kind: 'phase', detail: 'launching -> live' }] }));
    held = mergeReportUpdate(held, update({ point: point(2, 7), performance: { readAt: at(2), entrants: 9, prescreens: 8, completes: 7, respondents: [{ status: 'Complete', count: 7 }] } }));
    held = mergeReportUpdate(held, update({ performanceError: 'activity timed out' }));
    expect(held.series).toEqual([point(1, 0), point(2, 7)]);
    expect(held.launchedAt).toBe(at(0));
    expect(held.performance?.completes).toBe(7);
    expect(held.performanceError).toBe('activity timed out');
    expect(held.changes.map((c) => c.detail)).toEqual(['launching -> live']);
    // A later good reading clears the error.
    held = mergeReportUpdate(held, update({ point: point(3, 9), performance: { readAt: at(3), entrants: 12, prescreens: 11, completes: 9, respondents: [] } }));
    expect(held.performanceError).toBeUndefined();
  });
});
