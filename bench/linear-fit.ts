// Least-squares straight line, for extrapolating a sequential baseline to sizes not run.

export interface LinearFit {
  intercept: number;
  slope: number;
}

/** The line y = intercept + slope * x closest (least squares) to the points; needs two distinct x. */
export function linearFit(xs: readonly number[], ys: readonly number[]): LinearFit {
  if (xs.length !== ys.length) throw new Error(`linearFit: ${xs.length} x values but ${ys.length} y values`);
  const n = xs.length;
  const meanX = xs.reduce((a, b) => a + b, 0) / n;
  const meanY = ys.reduce((a, b) => a + b, 0) / n;
  let sxx = 0;
  let sxy = 0;
  for (let i = 0; i < n; i += 1) {
    sxx += (xs[i] - meanX) ** 2;
    sxy += (xs[i] - meanX) * (ys[i] - meanY);
  }
  if (sxx === 0) throw new Error('linearFit needs at least two distinct x values');
  const slope = sxy / sxx;
  return { intercept: meanY - slope * meanX, slope };
}
