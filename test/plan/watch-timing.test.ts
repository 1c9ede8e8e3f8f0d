// The watch's timing (plan/watch-timing.ts) at its long horizons, without waiting: a target group's fallback
// timer (twice the interval spread by workflow id, doubling to 6 hours; 6 hours spread over 6 hours once the list
// carries updated_at), its paced performance reads, its pacing carried across continue-as-new; the study's
// figures sent (the first, a new status at once, a change held back then sent) and compared field by field.
import { describe, expect, it } from 'vitest';
import {
  carriedPacing,
  carriedSeenFigures,
  MAX_QUIET_MS,
  NEW_PACING,
  nextStudyWatchAction,
  nextWatchAction,
  PERFORMANCE_PACE_INTERVALS,
  sameFigures,
  spreadMs,
  type SeenFigures,
  type StudyWatchTiming,
  type TargetGroupPacing,
  type TargetGroupWatchAction,
  type TargetGroupWatchEvent,
} from '../../plan/watch-timing';

const MIN = 60_000;
const HOUR = 60 * MIN;
const INTERVAL = 5 * MIN;
const T0 = Date.parse('2026-11-26T08:00:00.000Z');
const ID = 'study/1001/acme/tg/us';
const live = { intervalMs: INTERVAL, workflowId: ID, phase: 'live' };

/** A target group's watch driven turn by turn: each sleep runs to its end unless `wake` says when something woke it. */
class Watch {
  pacing: TargetGroupPacing;
  now: number;
  readonly reads: { at: number; performance: boolean; drift: string }[] = [];
  constructor(
    pacing: TargetGroupPacing = { ...NEW_PACING },
    now = T0,
    readonly context = live,
  ) {
    this.pacing = pacing;
    this.now = now;
  }
  /** The turn's sleep: until when. */
  sleep(): number {
    const { pacing, action } = nextWatchAction(this.pacing, { kind: 'turn' }, this.now, this.context);
    this.pacing = pacing;
    if (action.kind !== 'sleep') throw new Error('a turn sleeps');
    return action.until;
  }
  /** One turn: sleeps until its time or `wakeAt` (whichever is first), then takes `woke`. */
  turn(woke: Omit<Extract<TargetGroupWatchEvent, { kind: 'woke' }>, 'kind'> = {}, wakeAt?: number): Extract<TargetGroupWatchAction, { kind: 'read' }> {
    const until = this.sleep();
    this.now = wakeAt !== undefined ? Math.min(Math.max(wakeAt, this.now), Math.max(until, this.now)) : Math.max(until, this.now);
    const { pacing, action } = nextWatchAction(this.pacing, { kind: 'woke', ...woke }, this.now, this.context);
    this.pacing = pacing;
    if (action.kind !== 'read') throw new Error('a woken turn reads (or not)');
    if (action.performance || action.drift !== 'none') this.reads.push({ at: this.now, performance: action.performance, drift: action.drift });
    return action;
  }
  /** Turns with nothing but the timer until `until`. */
  runUntil(until: number): void {
    while (this.sleep() <= until) this.turn();
  }
}

