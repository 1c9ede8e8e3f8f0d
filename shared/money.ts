// Money, the one type and its codec for every layer: a decimal string and an ISO 4217 currency code, as the
// reference's MonetaryAmount answers it (`{value: "2.7352", currency_code: "USD", currency_scale?}`) and as the
// study format writes it. Exact everywhere: amounts are whole millionths of their unit (the study format takes up
// to 6 decimals) in bigint, so sums over thousands of target groups and price × goal products never round, and
// no amount ever passes through a float. There is no default currency: an amount without one is a MoneyError
// that names where it was read. Pure, imports nothing.

/** An amount of money: a non-negative decimal string (up to 6 places) and its ISO 4217 currency code. */
export interface Money {
  value: string;
  currency_code: string;
}

/** Money that could not be read: where (a path or an operation), and what is wrong with it. */
export class MoneyError extends Error {
  override name = 'MoneyError';
  constructor(
    readonly where: string,
    readonly problem: string,
  ) {
    super(`${where}: ${problem}`);
  }
}

const MICROS = 1_000_000n;
const DECIMAL = /^(\d+)(?:\.(\d{1,6}))?$/;
/** What the exchange and the study format name a currency: three capital letters (ISO 4217). */
const CURRENCY = /^[A-Z]{3}$/;

/** The millionths of an amount (`"4.50"` -> 4500000n), or undefined when it is not a decimal string with at most 6 places. */
export function toMicros(value: string): bigint | undefined {
  if (typeof value !== 'string') return undefined;
  const m = DECIMAL.exec(value.trim());
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

/** Whether two amounts are in one currency (so they can be compared or added). */
export function sameCurrency(a: Pick<Money, 'currency_code'>, b: Pick<Money, 'currency_code'>): boolean {
  return a.currency_code === b.currency_code;
}

/** `a` minus `b` in millionths when both are in one currency and readable, else undefined (never converted). */
export function differenceMicros(a: Money, b: Money): bigint | undefined {
  const x = toMicros(a.value);
  const y = toMicros(b.value);
  return x === undefined || y === undefined || !sameCurrency(a, b) ? undefined : x - y;
}

/**
 * The structural test: an object with a string `value` and a string `currency_code` (it does not check the
 * value's digits; {@link decodeMoney} does).
 */
export function isMoney(value: unknown): value is Money {
  return typeof value === 'object' && value !== null && typeof (value as Money).value === 'string' && typeof (value as Money).currency_code === 'string';
}

/**
 * Reads money from the wire (the reference's MonetaryAmount) or a file, exactly: the value a decimal string of at
 * most 6 places (trailing zeros beyond the 6th place are dropped; more precision is refused, never rounded), the
 * currency an ISO 4217 code. A missing or malformed currency is a {@link MoneyError} naming `where`: no currency is
 * assumed. `currency_scale` and other fields are not kept.
 */
export function decodeMoney(raw: unknown, where: string): Money {
  if (typeof raw !== 'object' || raw === null) throw new MoneyError(where, `not money (${raw === null ? 'null' : typeof raw}): expected {value, currency_code}`);
  const { value, currency_code: currency } = raw as { value?: unknown; currency_code?: unknown };
  if (typeof value !== 'string') throw new MoneyError(where, `value is ${value === undefined ? 'missing' : `a ${typeof value}`}: expected a decimal string such as "4.50"`);
  const text = value.trim().replace(/^(\d+\.\d{6})0+$/, '$1');
  if (toMicros(text) === undefined) throw new MoneyError(where, `value "${value}" is not a decimal string with at most 6 decimal places`);
  if (currency === undefined || currency === null || currency === '') throw new MoneyError(where, 'currency_code is missing: no currency is assumed');
  if (typeof currency !== 'string' || !CURRENCY.test(currency)) throw new MoneyError(where, `currency_code ${JSON.stringify(currency)} is not an ISO 4217 code (three capital letters)`);
  return { value: text, currency_code: currency };
}

/** {@link decodeMoney} for a value that may be absent or not money: the money, or undefined (never a guessed currency). */
export function readMoney(raw: unknown): Money | undefined {
  try {
    return decodeMoney(raw, 'money');
  } catch (error) {
    if (error instanceof MoneyError) return undefined;
    throw error;
  }
}

/** Money in the wire shape (`{value, currency_code}`, the reference's MonetaryAmountRequestModel), the value as given. */
export function encodeMoney(money: Money): Money {
  return { value: money.value, currency_code: money.currency_code };
}
