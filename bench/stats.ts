// Summary statistics of the benchmarks: pure functions, unit-tested in test/bench/.

/** Nearest-rank percentile (p in 0..100) of `values`; NaN for an empty list. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return NaN;
  if (!(p >= 0 && p <= 100)) throw new RangeError(`percentile must be between 0 and 100, got ${p}`);
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))];
}

/** Median as the 50th nearest-rank percentile (always one of the values). */
export function median(values: readonly number[]): number {
  return percentile(values, 50);
}

export interface Distribution {
  count: number;
  medianMs: number;
  p95Ms: number;
  minMs: number;
  maxMs: number;
  meanMs: number;
}

/** Count, median, p95, min, max and mean of durations in ms, rounded to 0.01 ms. */
export function distribution(valuesMs: readonly number[]): Distribution {
  const round = (v: number) => Math.round(v * 100) / 100;
  const sum = valuesMs.reduce((a, b) => a + b, 0);
  return {
    count: valuesMs.length,
    medianMs: round(median(valuesMs)),
    p95Ms: round(percentile(valuesMs, 95)),
    minMs: round(valuesMs.length ? Math.min(...valuesMs) : NaN),
    maxMs: round(valuesMs.length ? Math.max(...valuesMs) : NaN),
    meanMs: round(valuesMs.length ? sum / valuesMs.length : NaN),
  };
}

/** `a / b` rounded to `digits`, or null when either is missing or b is 0. */
export function ratio(a: number | null | undefined, b: number | null | undefined, digits = 2): number | null {
  if (a === null || a === undefined || b === null || b === undefined || b === 0 || !Number.isFinite(a) || !Number.isFinite(b)) return null;
  return Number((a / b).toFixed(digits));
}
