import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../sandbox/core/api-error';
import { fieldingDayScore } from '../../sandbox/model/fielding-calendar';
import { findLocaleMarket } from '../../sandbox/model/locale-markets';
import { readSuggestDaysRequest, suggestDays } from '../../sandbox/model/suggest-days';
import { readTimeRangeQuery, suggestTimeRange } from '../../sandbox/model/suggest-time-range';

const now = Date.parse('2026-06-10T15:00:00Z'); // a Wednesday
const query = (params: Record<string, string>) => new URLSearchParams(params);
const rejection = (run: () => unknown): ApiError => {
  try {
    run();
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('expected a rejection');
};

describe('fielding day scores', () => {
  it('rates weekdays above weekends and public holidays lowest', () => {
    const usa = findLocaleMarket('en_US')!;
    expect(fieldingDayScore(usa, Date.parse('2026-06-08'))).toBe(1); // Monday
    expect(fieldingDayScore(usa, Date.parse('2026-06-13'))).toBe(0.7); // Saturday
    expect(fieldingDayScore(usa, Date.parse('2026-07-03'))).toBe(0.85); // Friday
    expect(fieldingDayScore(usa, Date.parse('2026-07-04'))).toBe(0.3); // Independence Day
    expect(fieldingDayScore(findLocaleMarket('de_DE')!, Date.parse('2026-07-04'))).toBe(0.7);
  });
});

describe('suggest-time-range', () => {
  it('suggests a window of the asked number of days, starting tomorrow or later on a good day', () => {
    const answer = suggestTimeRange(readTimeRangeQuery(query({ locale: 'en_US', days: '3' }), now), now);
    expect(Object.keys(answer).sort()).toEqual(['days', 'locale', 'suggested_end', 'suggested_start']);
    expect(answer.suggested_start).toBe('2026-06-15T00:00:00.000Z'); // Monday: Mon-Wed scores 1.0
    expect(answer.suggested_end).toBe('2026-06-17T23:59:59.999Z');
  });

  it('moves a requested range off a public holiday to the nearest better window', () => {
    const answer = suggestTimeRange(readTimeRangeQuery(query({ locale: 'en_US', start: '2026-07-03', end: '2026-07-05' }), now), now);
    expect(answer.days).toBe(3);
    expect(Date.parse(answer.suggested_start)).not.toBe(Date.parse('2026-07-03T00:00:00Z'));
    // Tue 30 June and Mon 6 July are both three days away with a perfect Mon-Thu window; the earlier wins.
    expect(answer.suggested_start).toBe('2026-06-30T00:00:00.000Z');
  });

  it('keeps a requested range that is already the best', () => {
    const answer = suggestTimeRange(readTimeRangeQuery(query({ locale: 'de_DE', start: '2026-06-15', end: '2026-06-16T12:00:00Z' }), now), now);
    expect([answer.suggested_start, answer.suggested_end]).toEqual(['2026-06-15T00:00:00.000Z', '2026-06-16T23:59:59.999Z']);
  });

  it('400 bad_request: days with start/end, neither, a lone start, missing or unknown locale, bad days', () => {
    expect(rejection(() => readTimeRangeQuery(query({ locale: 'en_US', days: '3', start: '2026-07-01', end: '2026-07-02' }), now))).toMatchObject({ status: 400, object: 'bad_request' });
    expect(rejection(() => readTimeRangeQuery(query({ locale: 'en_US', days: '3', end: '2026-07-02' }), now)).status).toBe(400);
    for (const params of [{ locale: 'en_US' }, { locale: 'en_US', start: '2026-07-01' }, { days: '3' }, { locale: 'xx_YY', days: '3' }, { locale: 'en_US', days: '0' }, { locale: 'en_US', days: '366' }, { locale: 'en_US', start: '2026-01-01', end: '2026-01-02' }, { locale: 'en_US', start: '2026-07-02', end: '2026-07-01' }] as Record<string, string>[]) {
      expect(rejection(() => readTimeRangeQuery(query(params), now))).toMatchObject({ status: 400, object: 'bad_request' });
    }
  });

  it('always answers a window of exactly the asked days, not before today (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 365 }), fc.constantFrom('en_US', 'de_DE', 'ja_JP', 'pt_BR'), fc.integer({ min: 0, max: 800 }), (days, locale, offsetDays) => {
        const at = now + offsetDays * 86_400_000;
        const answer = suggestTimeRange(readTimeRangeQuery(query({ locale, days: String(days) }), at), at);
        const start = Date.parse(answer.suggested_start);
        expect(Date.parse(answer.suggested_end) - start + 1).toBe(days * 86_400_000);
        expect(start).toBeGreaterThan(at);
      }),
      { numRuns: 100 },
    );
  });
});

