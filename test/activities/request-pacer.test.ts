import { describe, expect, it } from 'vitest';
import { createRequestPacer } from '../../activities/http/request-pacer';

describe('request pacer', () => {
  it('spaces request starts at 1000/rate ms, so no second holds more than the rate', async () => {
    const pacer = createRequestPacer(20);
    const starts: number[] = [];
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: 30 }, async () => {
        await pacer.take();
        starts.push(performance.now() - t0);
      }),
    );
    starts.sort((a, b) => a - b);
    for (let i = 1; i < starts.length; i += 1) expect(starts[i] - starts[i - 1]).toBeGreaterThanOrEqual(45);
    const inFirstSecond = starts.filter((s) => s < 1000).length;
    expect(inFirstSecond).toBeLessThanOrEqual(21);
  });

  it('does not pace without a rate, and refuses a rate that is not positive', async () => {
    const unpaced = createRequestPacer(undefined);
    const t0 = performance.now();
    await Promise.all(Array.from({ length: 100 }, () => unpaced.take()));
    expect(performance.now() - t0).toBeLessThan(500);
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
