// Exact money arithmetic for guards, the budget and the forecast: amounts as whole millionths of their unit
// (the study format's Money takes up to 6 decimals) in bigint, so sums over thousands of target groups and
// price × goal products never round. Pure.
import type { Money } from './types';

const MICROS = 1_000_000n;
const DECIMAL = /^(\d+)(?:\.(\d{1,6}))?$/;

/** The millionths of an amount (`"4.50"` -> 4500000n), or undefined when it is not a decimal with at most 6 places. */
export function toMicros(value: string | number): bigint | undefined {
  const text = typeof value === 'number' ? (Number.isFinite(value) && value >= 0 ? String(value) : '') : value.trim();
  const m = DECIMAL.exec(text);
  if (!m) return undefined;
  return BigInt(m[1]) * MICROS + BigInt((m[2] ?? '').padEnd(6, '0'));
}

/** An amount in millionths as decimal text with at least two places and no trailing zeros beyond them: 4500000n -> "4.50". */
export function microsText(micros: bigint): string {
  const negative = micros < 0n;
  const abs = negative ? -micros : micros;
  const whole = abs / MICROS;
  const fraction = (abs % MICROS).toString().padStart(6, '0').replace(/0+$/, '').padEnd(2, '0');
  return `${negative ? '-' : ''}${whole}.${fraction}`;
}

/** Money from millionths. */
export function moneyOf(micros: bigint, currency: string): Money {
  return { value: microsText(micros), currency_code: currency };
}

/** `a × n / d`, rounded half up (non-negative figures). */
export function scaleMicros(micros: bigint, n: bigint, d: bigint): bigint {
  if (d === 0n) throw new Error('scaleMicros: division by zero');
  return (micros * n * 2n + d) / (2n * d);
}

/** A number for display and search attributes (money is compared exactly in millionths, never as this). */
export function microsNumber(micros: bigint): number {
  return Number(micros) / 1_000_000;
}

/** `4.50 USD`. */
export function moneyText(money: Money): string {
  return `${money.value} ${money.currency_code}`;
}
