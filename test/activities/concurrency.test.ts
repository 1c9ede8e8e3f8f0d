// inParallel: bounded concurrency with results in the order of the items.
import { describe, expect, it } from 'vitest';
import { inParallel } from '../../activities/concurrency';

describe('inParallel', () => {
  it('returns the results in the order of the items, whatever order they finish in, with at most `limit` running', async () => {
    let running = 0;
    let most = 0;
    const order: number[] = [];
    // Later items finish first: each waits fewer turns of the microtask queue than the one before.
    const out = await inParallel([1, 2, 3, 4, 5, 6, 7], 3, async (n) => {
      running += 1;
      most = Math.max(most, running);
      for (let i = 0; i < 10 - n; i += 1) await Promise.resolve();
      running -= 1;
      order.push(n);
      return n * 10;
    });
    expect(out).toEqual([10, 20, 30, 40, 50, 60, 70]);
    expect(most).toBe(3);
    expect(order).not.toEqual([1, 2, 3, 4, 5, 6, 7]);
  });

  it('rejects with the first failure', async () => {
    await expect(inParallel([1, 2, 3], 2, async (n) => {
      if (n === 2) throw new Error('item 2 failed');
      return n;
    })).rejects.toThrow('item 2 failed');
  });

  it('does nothing for no items', async () => {
    expect(await inParallel([], 4, async () => 1)).toEqual([]);
  });
});
