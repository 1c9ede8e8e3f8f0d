// The forecast as text (plan/forecast.ts): when a target group or a study will finish and what it will cost,
// each with its range, and what the forecast comes from. `status`, `report` and `plan` print it alike; the
// JSON outputs carry the forecast objects themselves.
import type { StudyForecast, TargetGroupForecast } from '../plan/forecast';
import type { Money } from '../plan/types';

type Range<T> = { expected: T; low: T; high: T };

/** `2026-11-21 02:00 UTC` (the forecasts are to the minute). */
export function forecastTime(iso: string): string {
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? iso : `${new Date(ms).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

const moneyText = (m: Money) => `${m.value} ${m.currency_code}`;

/** `finishes 2026-11-21 02:00 UTC (2026-11-20 23:10 UTC to 2026-11-21 06:40 UTC)`, or why there is no finish. */
export function finishText(finish: { expected?: string; earliest?: string; latest?: string }, endFieldingAt?: string): string {
  if (finish.expected === undefined) return 'no finish forecast';
  const earliest = finish.earliest ?? finish.expected;
  const range =
    finish.latest === undefined
      ? ` (not before ${forecastTime(earliest)}; no latest: the low rate is zero)`
      : earliest === finish.expected && finish.latest === finish.expected
        ? ''
        : ` (${forecastTime(earliest)} to ${forecastTime(finish.latest)})`;
  const late = endFieldingAt !== undefined && Date.parse(finish.expected) > Date.parse(endFieldingAt) ? `, after end_fielding_at ${forecastTime(endFieldingAt)}` : '';
  return `finishes ${forecastTime(finish.expected)}${range}${late}`;
}

/** `costs 1000.00 EUR (900.00 to 1100.00 EUR)`, or nothing without a cost. */
export function costText(cost: Range<Money> | undefined): string | undefined {
  if (!cost) return undefined;
  if (cost.low.value === cost.expected.value && cost.high.value === cost.expected.value) return `costs ${moneyText(cost.expected)}`;
  return `costs ${moneyText(cost.expected)} (${cost.low.value} to ${cost.high.value} ${cost.high.currency_code})`;
}

/** One target group's forecast in parts: finish with range, completes by the end (when short of the goal), cost with range. */
export function targetGroupForecastParts(f: TargetGroupForecast): string[] {
  // No finish while paused or before a staged launch starts: the forecast's own line says what is done and what remains.
  if (f.basis === 'paused') return [f.method];
  if (f.basis === 'awaiting') return [f.method, costText(f.cost)].filter((part): part is string => Boolean(part));
  const byEnd = f.completesByEnd && f.completesByEnd.expected < f.goal ? `${f.completesByEnd.expected} of ${f.goal} completes by the end (${f.completesByEnd.low} to ${f.completesByEnd.high})` : undefined;
  return [finishText(f.finish, f.endFieldingAt), byEnd, costText(f.cost)].filter((part): part is string => Boolean(part));
}

/** One target group's forecast in one line. */
export function targetGroupForecastText(f: TargetGroupForecast): string {
  return targetGroupForecastParts(f).join(', ');
}

/** The study's totals in one line. */
export function studyForecastText(f: StudyForecast): string {
  return [finishText(f.finish), costText(f.cost), f.finishesBeforeEnd === false ? 'some target group finishes after its end_fielding_at' : undefined].filter(Boolean).join(', ');
}

/** The forecast block of `status` and the human report: a line per target group with its basis, then the study. */
export function forecastLines(targetGroups: readonly { key: string; forecast?: TargetGroupForecast | null }[], study: StudyForecast | null | undefined): string[] {
  const known = targetGroups.filter((tg): tg is { key: string; forecast: TargetGroupForecast } => tg.forecast !== undefined && tg.forecast !== null);
  if (!known.length) return [];
  const lines = ['forecast:'];
  for (const tg of [...known].sort((a, b) => a.key.localeCompare(b.key))) {
    lines.push(`  ${tg.key}: ${targetGroupForecastText(tg.forecast)}`);
    lines.push(`    ${tg.forecast.method}`);
  }
  if (study) lines.push(`  study: ${studyForecastText(study)}${study.finish.expected === undefined ? ` (${study.method})` : ''}`);
  return lines;
}