describe("a target group's fallback timer", () => {
  it('first checks at twice the interval plus an offset within one interval by the workflow id, then doubles up to 6 hours', () => {
    const w = new Watch();
    expect(w.sleep()).toBe(T0 + 2 * INTERVAL + spreadMs(ID, INTERVAL));
    w.runUntil(T0 + 3 * 24 * HOUR);
    const gaps = w.reads.slice(1).map((r, i) => r.at - w.reads[i].at);
    expect(gaps.slice(0, 6)).toEqual([4, 8, 16, 32, 64, 72].map((n) => n * INTERVAL));
    expect(new Set(gaps.slice(5))).toEqual(new Set([MAX_QUIET_MS]));
    // No figures ever came (a study that does not watch): every fallback reads performance and checks drift.
    expect(w.reads.every((r) => r.performance && r.drift === 'check')).toBe(true);
  });

  it('once figures carry updated_at: the first of them is checked, then the fallback waits 6 hours, spread over 6 hours by workflow id', () => {
    const w = new Watch();
    w.sleep();
    const first = w.turn({ figures: { status: 'live', updatedAt: '2026-11-26T07:59:00.000Z' } }, T0 + MIN);
    expect(first).toEqual({ kind: 'read', performance: true, drift: 'check' });
    expect(w.pacing.quietMs).toBe(MAX_QUIET_MS);
    expect(w.sleep()).toBe(Math.max(T0 + 2 * INTERVAL + spreadMs(ID, INTERVAL), T0 + MIN + spreadMs(ID, MAX_QUIET_MS)));
    // A week of quiet: one drift check per 6 hours, no performance read (no figures changed).
    const from = w.reads.length;
    w.runUntil(T0 + 7 * 24 * HOUR);
    const quiet = w.reads.slice(from);
    expect(quiet.length).toBeGreaterThanOrEqual(27);
    expect(quiet.length).toBeLessThanOrEqual(28);
    expect(quiet.every((r) => !r.performance && r.drift === 'check')).toBe(true);
    expect(new Set(quiet.slice(1).map((r, i) => r.at - quiet[i].at))).toEqual(new Set([MAX_QUIET_MS]));
  });

  it('spreads the first slow fallback of 1,000 target groups launched together over the 6 hours', () => {
    const firsts = Array.from({ length: 1000 }, (_, i) => {
      const context = { ...live, workflowId: `study/1001/s${i % 10}/tg/tg-${i}` };
      let pacing = nextWatchAction(NEW_PACING, { kind: 'turn' }, T0, context).pacing;
      pacing = nextWatchAction(pacing, { kind: 'woke', figures: { status: 'live', updatedAt: 'u1' } }, T0 + MIN, context).pacing;
      return pacing.nextReadAt - (T0 + MIN);
    });
    const hours = new Array<number>(6).fill(0);
    for (const offset of firsts) hours[Math.floor(offset / HOUR)] += 1;
    expect(Math.min(...firsts)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...firsts)).toBeLessThan(MAX_QUIET_MS);
    // No hour holds more than twice its share.
    expect(Math.max(...hours)).toBeLessThanOrEqual(2 * (1000 / 6));
    expect(Math.min(...hours)).toBeGreaterThan(0);
  });

  it('checks drift when updated_at moves, not on the list reads in between', () => {
    const w = new Watch();
    w.sleep();
    w.turn({ figures: { status: 'live', updatedAt: 'u1' } }, T0 + MIN);
    expect(w.turn({ figures: { status: 'live', updatedAt: 'u1' } }, T0 + MIN + INTERVAL).drift).toBe('none');
    expect(w.turn({ figures: { status: 'live', updatedAt: 'u2' } }, T0 + MIN + 2 * INTERVAL).drift).toBe('check');
  });
});

