// The report figures the workflows hold (workflows/report-data.ts): bounded series, bounded changes,
// performance reduced to counts, and the study's copy brought up to date by its children's updates.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { CompletesPoint, TargetGroupReportUpdate } from '../../workflows/messages';
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
  it('keeps counts, cost and quotas, and drops everything else', () => {
    const snapshot = performanceSnapshot(
      {
        target_group_id: 'tg_1',
        status: 'live',
        filling_goal: 400,
        remaining_completes: 358,
        completes: 42,
        completes_by_status: { Complete: 42, Terminate: 30, OverQuota: 0, bogus: 'x' },
        in_progress: 3,
        prescreens: 75,
        completes_cost: { value: '111.30', currency_code: 'USD', currency_scale: 2 },
        quotas: [{ profile_id: 'prf_1', target_id: 'tgt_1', name: 'men', completes_goal: 200, completes: 20, prescreens: 35 }, { profile_id: 'prf_1', target_id: 'tgt_2', filling_goal: 200, completes: 22 }],
        respondents: ['sbx-en_US-000001'],
      },
      at(0),
    );
    expect(snapshot).toEqual({
      readAt: at(0),
      status: 'live',
      fillingGoal: 400,
      remainingCompletes: 358,
      completes: 42,
      completesByStatus: { Complete: 42, Terminate: 30, OverQuota: 0 },
      inProgress: 3,
      prescreens: 75,
      completesCost: { value: '111.30', currency_code: 'USD' },
      quotas: [
        { profileId: 'prf_1', targetId: 'tgt_1', name: 'men', completesGoal: 200, completes: 20, prescreens: 35 },
        { profileId: 'prf_1', targetId: 'tgt_2', completesGoal: 200, completes: 22 },
      ],
    });
    expect(JSON.stringify(snapshot)).not.toContain('sbx-');
  });

  it('takes the expected figures from the draft', () => {
    expect(expectedFigures({ expected_incidence_rate: 0.4, expected_length_of_interview_minutes: 12, filling_goal: 300, name: 'x' })).toEqual({ incidenceRate: 0.4, lengthOfInterviewMinutes: 12, fillingGoal: 300 });
  });
});

describe('the study copy of a child report', () => {
  const update = (patch: Partial<TargetGroupReportUpdate>): TargetGroupReportUpdate => ({ key: 'us', expected: { fillingGoal: 400 }, changes: [], ...patch });

  it('appends points and changes, keeps the latest performance and the launch time', () => {
    let held = mergeReportUpdate(undefined, update({ launchedAt: at(0), point: point(1, 0), changes: [{ seq: 1, time: at(0), kind: 'phase', detail: 'launching -> live' }] }));
    held = mergeReportUpdate(held, update({ point: point(2, 7), performance: { readAt: at(2), completes: 7, completesByStatus: { Complete: 7 }, quotas: [] } }));
    held = mergeReportUpdate(held, update({ performanceError: 'activity timed out' }));
    expect(held.series).toEqual([point(1, 0), point(2, 7)]);
    expect(held.launchedAt).toBe(at(0));
    expect(held.performance?.completes).toBe(7);
    expect(held.performanceError).toBe('activity timed out');
    expect(held.changes.map((c) => c.detail)).toEqual(['launching -> live']);
    // A later good reading clears the error.
    held = mergeReportUpdate(held, update({ point: point(3, 9), performance: { readAt: at(3), completes: 9, completesByStatus: {}, quotas: [] } }));
    expect(held.performanceError).toBeUndefined();
  });
});
