// Money on the wire: {value: "12.34", currency_code: "USD", currency_scale: 2}. Amounts are kept as
// integer minor units (cents) inside the sandbox so sums never drift.

import type { ObjectReader } from '../core/input-validation';
import type { ApiVersion } from './api-version';
import { usesCurrentNames } from './api-version';

export interface Money {
  value: string;
  currency_code: string;
  currency_scale: number | null;
}

/** completes_cost before 2025-12-18 (sandbox choice): value is an integer count of minor units. */
export interface LegacyMinorUnitsMoney {
  value: number;
  currency_code: string;
  currency_scale: number;
}

export const SANDBOX_CURRENCY = 'USD';
export const USD_SCALE = 2;

const DECIMAL_PATTERN = /^(0|[1-9]\d*)(\.\d+)?$/;

/** Minor units (cents) -> wire money with a decimal string value. */
export function moneyFromMinorUnits(minorUnits: number, currencyCode: string = SANDBOX_CURRENCY): Money {
  if (!Number.isSafeInteger(minorUnits) || minorUnits < 0) throw new RangeError(`invalid minor units ${minorUnits}`);
  const whole = Math.floor(minorUnits / 100);
  const cents = minorUnits % 100;
  return { value: `${whole}.${cents.toString().padStart(2, '0')}`, currency_code: currencyCode, currency_scale: USD_SCALE };
}

/**
 * completes_cost in the format of the given API version: the common decimal-string money from
 * 2025-12-18, integer minor units with their scale in older versions.
 */
export function completesCostForVersion(minorUnits: number, version: ApiVersion): Money | LegacyMinorUnitsMoney {
  if (usesCurrentNames(version)) return moneyFromMinorUnits(minorUnits);
  return { value: minorUnits, currency_code: SANDBOX_CURRENCY, currency_scale: USD_SCALE };
}

/** True when `text` is a plain non-negative decimal ("12", "0.5", "12.345"); no sign, exponent or spaces. */
export function isDecimalString(text: unknown): text is string {
  return typeof text === 'string' && DECIMAL_PATTERN.test(text);
}

/** Numeric value of a decimal string already checked with isDecimalString. */
export function decimalStringToNumber(text: string): number {
  return Number(text);
}

/** Round a major-unit amount (dollars) to whole minor units, half away from zero. */
export function toMinorUnits(majorUnits: number): number {
  return Math.round(majorUnits * 100 + Number.EPSILON * Math.sign(majorUnits));
}

/** A request's money as it was given: `{value}` and, where it came with one, `currency_code`. */
export interface RequestMoney {
  value: string;
  currency_code?: string;
}

/**
 * Money in a request (reference: MonetaryAmountRequestModel): `{value: decimal string, currency_code}`, nothing
 * else. The reference requires neither part; a caller whose rule needs the currency says so. Problems are
 * recorded on the reader, naming the field; null when the field is null, undefined when absent or malformed.
 */
export function readRequestMoney(reader: ObjectReader, field: string, options: { currencyRequired?: boolean } = {}): RequestMoney | null | undefined {
  const money = reader.object(field, { nullable: true });
  if (!money) return money;
  money.rejectUnknown(['value', 'currency_code']);
  const value = money.string('value', { required: true, pattern: /^\d+(\.\d+)?$/, patternReason: 'must be a decimal in a string, such as "4.50"' });
  const currency = money.string('currency_code', { ...(options.currencyRequired ? { required: true } : { nullable: true }), pattern: /^[A-Z]{3}$/, patternReason: 'must be a three-letter ISO-4217 code' });
  if (!value) return undefined;
  return currency ? { value, currency_code: currency } : { value };
}