describe("a target group's paced performance reads", () => {
  it('reads at once for the first figures and a new status; a change otherwise at most once per pace, the turn sleeping until then', () => {
    // The list carries updated_at: the fallback is 6 hours away, only the pace wakes the turn.
    const w = new Watch();
    w.sleep();
    expect(w.turn({ figures: { status: 'live', updatedAt: 'u1' } }, T0 + MIN).performance).toBe(true);
    const read = w.now;
    // Figures again one interval later: held (unread), the turn sleeps until the pace has passed.
    expect(w.turn({ figures: { status: 'live', updatedAt: 'u1' } }, read + INTERVAL).performance).toBe(false);
    expect(w.pacing.unread).toBe(true);
    expect(w.sleep()).toBe(read + PERFORMANCE_PACE_INTERVALS * INTERVAL);
    expect(w.turn()).toMatchObject({ performance: true });
    expect(w.now).toBe(read + PERFORMANCE_PACE_INTERVALS * INTERVAL);
    // A new status (completed in the exchange) reads performance and the state at once, whatever the pace.
    expect(w.turn({ figures: { status: 'completed', updatedAt: 'u2' } }, w.now + MIN)).toEqual({ kind: 'read', performance: true, drift: 'check' });
  });

  it('a target_group.updated event checks the state at once, a completion it shows taken with the next reading', () => {
    const w = new Watch();
    w.sleep();
    expect(w.turn({ targetGroupUpdated: true }, T0 + MIN)).toEqual({ kind: 'read', performance: false, drift: 'check_later_completion' });
  });

  it('a revision, a control or an event that wakes the turn early reads nothing of its own', () => {
    const w = new Watch();
    w.sleep();
    expect(w.turn({}, T0 + MIN)).toEqual({ kind: 'read', performance: false, drift: 'none' });
    expect(w.sleep()).toBe(T0 + 2 * INTERVAL + spreadMs(ID, INTERVAL));
  });

  it('a scheduled run with figures not read sleeps until its fallback, not again and again at once (its performance is never read)', () => {
    const w = new Watch(undefined, T0, { ...live, phase: 'scheduled' });
    w.sleep();
    expect(w.turn({ figures: { status: 'scheduled' } }, T0 + MIN)).toEqual({ kind: 'read', performance: false, drift: 'none' });
    expect(w.pacing.unread).toBe(true);
    expect(w.sleep()).toBeGreaterThan(w.now);
    expect(w.sleep()).toBe(T0 + 2 * INTERVAL + spreadMs(ID, INTERVAL));
    // Live in the exchange: the status differs from the phase, performance and state are read at once.
    expect(w.turn({ figures: { status: 'live' } }, T0 + 2 * MIN)).toEqual({ kind: 'read', performance: false, drift: 'check' });
  });

  it('not watched (a draft, completed): sleeps one interval, reads nothing, keeps the figures', () => {
    const w = new Watch(undefined, T0, { ...live, phase: 'completed' });
    expect(w.sleep()).toBe(T0 + INTERVAL);
    expect(w.turn({ figures: { status: 'completed', updatedAt: 'u1' } }, T0 + MIN)).toEqual({ kind: 'read', performance: false, drift: 'none' });
    expect(w.pacing).toMatchObject({ quietMs: MAX_QUIET_MS, figuresSeen: true, unread: true, updatedAt: 'u1' });
  });
});

describe('the pacing carried across continue-as-new', () => {
  it('keeps the rhythm: the new run sleeps until the carried paced read and fallback, and reads nothing at once', () => {
    const w = new Watch();
    w.sleep();
    w.turn({ figures: { status: 'live', updatedAt: 'u1' } }, T0 + MIN);
    w.turn({ figures: { status: 'live', updatedAt: 'u1' } }, T0 + MIN + INTERVAL);
    const pacedRead = T0 + MIN + PERFORMANCE_PACE_INTERVALS * INTERVAL;
    const fallback = w.pacing.nextReadAt;
    expect(w.sleep()).toBe(pacedRead);
    // A new run one minute later (continue-as-new carries the pacing as JSON): nothing is read at its start.
    const next = new Watch(carriedPacing(JSON.parse(JSON.stringify(w.pacing))), T0 + 2 * MIN + INTERVAL);
    expect(next.pacing).toEqual(w.pacing);
    expect(next.sleep()).toBe(pacedRead);
    expect(next.turn({}, next.now)).toEqual({ kind: 'read', performance: false, drift: 'none' });
    // The held change is read at its time; then the slow fallback, every 6 hours from the carried one.
    next.runUntil(fallback + MAX_QUIET_MS);
    expect(next.reads).toEqual([
      { at: pacedRead, performance: true, drift: 'none' },
      { at: fallback, performance: false, drift: 'check' },
      { at: fallback + MAX_QUIET_MS, performance: false, drift: 'check' },
    ]);
    // Without the carried pacing a new run would start its fallback afresh, at twice the interval.
    expect(new Watch(undefined, next.now).sleep()).toBe(next.now + 2 * INTERVAL + spreadMs(ID, INTERVAL));
  });

  it('a run carried from before the pacing (or with an unreadable field) starts that field afresh', () => {
    expect(carriedPacing(undefined)).toEqual(NEW_PACING);
    expect(carriedPacing({ nextReadAt: 'soon', quietMs: 600_000, unread: true, updatedAt: 7 })).toEqual({ ...NEW_PACING, quietMs: 600_000, unread: true });
  });
});

