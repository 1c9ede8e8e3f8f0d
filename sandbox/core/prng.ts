// Seedable PRNG (mulberry32) so fault injection and simulated outcomes are reproducible in tests.
export interface Prng {
  /** Uniform float in [0, 1). */
  next(): number;
  /** True with probability `rate` (0 never draws, so rate 0 leaves the sequence untouched). */
  chance(rate: number): boolean;
  reseed(seed: number): void;
}

export function createPrng(seed: number): Prng {
  let s = seed >>> 0;
  const next = () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    chance: (rate) => (rate <= 0 ? false : rate >= 1 ? true : next() < rate),
    reseed: (seed2) => {
      s = seed2 >>> 0;
    },
  };
}