describe('suggest-days', () => {
  const body = { locale: 'en_US', price: { value: '2.50', currency_code: 'USD' }, length_of_interview: 10, incidence_rate: 0.5, completes: 20_000 };

  it('suggests more days for more completes and fewer days for a higher price', () => {
    const days = (overrides: Record<string, unknown>) => suggestDays(readSuggestDaysRequest({ ...body, ...overrides })).days!;
    expect(days({})).toBeGreaterThan(1);
    expect(days({ completes: 80_000 })).toBeGreaterThan(days({}));
    expect(days({ price: { value: '10.00', currency_code: 'USD' } })).toBeLessThan(days({ price: { value: '0.50', currency_code: 'USD' } }));
    expect(Object.keys(suggestDays(readSuggestDaysRequest(body)))).toEqual(['days']);
  });

  it('suggests no days ({}, days is optional in the reference) when the panel can never deliver', () => {
    const answer = suggestDays(readSuggestDaysRequest({ ...body, locale: 'sv_SE', incidence_rate: 0.01, length_of_interview: 90, completes: 100_000 }));
    expect(answer).toEqual({});
  });

  it('rejects incidence_rate of exactly 0 or 1, an incomplete price, non-positive or non-string values and other currencies with 400 bad_request', () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ incidence_rate: 0 }, 'incidence_rate'],
      [{ incidence_rate: 1 }, 'incidence_rate'],
      [{ price: { value: '1.00' } }, 'price.currency_code'],
      [{ price: { currency_code: 'USD' } }, 'price.value'],
      [{ price: { value: '0', currency_code: 'USD' } }, 'price.value'],
      [{ price: { value: '0.00', currency_code: 'USD' } }, 'price.value'],
      [{ price: { value: '-1', currency_code: 'USD' } }, 'price.value'],
      [{ price: { value: 1.5, currency_code: 'USD' } }, 'price.value'],
      [{ price: { value: '1.5', currency_code: 'EUR' } }, 'price.currency_code'],
      [{ price: undefined }, 'price'],
      [{ locale: undefined }, 'locale'],
      [{ completes: 0 }, 'completes'],
      [{ length_of_interview: 0 }, 'length_of_interview'],
      [{ extra: true }, 'extra'],
    ];
    for (const [overrides, name] of cases) {
      const error = rejection(() => readSuggestDaysRequest({ ...body, ...overrides }));
      // Shape errors come from the core reader (bad_request_error); the calendar route answers them with the
      // spec's object bad_request (conformance-calendar.test.ts checks the wire).
      expect(error.status).toBe(400);
      expect(['bad_request', 'bad_request_error']).toContain(error.object);
      expect(error.invalidParams!.map((param) => param.name)).toContain(name);
    }
  });

  it('accepts incidence just inside the bounds', () => {
    expect(() => readSuggestDaysRequest({ ...body, incidence_rate: 0.0001 })).not.toThrow();
    expect(() => readSuggestDaysRequest({ ...body, incidence_rate: 0.9999 })).not.toThrow();
  });
});