describe("the study's watch", () => {
  const figures = (status: string, completes: number, extra: Partial<SeenFigures> = {}): SeenFigures & { incidenceRate?: number } => ({ status, completes, prescreens: completes * 3, ...extra });
  const watch = (seen: Record<string, SeenFigures> = {}, signaledAt: Record<string, number> = {}): StudyWatchTiming & { apiVersion: string } => ({ intervalMs: INTERVAL, apiVersion: '2025-12-18', seen, signaledAt });
  const decide = (w: StudyWatchTiming, f: SeenFigures, now: number) => nextStudyWatchAction(w, { kind: 'figures', key: 'q', figures: f }, now).action;
  const sent = (w: StudyWatchTiming, f: SeenFigures, now: number) => nextStudyWatchAction(w, { kind: 'sent', key: 'q', figures: f }, now).watch;

  it('sends the first figures, holds a change of completes until the pace passed, and a new status at once', () => {
    const w0 = sent(watch(), figures('live', 10), T0);
    expect(decide(watch(), figures('live', 0), T0)).toEqual({ kind: 'send_figures' });
    expect(decide(w0, figures('live', 10), T0 + INTERVAL)).toEqual({ kind: 'hold', why: 'unchanged' });
    expect(decide(w0, figures('live', 11), T0 + INTERVAL)).toEqual({ kind: 'hold', why: 'paced' });
    expect(decide(w0, figures('live', 12), T0 + (PERFORMANCE_PACE_INTERVALS - 1) * INTERVAL)).toEqual({ kind: 'hold', why: 'paced' });
    expect(decide(w0, figures('live', 12), T0 + PERFORMANCE_PACE_INTERVALS * INTERVAL)).toEqual({ kind: 'send_figures' });
    expect(decide(w0, figures('completed', 10), T0 + 1)).toEqual({ kind: 'send_figures' });
    expect(decide(w0, figures('paused', 10), T0 + 1)).toEqual({ kind: 'send_figures' });
    // A watch carried from before the pacing (no signaledAt for the key): a change is sent.
    expect(decide(watch({ q: figures('live', 10) }), figures('live', 11), T0)).toEqual({ kind: 'send_figures' });
  });

  it('remembers only what was sent: a held-back change is sent at a later read, then held again for a pace', () => {
    let w = sent(watch(), figures('live', 10), T0);
    const reads = [1, 2, 3, 4, 5, 6, 7].map((n) => T0 + n * INTERVAL);
    const sentAt: number[] = [];
    for (const [i, at] of reads.entries()) {
      const f = figures('live', 11 + i);
      if (decide(w, f, at).kind === 'send_figures') {
        w = sent(w, f, at);
        sentAt.push(at);
      }
    }
    expect(sentAt).toEqual([T0 + 3 * INTERVAL, T0 + 6 * INTERVAL]);
    expect(w.seen.q).toEqual(figures('live', 16));
    expect(w.signaledAt?.q).toBe(T0 + 6 * INTERVAL);
  });

  it('compares the figures field by field: each compared field is a change, the others (rates, cost) are not', () => {
    const base = figures('live', 5, { lastCompleteDate: '2026-11-26T07:00:00.000Z', updatedAt: '2026-11-26T06:00:00.000Z' });
    expect(sameFigures(base, { ...base })).toBe(true);
    expect(sameFigures(base, { ...base, incidenceRate: 0.2 } as SeenFigures)).toBe(true);
    for (const change of [{ status: 'paused' }, { completes: 6 }, { prescreens: 16 }, { lastCompleteDate: '2026-11-26T07:30:00.000Z' }, { updatedAt: undefined }]) {
      expect(sameFigures(base, { ...base, ...change })).toBe(false);
    }
    // The remembered figures are the compared fields only.
    expect(sent(watch(), { ...base, incidenceRate: 0.2 } as SeenFigures, T0).seen.q).toEqual(base);
  });

  it('reads the list once per interval while a target group is watched, and forgets its time while none is', () => {
    let w: StudyWatchTiming = watch();
    let step = nextStudyWatchAction(w, { kind: 'turn', watching: false }, T0);
    expect(step.action).toEqual({ kind: 'idle' });
    step = nextStudyWatchAction(step.watch, { kind: 'turn', watching: true }, T0);
    expect(step.action).toEqual({ kind: 'sleep', until: T0 + INTERVAL });
    step = nextStudyWatchAction(step.watch, { kind: 'turn', watching: true }, T0 + INTERVAL);
    expect(step.action).toEqual({ kind: 'read_list' });
    w = nextStudyWatchAction(step.watch, { kind: 'tick' }, T0 + INTERVAL + 40).watch;
    expect(w.nextAt).toBe(T0 + 2 * INTERVAL + 40);
    expect(nextStudyWatchAction(w, { kind: 'turn', watching: false }, T0 + INTERVAL + 50).watch.nextAt).toBeUndefined();
  });

  it('after a revision keeps the figures seen, and the next read when the interval is the same', () => {
    const w = { ...sent(watch(), figures('live', 3), T0), nextAt: T0 + INTERVAL };
    expect(nextStudyWatchAction(w, { kind: 'revision', intervalMs: INTERVAL }, T0 + 1).watch).toEqual(w);
    const faster = nextStudyWatchAction(w, { kind: 'revision', intervalMs: MIN }, T0 + 1).watch;
    expect(faster).toEqual({ ...w, intervalMs: MIN, nextAt: undefined });
    expect(faster).not.toHaveProperty('nextAt');
  });
});

