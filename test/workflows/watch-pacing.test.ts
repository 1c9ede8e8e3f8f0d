// The watch's pacing at scale (docs/benchmarks.md, "Cost of watching at scale"): the study sends a target group
// changed figures at most once per performance pace (a new status at once; plan/watch-timing.ts decides, its long
// horizons are test/plan/watch-timing.test.ts), a study carried from an older run reads its figures seen, and the
// target groups' first fallback checks spread over one watch interval by workflow id instead of all firing together.
import { describe, expect, it } from 'vitest';
import { nextStudyWatchAction, PERFORMANCE_PACE_INTERVALS, seenFiguresOf, spreadMs } from '../../plan/watch-timing';
import { emptyCarried, StudyState, type StudyCarriedState, type StudyWatch } from '../../workflows/study/state';
import type { TargetGroupFigures } from '../../workflows/child-protocol';

const INTERVAL = 300_000;
const figures = (status: string, completes: number): TargetGroupFigures => ({ id: '01TG', status, completes, prescreens: completes * 3 });
const watch = (seen: StudyWatch['seen'], signaledAt: Record<string, number>): StudyWatch => ({ intervalMs: INTERVAL, apiVersion: '2025-12-18', seen, signaledAt });
const sendsNow = (w: StudyWatch, key: string, f: TargetGroupFigures, now: number) => nextStudyWatchAction(w, { kind: 'figures', key, figures: f }, now).action.kind === 'send_figures';

describe('the study sends changed figures at the pace of the performance reads', () => {
  const t0 = 1_000_000;
  const sent = watch({ q: seenFiguresOf(figures('live', 10)) }, { q: t0 });

  it('sends figures never seen, whenever', () => {
    expect(sendsNow(watch({}, {}), 'q', figures('live', 0), t0)).toBe(true);
  });

  it('holds back a change of completes until the pace has passed since the last signal', () => {
    expect(sendsNow(sent, 'q', figures('live', 11), t0 + INTERVAL)).toBe(false);
    expect(sendsNow(sent, 'q', figures('live', 12), t0 + (PERFORMANCE_PACE_INTERVALS - 1) * INTERVAL)).toBe(false);
    expect(sendsNow(sent, 'q', figures('live', 13), t0 + PERFORMANCE_PACE_INTERVALS * INTERVAL)).toBe(true);
  });

  it('sends a new status at once (a completion is taken with its reading)', () => {
    expect(sendsNow(sent, 'q', figures('completed', 10), t0 + 1)).toBe(true);
    expect(sendsNow(sent, 'q', figures('paused', 10), t0 + 1)).toBe(true);
  });

  it('sends a change when it never signaled this target group (a watch carried from before the pacing)', () => {
    expect(sendsNow(watch({ q: seenFiguresOf(figures('live', 10)) }, {}), 'q', figures('live', 11), t0)).toBe(true);
  });
});

describe("a study run carried from before the figures seen were structured", () => {
  const carried = (seen: Record<string, unknown>): StudyCarriedState => ({
    ...emptyCarried({ accountId: '1001', studyId: 'w' }),
    watch: { intervalMs: INTERVAL, apiVersion: '2025-12-18', seen: seen as StudyWatch['seen'], signaledAt: { q: 5 }, nextAt: 7 },
  });

  it('reads the text form into fields: the same figures are held, a new status is sent, the next run carries fields', () => {
    const state = new StudyState({ accountId: '1001', studyId: 'w', carried: JSON.parse(JSON.stringify(carried({ q: 'live|10|30||' }))) as StudyCarriedState });
    expect(state.watch).toEqual({ ...watch({ q: { status: 'live', completes: 10, prescreens: 30 } }, { q: 5 }), nextAt: 7 });
    expect(sendsNow(state.watch!, 'q', figures('live', 10), 5 + 10 * INTERVAL)).toBe(false);
    expect(sendsNow(state.watch!, 'q', figures('completed', 10), 6)).toBe(true);
    expect(state.carried().watch?.seen).toEqual({ q: { status: 'live', completes: 10, prescreens: 30 } });
  });
});

describe('first fallback checks spread over one interval', () => {
  it('is stable for an id and within [0, span)', () => {
    const id = 'studyflow/1001/acme/tg/us';
    expect(spreadMs(id, INTERVAL)).toBe(spreadMs(id, INTERVAL));
    for (let i = 0; i < 1000; i += 1) {
      const offset = spreadMs(`studyflow/1001/s${i % 10}/tg/tg-${i}`, INTERVAL);
      expect(offset).toBeGreaterThanOrEqual(0);
      expect(offset).toBeLessThan(INTERVAL);
    }
    expect(spreadMs(id, 0)).toBe(0);
  });

  it('spreads 1,000 target groups of 10 studies evenly: no tenth of the interval holds more than twice its share', () => {
    const buckets = new Array<number>(10).fill(0);
    for (let i = 0; i < 1000; i += 1) buckets[Math.floor(spreadMs(`studyflow/1001/study-${i % 10}/tg/tg-${String(i).padStart(4, '0')}`, INTERVAL) / (INTERVAL / 10))] += 1;
    expect(Math.max(...buckets)).toBeLessThanOrEqual(200);
    expect(Math.min(...buckets)).toBeGreaterThan(0);
  });
});
