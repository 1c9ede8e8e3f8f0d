// The sandbox's panel markets: one row per locale with the figures the feasibility, pricing,
// calendar and fielding models draw on. Figures are plausible, not real.

export interface LocaleMarket {
  locale: string;
  /** ISO 639-1 language of the survey texts. */
  language: string;
  /** Active panel members reachable in this locale. */
  population: number;
  /** Base price per complete in US cents for an easy study (high incidence, short interview). */
  baseCpiMinorUnits: number;
  /** Shape of a valid zip / postal code (after trimming and upper-casing). */
  zipCodePattern: RegExp;
  /** How many distinct zip codes the locale has; one code covers 1/zipCodeCount of the population. */
  zipCodeCount: number;
  /** Fixed-date public holidays, "MM-DD". */
  publicHolidays: readonly string[];
}

/** Share of a fully targeted population that enters one survey per day. */
export const DAILY_PARTICIPATION_RATE = 0.004;
/** Share of a population one survey can ever reach, however long it fields. */
export const MAX_REACHABLE_SHARE = 0.35;

const US_ZIP = /^\d{5}$/;
const FIVE_DIGITS = /^\d{5}$/;
const FOUR_DIGITS = /^\d{4}$/;

const markets: LocaleMarket[] = [
  { locale: 'en_US', language: 'en', population: 1_500_000, baseCpiMinorUnits: 150, zipCodePattern: US_ZIP, zipCodeCount: 41_000, publicHolidays: ['01-01', '07-04', '11-11', '12-25'] },
  { locale: 'en_GB', language: 'en', population: 600_000, baseCpiMinorUnits: 170, zipCodePattern: /^[A-Z]{1,2}\d[A-Z\d]?( ?\d[A-Z]{2})?$/, zipCodeCount: 2_900, publicHolidays: ['01-01', '12-25', '12-26'] },
  { locale: 'en_CA', language: 'en', population: 300_000, baseCpiMinorUnits: 180, zipCodePattern: /^[A-Z]\d[A-Z]( ?\d[A-Z]\d)?$/, zipCodeCount: 1_650, publicHolidays: ['01-01', '07-01', '12-25', '12-26'] },
  { locale: 'fr_CA', language: 'fr', population: 120_000, baseCpiMinorUnits: 200, zipCodePattern: /^[A-Z]\d[A-Z]( ?\d[A-Z]\d)?$/, zipCodeCount: 1_650, publicHolidays: ['01-01', '06-24', '07-01', '12-25'] },
  { locale: 'en_AU', language: 'en', population: 250_000, baseCpiMinorUnits: 210, zipCodePattern: FOUR_DIGITS, zipCodeCount: 2_600, publicHolidays: ['01-01', '01-26', '04-25', '12-25', '12-26'] },
  { locale: 'de_DE', language: 'de', population: 500_000, baseCpiMinorUnits: 200, zipCodePattern: FIVE_DIGITS, zipCodeCount: 8_200, publicHolidays: ['01-01', '05-01', '10-03', '12-25', '12-26'] },
  { locale: 'fr_FR', language: 'fr', population: 450_000, baseCpiMinorUnits: 190, zipCodePattern: FIVE_DIGITS, zipCodeCount: 6_300, publicHolidays: ['01-01', '05-01', '05-08', '07-14', '08-15', '11-01', '11-11', '12-25'] },
  { locale: 'es_ES', language: 'es', population: 320_000, baseCpiMinorUnits: 160, zipCodePattern: FIVE_DIGITS, zipCodeCount: 11_000, publicHolidays: ['01-01', '01-06', '05-01', '08-15', '10-12', '11-01', '12-06', '12-08', '12-25'] },
  { locale: 'it_IT', language: 'it', population: 280_000, baseCpiMinorUnits: 170, zipCodePattern: FIVE_DIGITS, zipCodeCount: 4_600, publicHolidays: ['01-01', '01-06', '04-25', '05-01', '06-02', '08-15', '11-01', '12-08', '12-25', '12-26'] },
  { locale: 'nl_NL', language: 'nl', population: 180_000, baseCpiMinorUnits: 210, zipCodePattern: /^\d{4}( ?[A-Z]{2})?$/, zipCodeCount: 4_000, publicHolidays: ['01-01', '04-27', '12-25', '12-26'] },
  { locale: 'sv_SE', language: 'sv', population: 90_000, baseCpiMinorUnits: 260, zipCodePattern: /^\d{3} ?\d{2}$/, zipCodeCount: 16_000, publicHolidays: ['01-01', '01-06', '05-01', '06-06', '12-24', '12-25', '12-26'] },
  { locale: 'pl_PL', language: 'pl', population: 200_000, baseCpiMinorUnits: 130, zipCodePattern: /^\d{2}-\d{3}$/, zipCodeCount: 22_000, publicHolidays: ['01-01', '01-06', '05-01', '05-03', '08-15', '11-01', '11-11', '12-25', '12-26'] },
  { locale: 'ja_JP', language: 'ja', population: 400_000, baseCpiMinorUnits: 320, zipCodePattern: /^\d{3}-?\d{4}$/, zipCodeCount: 120_000, publicHolidays: ['01-01', '01-02', '01-03', '02-11', '04-29', '05-03', '05-04', '05-05', '11-03', '11-23'] },
  { locale: 'pt_BR', language: 'pt', population: 350_000, baseCpiMinorUnits: 120, zipCodePattern: /^\d{5}-?\d{3}$/, zipCodeCount: 900_000, publicHolidays: ['01-01', '04-21', '05-01', '09-07', '10-12', '11-02', '11-15', '12-25'] },
  { locale: 'es_MX', language: 'es', population: 220_000, baseCpiMinorUnits: 110, zipCodePattern: FIVE_DIGITS, zipCodeCount: 32_000, publicHolidays: ['01-01', '05-01', '09-16', '12-25'] },
  { locale: 'ko_KR', language: 'ko', population: 160_000, baseCpiMinorUnits: 300, zipCodePattern: FIVE_DIGITS, zipCodeCount: 34_000, publicHolidays: ['01-01', '03-01', '05-05', '06-06', '08-15', '10-03', '10-09', '12-25'] },
];