describe('the figures seen, carried across continue-as-new', () => {
  it('reads the text form a run from before held (status|completes|prescreens|last complete|updated_at) into its fields', () => {
    expect(
      carriedSeenFigures({
        q: 'live|10|30|2026-11-26T07:00:00.000Z|2026-11-26T06:00:00.000Z',
        m: 'paused|0|0||',
        s: { status: 'live', completes: 4, prescreens: 12, updatedAt: 'u1' },
      }),
    ).toEqual({
      q: { status: 'live', completes: 10, prescreens: 30, lastCompleteDate: '2026-11-26T07:00:00.000Z', updatedAt: '2026-11-26T06:00:00.000Z' },
      m: { status: 'paused', completes: 0, prescreens: 0 },
      s: { status: 'live', completes: 4, prescreens: 12, updatedAt: 'u1' },
    });
  });

  it('drops what it cannot read (those figures are sent again), and a carried form equal to the list is held', () => {
    expect(carriedSeenFigures({ a: 'live|x|1||', b: 'live|1', c: 42, d: { status: 'live' } })).toEqual({});
    expect(carriedSeenFigures(undefined)).toEqual({});
    const carried = { intervalMs: INTERVAL, seen: carriedSeenFigures({ q: 'live|10|30||u1' }), signaledAt: { q: T0 } };
    expect(nextStudyWatchAction(carried, { kind: 'figures', key: 'q', figures: { status: 'live', completes: 10, prescreens: 30, updatedAt: 'u1' } }, T0 + 10 * INTERVAL).action).toEqual({ kind: 'hold', why: 'unchanged' });
  });
});
