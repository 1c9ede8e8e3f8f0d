// generate-price-prediction (reference: generate_price_prediction; spec line 210: a GET, line 55: its answer carries
// the renamed pricing_model/type value).
//
// Request: the reference's `config`, one of
//   {type: rate_card, country_code, expected_incidence_rate (0..1, in hundredths), expected_length_of_interview_minutes
//    (1..45), maximum_cpi? (money), cpi_boost? (money)}
//   {type: dynamic, user_requested_cpi (money)}
// The cint dialect takes it as the reference does: POST with the body {config}. The spec's dialect takes the same
// fields as GET query parameters, each by its name, money in the deepObject style (`maximum_cpi[value]=2.10&
// maximum_cpi[currency_code]=USD`). Unknown fields or parameters are refused by name.
//
// Answer (reference: GeneratePricePredictionResponse): {buyer_account_id, buyer_business_unit_id (text),
// buyer_business_unit_exchange_rate_from_usd, open_exchange_price {pricing_context, cost_per_interview},
// private_exchange_prices: []}. The sandbox's business units price in USD (rate 1). Rate card: the business unit's
// predicted CPI for the country's first market (the model of model/pricing.ts), plus cpi_boost, capped at
// maximum_cpi; pricing_context {type: rate_card (ratecard before 2025-12-18, the spec's renamed value),
// rate_card_token, maximum_cpi?, cpi_boost?}. Dynamic: the requested CPI, pricing_context {type: dynamic}. A
// prediction without a target group has no private exchange suppliers, so no private exchange prices.
import { createHash } from 'node:crypto';
import { ObjectReader, isPlainObject } from '../core/input-validation';
import type { InvalidParam } from '../core/api-error';
import { listLocaleMarkets, type LocaleMarket } from './locale-markets';
import { moneyFromMinorUnits, SANDBOX_CURRENCY, toMinorUnits, type Money } from './money';
import { predictedCostPerCompleteMinorUnits } from './pricing';

export const PRICE_PREDICTION_MAX_LOI = 45;
const CONFIG_FIELDS = {
  rate_card: ['type', 'country_code', 'expected_incidence_rate', 'expected_length_of_interview_minutes', 'maximum_cpi', 'cpi_boost'],
  dynamic: ['type', 'user_requested_cpi'],
} as const;
const MONEY_FIELDS = ['maximum_cpi', 'cpi_boost', 'user_requested_cpi'] as const;

export type PriceConfig =
  | { type: 'rate_card'; market: LocaleMarket; countryCode: string; incidenceRate: number; lengthOfInterviewMinutes: number; maximumCpi?: Money; cpiBoost?: Money }
  | { type: 'dynamic'; userRequestedCpi: Money };

/**
 * The problems of a config and, when none, the config; `at` prefixes the names (`config.` for the body). The rate
 * card type is spelled as the version spells the pricing value (ratecard before 2025-12-18, spec line 50).
 */
export function readPriceConfig(raw: unknown, at: string, rateCardValue = 'rate_card'): { config?: PriceConfig; problems: InvalidParam[] } {
  const problems: InvalidParam[] = [];
  const r = at === '' ? ObjectReader.body(raw) : ObjectReader.nested(raw, at, problems);
  if (!r) return { problems };
  const all = r.problems;
  const spelled = r.oneOf('type', [rateCardValue, 'dynamic'], { required: true });
  if (!spelled) return { problems: all };
  const type = spelled === 'dynamic' ? 'dynamic' : 'rate_card';
  r.rejectUnknown(CONFIG_FIELDS[type], type === 'dynamic' ? { country_code: 'is a field of the rate_card config' } : { user_requested_cpi: 'is a field of the dynamic config' });
  const money = (field: string, required: boolean): Money | undefined => {
    const m = r.object(field, required ? { required: true } : { nullable: true });
    if (!m) return undefined;
    m.rejectUnknown(['value', 'currency_code']);
    const value = m.string('value', { required: true, pattern: /^\d+(\.\d+)?$/, patternReason: 'must be a decimal in a string, such as "4.50"' });
    const currency = m.string('currency_code', { required: true, pattern: /^[A-Z]{3}$/, patternReason: 'must be a three-letter ISO-4217 code' });
    if (currency && currency !== SANDBOX_CURRENCY) m.fail('currency_code', `must be ${SANDBOX_CURRENCY}, the business unit's currency`);
    if (!value || !currency || currency !== SANDBOX_CURRENCY) return undefined;
    return moneyFromMinorUnits(toMinorUnits(Number(value)));
  };
  if (type === 'dynamic') {
    const cpi = money('user_requested_cpi', true);
    return all.length === 0 && cpi ? { config: { type, userRequestedCpi: cpi }, problems: all } : { problems: all };
  }
  const countryCode = r.string('country_code', { required: true, pattern: /^[A-Za-z]{2}$/, patternReason: 'must be an ISO 3166-1 alpha-2 country code, such as US' });
  const incidenceRate = r.number('expected_incidence_rate', { required: true, min: 0, max: 1 });
  if (typeof incidenceRate === 'number' && Math.abs(incidenceRate * 100 - Math.round(incidenceRate * 100)) > 1e-9) r.fail('expected_incidence_rate', 'must be a multiple of 0.01');
  if (incidenceRate === 0) r.fail('expected_incidence_rate', 'must be above 0');
  const loi = r.integer('expected_length_of_interview_minutes', { required: true, min: 1, max: PRICE_PREDICTION_MAX_LOI });
  const maximumCpi = money('maximum_cpi', false);
  const cpiBoost = money('cpi_boost', false);
  const market = countryCode ? listLocaleMarkets().find((m) => m.locale.endsWith(`_${countryCode.toUpperCase()}`)) : undefined;
  if (countryCode && !market) r.fail('country_code', `the sandbox has no panel in ${countryCode.toUpperCase()}`);
  if (all.length > 0 || !market || typeof incidenceRate !== 'number' || typeof loi !== 'number') return { problems: all };
  return { config: { type, market, countryCode: countryCode!.toUpperCase(), incidenceRate, lengthOfInterviewMinutes: loi, maximumCpi, cpiBoost }, problems: all };
}

