import { describe, expect, it } from 'vitest';
import { DRAFT_BATCH_MAX } from '../../activities/target-groups';
import { DRAFT_BATCH_SIZE, inBatches } from '../../workflows/draft-batches';

describe('inBatches', () => {
  it('splits in order into groups of at most the size, the last one shorter', () => {
    expect(inBatches([1, 2, 3, 4, 5], 2)).toEqual([[1, 2], [3, 4], [5]]);
    expect(inBatches([1, 2, 3, 4], 2)).toEqual([[1, 2], [3, 4]]);
    expect(inBatches([], 3)).toEqual([]);
  });

  it('uses DRAFT_BATCH_SIZE by default, which the batch activity accepts', () => {
    const keys = Array.from({ length: 2 * DRAFT_BATCH_SIZE + 1 }, (_, i) => `tg${i}`);
    expect(inBatches(keys).map((b) => b.length)).toEqual([DRAFT_BATCH_SIZE, DRAFT_BATCH_SIZE, 1]);
    expect(DRAFT_BATCH_SIZE).toBeLessThanOrEqual(DRAFT_BATCH_MAX);
  });

  it('refuses a size that is not a positive integer', () => {
    expect(() => inBatches([1], 0)).toThrow(RangeError);
    expect(() => inBatches([1], 1.5)).toThrow(/positive integer/);
  });
});
