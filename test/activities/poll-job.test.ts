// The poll schedule of a job awaited inside an activity, on a fake clock: when each poll starts.
import { describe, expect, it } from 'vitest';
import { pollJob } from '../../activities/job-wait';

/** A clock that only moves when a read takes time or the poller sleeps. */
function fakeClock(readMs: number | ((poll: number) => number), doneAtPoll: number) {
  let now = 0;
  const starts: number[] = [];
  const sleeps: number[] = [];
  const read = async () => {
    starts.push(now);
    now += typeof readMs === 'number' ? readMs : readMs(starts.length);
    return { status: starts.length >= doneAtPoll ? 'Completed' : 'Processing' };
  };
  const clock = {
    now: () => now,
    sleep: async (ms: number) => {
      sleeps.push(ms);
      now += ms;
    },
  };
  return { read, clock, starts, sleeps };
}

describe('pollJob', () => {
  it("starts each poll the schedule's delay after the previous one started, whatever its answer took", async () => {
    const f = fakeClock(30, 5);
    const out = await pollJob(f.read, { pollInitialMs: 40, pollMaxMs: 60, budgetMs: 10_000 }, f.clock);
    // Delays 40, 60 (40 x 1.5), 60, 60 from one start to the next; the 30 ms answers do not add to them.
    expect(f.starts).toEqual([0, 40, 100, 160, 220]);
    expect(out).toEqual({ status: 'Completed', polls: 5, done: true });
  });

  it('polls again at once when an answer took longer than the delay', async () => {
    const f = fakeClock((poll) => (poll === 1 ? 100 : 10), 3);
    await pollJob(f.read, { pollInitialMs: 40, pollMaxMs: 40, budgetMs: 10_000 }, f.clock);
    expect(f.starts).toEqual([0, 100, 140]);
    expect(f.sleeps).toEqual([0, 30]);
  });

  it('never sleeps past its budget, and hands a running job back when the budget is spent', async () => {
    const f = fakeClock(10, 1_000);
    const out = await pollJob(f.read, { pollInitialMs: 100, pollMaxMs: 100, budgetMs: 250 }, f.clock);
    expect(f.starts).toEqual([0, 100, 200, 250]);
    expect(out).toEqual({ status: 'Processing', polls: 4, done: false });
  });
});