/**
 * The spec dialect's GET query as a config: each field by name, money as `field[value]` and `field[currency_code]`;
 * numbers where the text is one (the reader names a field whose text is not). Unknown parameters are problems.
 */
export function priceConfigFromQuery(query: URLSearchParams): { raw: Record<string, unknown>; problems: InvalidParam[] } {
  const raw: Record<string, unknown> = {};
  const problems: InvalidParam[] = [];
  const known = new Set<string>([...CONFIG_FIELDS.rate_card, ...CONFIG_FIELDS.dynamic]);
  for (const [name, text] of query.entries()) {
    const money = /^([a-z_]+)\[(value|currency_code)\]$/.exec(name);
    if (money && (MONEY_FIELDS as readonly string[]).includes(money[1])) {
      const holder = (isPlainObject(raw[money[1]]) ? raw[money[1]] : (raw[money[1]] = {})) as Record<string, unknown>;
      holder[money[2]] = text;
    } else if (known.has(name) && !(MONEY_FIELDS as readonly string[]).includes(name)) {
      raw[name] = name.startsWith('expected_') && /^-?\d+(\.\d+)?$/.test(text) ? Number(text) : text;
    } else {
      problems.push({ name, reason: (MONEY_FIELDS as readonly string[]).includes(name) ? `is money: give ${name}[value] and ${name}[currency_code]` : 'is not a parameter of the price prediction' });
    }
  }
  return { raw, problems };
}

/** The reference's GeneratePricePredictionResponse for a config. */
export function pricePrediction(config: PriceConfig, accountId: number, businessUnitId: number, rateCardValue: string): Record<string, unknown> {
  let pricingContext: Record<string, unknown>;
  let cpi: Money;
  if (config.type === 'dynamic') {
    pricingContext = { type: 'dynamic' };
    cpi = config.userRequestedCpi;
  } else {
    let minor = predictedCostPerCompleteMinorUnits(config.market, config.incidenceRate, config.lengthOfInterviewMinutes, businessUnitId);
    if (config.cpiBoost) minor += toMinorUnits(Number(config.cpiBoost.value));
    if (config.maximumCpi) minor = Math.min(minor, toMinorUnits(Number(config.maximumCpi.value)));
    cpi = moneyFromMinorUnits(minor);
    const token = createHash('sha256')
      .update(JSON.stringify([businessUnitId, config.countryCode, config.incidenceRate, config.lengthOfInterviewMinutes, config.maximumCpi?.value, config.cpiBoost?.value]))
      .digest('hex')
      .slice(0, 24);
    pricingContext = {
      type: rateCardValue,
      rate_card_token: `rct_${token}`,
      ...(config.maximumCpi ? { maximum_cpi: config.maximumCpi } : {}),
      ...(config.cpiBoost ? { cpi_boost: config.cpiBoost } : {}),
    };
  }
  return {
    buyer_account_id: accountId,
    buyer_business_unit_id: String(businessUnitId),
    buyer_business_unit_exchange_rate_from_usd: 1,
    open_exchange_price: { pricing_context: pricingContext, cost_per_interview: cpi },
    private_exchange_prices: [],
  };
}
