// ISO-8601 date-only periods (PnYnMnWnD, no time part) normalised to days: Y = 365, M = 30, W = 7.

export const DAYS_PER_YEAR = 365;
export const DAYS_PER_MONTH = 30;
export const DAYS_PER_WEEK = 7;

const DATE_PERIOD = /^P(?:(\d{1,4})Y)?(?:(\d{1,4})M)?(?:(\d{1,4})W)?(?:(\d{1,5})D)?$/;

/** Days of a date-only period, or null when `text` is not one (e.g. has a T part or no component). */
export function dateOnlyPeriodDays(text: string): number | null {
  const m = DATE_PERIOD.exec(text);
  if (!m || text === 'P') return null;
  const [, y, mo, w, d] = m.map((x) => (x === undefined ? 0 : Number(x)));
  return y * DAYS_PER_YEAR + mo * DAYS_PER_MONTH + w * DAYS_PER_WEEK + d;
}
