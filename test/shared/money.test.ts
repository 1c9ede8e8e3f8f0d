// shared/money.ts, the one Money type and codec: exact (no float ever), no default currency; and the API's live
// operations reading money with it (api/operations/live-target-groups.ts: no toFixed(2), no silent USD).
import { describe, expect, it } from 'vitest';
import { decodeMoney, differenceMicros, encodeMoney, MoneyError, moneyOf, readMoney, scaleMicros, toMicros } from '../../shared/money';
import { liveFeasibility } from '../../api/operations/live-target-groups';
import type { ApiCaller } from '../../api/operations/caller';

describe('decodeMoney', () => {
  it('keeps the reference\'s decimal string exactly (2.7352 stays 2.7352, never 2.74)', () => {
    expect(decodeMoney({ value: '2.7352', currency_code: 'EUR', currency_scale: 2 }, 'price')).toEqual({ value: '2.7352', currency_code: 'EUR' });
    expect(decodeMoney({ value: '4.500000000', currency_code: 'USD' }, 'price')).toEqual({ value: '4.500000', currency_code: 'USD' });
    expect(encodeMoney({ value: '2.7352', currency_code: 'EUR' })).toEqual({ value: '2.7352', currency_code: 'EUR' });
  });

  it('assumes no currency: a missing one is a MoneyError naming where it was read', () => {
    const missing = () => decodeMoney({ value: '4.50' }, 'targetGroups.us.price');
    expect(missing).toThrow(MoneyError);
    expect(missing).toThrow('targetGroups.us.price: currency_code is missing: no currency is assumed');
    expect(() => decodeMoney({ value: '4.50', currency_code: 'usd' }, 'p')).toThrow(/not an ISO 4217 code/);
    expect(readMoney({ value: '4.50' })).toBeUndefined();
  });

  it('refuses numbers and values it would have to round', () => {
    expect(() => decodeMoney({ value: 4.5, currency_code: 'USD' }, 'p')).toThrow(/a number/);
    expect(() => decodeMoney({ value: '1.1234567', currency_code: 'USD' }, 'p')).toThrow(/at most 6 decimal places/);
    expect(() => decodeMoney(null, 'p')).toThrow(MoneyError);
  });

  it('adds and scales in millionths: 0.1 + 0.2 is 0.30, a third of 10.00 rounds half up once', () => {
    expect(moneyOf((toMicros('0.1') as bigint) + (toMicros('0.2') as bigint), 'USD')).toEqual({ value: '0.30', currency_code: 'USD' });
    expect(moneyOf(scaleMicros(toMicros('10') as bigint, 1n, 3n), 'USD').value).toBe('3.333333');
    expect(differenceMicros({ value: '4.5', currency_code: 'USD' }, { value: '4.50', currency_code: 'USD' })).toBe(0n);
    expect(differenceMicros({ value: '4.5', currency_code: 'USD' }, { value: '4.50', currency_code: 'EUR' })).toBeUndefined();
  });
});

describe('the live operations read money with the codec', () => {
  const caller = (body: unknown): ApiCaller => ({ accountId: '1', apiVersion: '2025-12-18', send: async () => ({ status: 200, headers: {}, body }) as never });
  const ref = { projectId: 'P', targetGroupId: 'T' };
  const whatIf = {} as never;

  it('keeps a four-place price as answered', async () => {
    const answer = await liveFeasibility(caller({ suggested_price: { value: '2.7352', currency_code: 'EUR' } }), ref, whatIf);
    expect(answer.suggestedPrice).toEqual({ value: '2.7352', currency_code: 'EUR' });
  });

  it('a price without a currency is a wire mismatch naming the field, not USD', async () => {
    const failure = await liveFeasibility(caller({ suggested_price: { value: '3.50' } }), ref, whatIf).catch((error: unknown) => error as Error & { type?: string });
    expect(failure).toMatchObject({ type: 'wire_mismatch' });
    expect((failure as Error).message).toMatch(/suggested_price: currency_code is missing/);
  });
});
