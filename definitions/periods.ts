import { GUARD_DURATION_PATTERN, ISO_PERIOD_PATTERN, TIMING_DURATION_PATTERN } from './study-schema';

/** Days per calendar unit when a period is normalized to days (the API normalizes calendar periods to days). */
export const DAYS_PER_UNIT = { Y: 365, M: 30, W: 7, D: 1 } as const;
export const MIN_ACTIVITY_DAYS = 1;
export const MAX_ACTIVITY_DAYS = 396;
export const DEFAULT_ACTIVITY_DURATION = 'P90D';

/** Days of a date-only ISO-8601 period (`P30D`, `P2W`, `P3M`, `P1Y`, `P1M15D`), or undefined if it is not one. */
export function periodToDays(period: string): number | undefined {
  const m = ISO_PERIOD_PATTERN.exec(period);
  if (!m) return undefined;
  const [, y, mo, w, d] = m.map((part) => (part ? Number.parseInt(part, 10) : 0));
  return y * DAYS_PER_UNIT.Y + mo * DAYS_PER_UNIT.M + w * DAYS_PER_UNIT.W + d * DAYS_PER_UNIT.D;
}

/** Effective look-back of an activity item: its own duration, else the request-level one, else P90D. */
export function effectiveActivityDays(itemDuration?: string, requestDuration?: string): number {
  return periodToDays(itemDuration ?? requestDuration ?? DEFAULT_ACTIVITY_DURATION) ?? 90;
}

const MS_PER_UNIT = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 } as const;

/** Milliseconds of a timing duration (`500ms`, `1s`, `30m`, `2h`), or undefined if it is not one. */
export function timingDurationMs(duration: string): number | undefined {
  const m = TIMING_DURATION_PATTERN.exec(duration);
  if (!m) return undefined;
  return Number.parseInt(m[1], 10) * MS_PER_UNIT[m[2] as keyof typeof MS_PER_UNIT];
}

/**
 * Milliseconds of a guard's ISO-8601 duration (`P2D`, `PT36H`, `P1DT12H`, `P1W`: weeks of 7 days, days of 24
 * hours; no years or months, whose length varies), or undefined if it is not one.
 */
export function guardDurationMs(duration: string): number | undefined {
  const m = GUARD_DURATION_PATTERN.exec(duration);
  if (!m) return undefined;
  const [w, d, h, min, s] = m.slice(1).map((part) => (part ? Number.parseInt(part, 10) : 0));
  return ((((w * 7 + d) * 24 + h) * 60 + min) * 60 + s) * 1000;
}
