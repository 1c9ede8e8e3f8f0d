// suggest-days: POST /v1/demand/intelligent-calendar/suggest-days
// {locale, price: {value: "decimal > 0", currency_code: "USD"}, length_of_interview, incidence_rate, completes}.
// Every rule breach is 400 bad_request (the calendar's error objects are bad_request, unauthorized and
// internal_server_error): incidence_rate strictly between 0 and 1; price needs value and currency_code;
// value a decimal string above 0; USD only; length_of_interview 1-180 minutes; completes 1-100,000.
// Model: completes/day of the whole locale panel (feasibility with no profiles) scaled by how the offered
// price compares with the market CPI ((price/market)^0.8, clamped to 0.25-2); suggested_days =
// ceil(completes / that rate). Response (the reference's SuggestDaysResponse): {days}; when the panel can
// never deliver the completes, {} (days is optional in the reference).

import { ObjectReader } from '../core/input-validation';
import { estimateFeasibility } from './feasibility';
import { canonicalLocale, findLocaleMarket, type LocaleMarket } from './locale-markets';
import { decimalStringToNumber, isDecimalString } from './money';
import { costPerCompleteMinorUnits } from './pricing';

export const SUGGEST_DAYS_MAX_COMPLETES = 100_000;
export const SUGGEST_DAYS_MAX_LOI = 180;

export interface SuggestDaysRequest {
  market: LocaleMarket;
  locale: string;
  priceMinorUnits: number;
  lengthOfInterviewMinutes: number;
  incidenceRate: number;
  completes: number;
}

export interface SuggestDaysAnswer {
  /** Absent when the panel can never deliver the completes. */
  days?: number;
}

export function readSuggestDaysRequest(body: unknown): SuggestDaysRequest {
  const reader = ObjectReader.body(body);
  reader.rejectUnknown(['locale', 'price', 'length_of_interview', 'incidence_rate', 'completes']);
  const locale = reader.string('locale', { required: true, maxLength: 10 });
  if (typeof locale === 'string') {
    if (!canonicalLocale(locale)) reader.fail('locale', 'must be a locale such as en_US, en_us or eng_us');
    else if (!findLocaleMarket(locale)) reader.fail('locale', 'is not a supported locale');
  }
  let priceMinorUnits = 0;
  const price = reader.object('price', { required: true });
  if (price) {
    price.rejectUnknown(['value', 'currency_code', 'currency_scale']);
    const value = price.string('value', { required: true, maxLength: 20 });
    const currency = price.string('currency_code', { required: true, maxLength: 3 });
    if (price.has('currency_scale') && price.value.currency_scale !== null && price.value.currency_scale !== 2) price.fail('currency_scale', 'must be 2 or null for USD');
    if (typeof value === 'string') {
      if (!isDecimalString(value)) price.fail('value', 'must be a string-encoded decimal such as "1.50"');
      else if (decimalStringToNumber(value) <= 0) price.fail('value', 'must be greater than 0');
      else priceMinorUnits = decimalStringToNumber(value) * 100;
    }
    if (typeof currency === 'string' && currency !== 'USD') price.fail('currency_code', 'only USD is accepted');
  }
  const loi = reader.integer('length_of_interview', { required: true, min: 1, max: SUGGEST_DAYS_MAX_LOI });
  const incidence = reader.number('incidence_rate', { required: true });
  if (typeof incidence === 'number' && (incidence <= 0 || incidence >= 1)) reader.fail('incidence_rate', 'must be strictly between 0 and 1 (0 and 1 are rejected)');
  const completes = reader.integer('completes', { required: true, min: 1, max: SUGGEST_DAYS_MAX_COMPLETES });
  reader.finish('The suggest-days request is invalid.');
  return {
    market: findLocaleMarket(locale!)!,
    locale: locale!,
    priceMinorUnits,
    lengthOfInterviewMinutes: loi!,
    incidenceRate: incidence!,
    completes: completes!,
  };
}

export const priceSpeedFactor = (priceMinorUnits: number, marketCpiMinorUnits: number): number =>
  Math.min(2, Math.max(0.25, (priceMinorUnits / marketCpiMinorUnits) ** 0.8));

export function suggestDays(request: SuggestDaysRequest): SuggestDaysAnswer {
  const marketCpi = costPerCompleteMinorUnits(request.market, request.incidenceRate, request.lengthOfInterviewMinutes);
  const estimate = estimateFeasibility({
    market: request.market,
    incidenceRate: request.incidenceRate,
    lengthOfInterviewMinutes: request.lengthOfInterviewMinutes,
    fillingGoal: request.completes,
    fieldingDays: 1,
    profiles: [],
    excludedRespondentCount: 0,
  });
  const perDay = estimate.completes_per_day * priceSpeedFactor(request.priceMinorUnits, marketCpi);
  const feasible = estimate.estimated_field_time_days !== null && perDay > 0;
  return feasible ? { days: Math.max(1, Math.ceil(request.completes / perDay - 1e-9)) } : {};
}