const byLocale = new Map(markets.map((market) => [market.locale, market]));

/** ISO 639-2 (bibliographic and terminology) codes of the market languages, for locales like eng_us. */
const THREE_LETTER_LANGUAGES: Record<string, string> = {
  eng: 'en', ger: 'de', deu: 'de', fre: 'fr', fra: 'fr', spa: 'es', ita: 'it', dut: 'nl', nld: 'nl',
  swe: 'sv', pol: 'pl', jpn: 'ja', por: 'pt', kor: 'ko',
};

/** The ISO 639-1 language of an ISO 639-2 code (`spa` -> `es`), among the market languages; undefined otherwise. */
export function languageOfIso6392(code: string): string | undefined {
  return THREE_LETTER_LANGUAGES[code.toLowerCase()];
}

/** Locale spellings the sandbox accepts: en_US, en_us, eng_us (language_country, any case). */
export const LOCALE_PATTERN = /^[A-Za-z]{2,3}_[A-Za-z]{2}$/;

export function listLocaleMarkets(): readonly LocaleMarket[] {
  return markets;
}

/**
 * The canonical form (en_US) of a locale written as en_US, en_us or eng_us; undefined when the
 * spelling is not a locale at all. Does not say whether the sandbox has a market for it.
 */
export function canonicalLocale(locale: string): string | undefined {
  if (!LOCALE_PATTERN.test(locale)) return undefined;
  const [language, country] = locale.split('_');
  const lower = language.toLowerCase();
  const twoLetter = lower.length === 3 ? THREE_LETTER_LANGUAGES[lower] : lower;
  return twoLetter ? `${twoLetter}_${country.toUpperCase()}` : undefined;
}

/** The market of a locale in any accepted spelling. */
export function findLocaleMarket(locale: string): LocaleMarket | undefined {
  const canonical = canonicalLocale(locale);
  return canonical ? byLocale.get(canonical) : undefined;
}

/** Normalizes a zip code for comparison and de-duplication: trimmed, upper-cased, inner spaces collapsed. */
export function normalizeZipCode(code: string): string {
  return code.trim().toUpperCase().replace(/\s+/g, ' ');
}
