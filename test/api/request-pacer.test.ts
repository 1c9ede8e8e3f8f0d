import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createRequestPacer } from '../../api/http/request-pacer';

describe('request pacer', () => {
  // Fake timers (and Date.now) make the starts exact: the pacer's arithmetic, not the machine's load, is tested.
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('spaces request starts at 1000/rate ms, so no second holds more than the rate', async () => {
    const pacer = createRequestPacer(20);
    const starts: number[] = [];
    const t0 = Date.now();
    const all = Promise.all(
      Array.from({ length: 30 }, async () => {
        await pacer.take();
        starts.push(Date.now() - t0);
      }),
    );
    await vi.advanceTimersByTimeAsync(2_000);
    await all;
    expect(starts).toEqual(Array.from({ length: 30 }, (_, i) => i * 50));
    expect(starts.filter((s) => s < 1000)).toHaveLength(20);
  });

  it('does not pace without a rate, and refuses a rate that is not positive', async () => {
    const unpaced = createRequestPacer(undefined);
    const t0 = Date.now();
    // No timer is pending: every take resolves without the clock moving.
    await Promise.all(Array.from({ length: 100 }, () => unpaced.take()));
    expect(Date.now() - t0).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
    expect(() => createRequestPacer(0)).toThrow(/positive/);
    expect(() => createRequestPacer(Number.NaN)).toThrow(/positive/);
  });

  it('gives up waiting when the request is aborted', async () => {
    const pacer = createRequestPacer(1);
    await pacer.take();
    const controller = new AbortController();
    const waiting = pacer.take(controller.signal);
    controller.abort(new Error('cancelled'));
    await expect(waiting).rejects.toThrow('cancelled');
  });
});
