import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { distribution, median, percentile, ratio } from '../../bench/stats';
import { linearFit } from '../../bench/linear-fit';

describe('percentile (nearest rank)', () => {
  it('picks the nearest-rank value of an unsorted list', () => {
    const values = [50, 10, 40, 20, 30];
    expect(percentile(values, 0)).toBe(10);
    expect(percentile(values, 20)).toBe(10);
    expect(percentile(values, 21)).toBe(20);
    expect(percentile(values, 50)).toBe(30);
    expect(percentile(values, 95)).toBe(50);
    expect(percentile(values, 100)).toBe(50);
  });

  it('gives p95 of 1..100 as 95 and the median of an even list as the lower middle', () => {
    expect(percentile(Array.from({ length: 100 }, (_, i) => i + 1), 95)).toBe(95);
    expect(median([4, 1, 3, 2])).toBe(2);
  });

  it('is NaN for no values and rejects a p outside 0..100', () => {
    expect(percentile([], 50)).toBeNaN();
    expect(() => percentile([1], 101)).toThrow(RangeError);
    expect(() => percentile([1], -1)).toThrow(RangeError);
  });

  it('does not reorder its input', () => {
    const values = [3, 1, 2];
    percentile(values, 50);
    expect(values).toEqual([3, 1, 2]);
  });

  it('always returns one of the values, monotone in p', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: -1000, max: 1000 }), { minLength: 1, maxLength: 50 }), fc.integer({ min: 0, max: 100 }), fc.integer({ min: 0, max: 100 }), (values, p, q) => {
        const a = percentile(values, Math.min(p, q));
        const b = percentile(values, Math.max(p, q));
        expect(values).toContain(a);
        expect(a).toBeLessThanOrEqual(b);
        // At least p% of the values are at or below the p-th percentile.
        expect(values.filter((v) => v <= a).length / values.length).toBeGreaterThanOrEqual(Math.min(p, q) / 100);
      }),
      { numRuns: 200 },
    );
  });
});

describe('distribution and ratio', () => {
  it('summarises durations rounded to 0.01 ms', () => {
    expect(distribution([1.234, 2, 3, 4, 100])).toEqual({ count: 5, medianMs: 3, p95Ms: 100, minMs: 1.23, maxMs: 100, meanMs: 22.05 });
  });

  it('is null when a side is missing or the divisor is zero', () => {
    expect(ratio(3000, 1000)).toBe(3);
    expect(ratio(1000, 3000, 1)).toBe(0.3);
    expect(ratio(null, 1)).toBeNull();
    expect(ratio(1, 0)).toBeNull();
  });
});

describe('linearFit', () => {
  it('recovers an exact line and fits noisy points by least squares', () => {
    expect(linearFit([1, 10, 50], [900, 8100, 40_100])).toEqual({ intercept: expect.closeTo(100, 6), slope: expect.closeTo(800, 6) });
    const fit = linearFit([0, 1, 2, 3], [1, 3, 2, 4]);
    expect(fit.slope).toBeCloseTo(0.8, 10);
    expect(fit.intercept).toBeCloseTo(1.3, 10);
  });

  it('needs two distinct x values', () => {
    expect(() => linearFit([5, 5], [1, 2])).toThrow(/two distinct/);
    expect(() => linearFit([1, 2], [1])).toThrow(/2 x values but 1/);
  });
});
