// The forecast as text (plan/forecast.ts): when a target group or a study will finish and what it will cost,
// each with its range, and what the forecast comes from. `status`, `report` and `plan` print it alike; the
// JSON outputs carry the forecast objects themselves.
import type { StudyForecast, TargetGroupForecast } from '../plan/forecast';
import type { Money } from '../plan/types';
import type { QuotaForecast } from '../plan/quotas';
import type { TargetGroupQuotas } from '../workflows/messages';
import { table, type Output } from './output';

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
  // No finish while paused, while a soft launch holds the goal back, or before a staged launch starts: the forecast's own line says what is done and what remains.
  if (f.basis === 'paused' || f.basis === 'soft_launch') return [f.method];
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

// --- quotas ------------------------------------------------------------------------------------------------------

/** `2027-04-26` at midnight UTC, else `2027-04-26 18:00 UTC`. */
export function endDateText(iso: string): string {
  const text = forecastTime(iso);
  return text.endsWith(' 00:00 UTC') ? text.slice(0, 10) : text;
}

/** A 0–1 share as a percent with at most one decimal: `12%`, `11.7%`. */
const sharePercent = (x: number) => `${Math.round(x * 1000) / 10}%`;

/** What a quota's forecast says (plan/quotas.ts QuotaForecast): `behind: short by 41 (12%) by 2027-04-26`, `on track: …`, or why none. */
export function quotaForecastText(cell: QuotaForecast, end: string | undefined): string {
  const by = end ? ` by ${endDateText(end)}` : '';
  switch (cell.basis) {
    case 'full':
      return 'full';
    case 'no_goal':
      return 'no goal';
    case 'no_share':
      return 'no forecast yet (no complete in the target group)';
    case 'no_pace':
      return 'no forecast (no pace: under an hour of readings, paused, or no end date)';
    case 'forecast': {
      const expected = cell.completesByEnd?.expected ?? cell.completes;
      if (cell.shortfall && cell.shortfallFraction !== undefined) return `behind: short by ${cell.shortfall} (${sharePercent(cell.shortfallFraction)})${by}, forecast ${expected} of ${cell.goal}`;
      return `on track: ${expected} of ${cell.goal}${by}`;
    }
  }
}

/** A quota is forecast to miss its goal. */
export const quotaBehind = (cell: QuotaForecast) => (cell.shortfall ?? 0) > 0;

/**
 * The quota block of `status` and the human report: per target group with quotas read, a table of each quota's
 * completes against its goal, its fill and its forecast at the end date (a quota behind in yellow), and what was left out.
 */
export function quotaLines(out: Output, targetGroups: readonly { key: string; quotas?: TargetGroupQuotas | null }[]): string[] {
  const withQuotas = targetGroups.filter((tg): tg is { key: string; quotas: TargetGroupQuotas } => !!tg.quotas).sort((a, b) => a.key.localeCompare(b.key));
  if (!withQuotas.length) return [];
  const lines = ['quotas:'];
  for (const { key, quotas } of withQuotas) {
    const end = quotas.pace?.end;
    const behind = quotas.cells.filter(quotaBehind).length;
    if (!quotas.cells.length && quotas.error) {
      lines.push(out.yellow(`  ${key}: quotas not read${quotas.failedAt ? ` (tried ${quotas.failedAt})` : ''}: ${quotas.error}`));
      continue;
    }
    lines.push(`  ${key}: ${quotas.cells.length + (quotas.omitted ?? 0)} quota(s) read ${quotas.readAt}${end ? `, forecast to ${endDateText(end)}` : ''}${behind ? `; ${behind} behind` : ''}`);
    if (quotas.error) lines.push(out.yellow(`    the last read failed${quotas.failedAt ? ` at ${quotas.failedAt}` : ''}: ${quotas.error}${quotas.cells.length ? ' (the figures below are the read before)' : ''}`));
    if (quotas.cells.length) {
      const rows = quotas.cells.map((c) => {
        const text = quotaForecastText(c, end);
        return [`${c.profile} / ${c.quota}`, String(c.completes), String(c.goal), c.fill === undefined ? '-' : `${(Math.round(c.fill * 1000) / 10).toFixed(1)}%`, quotaBehind(c) ? out.yellow(text) : text];
      });
      lines.push(...table(['QUOTA', 'COMPLETES', 'GOAL', 'FILL', 'FORECAST'], rows).split('\n').map((line) => `    ${line}`));
    }
    if (quotas.omitted) lines.push(`    ${quotas.omitted} more quota(s) not shown (the ${quotas.cells.length} most behind are)`);
    if (quotas.notReported) lines.push(`    ${quotas.notReported} quota(s) without completes in the exchange's answer`);
  }
  return lines;
}
