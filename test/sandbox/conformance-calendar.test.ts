// Spec: Resources › Intelligent calendar suggestions; Authentication 9; Errors (calendar rows).
import { describe, expect, it } from 'vitest';
import { useTestSandbox } from '../fixtures/sandbox';
import { issueToken } from '../../sandbox/core/token-service';
import { SEEDED_CLIENT_WITHOUT_CALENDAR_ROLE } from '../../sandbox/core/seed-data';
import { V_OLD, V_MID, paramNames } from './sandbox-test-client';

const NOW = Date.parse('2026-06-10T15:00:00Z');
const { sb, api } = useTestSandbox({ start: { clock: () => NOW } });

const RANGE = '/v1/demand/intelligent-calendar/suggest-time-range';
const DAYS = '/v1/demand/intelligent-calendar/suggest-days';
const daysBody = { locale: 'eng_us', price: { value: '2.50', currency_code: 'USD' }, length_of_interview: 10, incidence_rate: 0.5, completes: 20_000 };

function tokenFor(sub: string, extra: Record<string, unknown> = {}) {
  const now = Math.floor(NOW / 1000);
  return issueToken(sb.services.store.data.token_signing_key, { sub, aud: sb.info.audience, scope: 'app:api', iat: now, exp: now + 3600, ...extra });
}

describe('Calendar › suggest time range', () => {
  it('answers suggested_start and suggested_end in every version, and nothing else (the query is not echoed)', async () => {
    for (const version of [V_OLD, V_MID, '2025-12-18']) {
      const res = await api.req('GET', `${RANGE}?locale=eng_us&days=3`, { version });
      expect(res.status, res.text).toBe(200);
      expect(res.body).toEqual({ suggested_start: '2026-06-15T00:00:00.000Z', suggested_end: '2026-06-17T23:59:59.999Z' });
      expect(res.body).not.toHaveProperty('start');
    }
    const range = await api.req('GET', `${RANGE}?locale=eng_us&start=2026-07-03&end=2026-07-05`);
    expect(range.body).toEqual({ suggested_start: '2026-06-30T00:00:00.000Z', suggested_end: '2026-07-02T23:59:59.999Z' });
  });

  it('400 bad_request when days is combined with start/end, and for a missing locale', async () => {
    const both = await api.req('GET', `${RANGE}?locale=eng_us&days=3&start=2026-07-01&end=2026-07-02`);
    expect([both.status, both.body.object]).toEqual([400, 'bad_request']);
    const noLocale = await api.req('GET', `${RANGE}?days=3`);
    expect([noLocale.status, noLocale.body.object, paramNames(noLocale)]).toEqual([400, 'bad_request', ['locale']]);
    expect((await api.req('GET', `${RANGE}?locale=eng_us&start=2026-07-01`)).status).toBe(400);
  });
});

describe('Calendar › suggest days', () => {
  it('answers the suggested number of days', async () => {
    const res = await api.req('POST', DAYS, { body: daysBody });
    expect(res.status, res.text).toBe(200);
    expect(Object.keys(res.body)).toEqual(['days']);
    expect(res.body.days).toBeGreaterThanOrEqual(2);
  });

  it('rejects incidence_rate 0 or 1, a price without value or currency, a value not above 0 and currencies other than USD with object bad_request', async () => {
    for (const [override, name] of [
      [{ incidence_rate: 0 }, 'incidence_rate'],
      [{ incidence_rate: 1 }, 'incidence_rate'],
      [{ price: { value: '2.50' } }, 'price.currency_code'],
      [{ price: { currency_code: 'USD' } }, 'price.value'],
      [{ price: { value: '0', currency_code: 'USD' } }, 'price.value'],
      [{ price: { value: '2.50', currency_code: 'EUR' } }, 'price.currency_code'],
    ] as const) {
      const res = await api.req('POST', DAYS, { body: { ...daysBody, ...override } });
      expect(res.status).toBe(400);
      expect(res.body.object).toBe('bad_request');
      expect(paramNames(res)).toContain(name);
    }
  });
});

describe('Calendar › 401 unauthorized', () => {
  it('for missing or invalid credentials', async () => {
    for (const token of [null, 'not-a-token']) {
      const res = await api.req('GET', `${RANGE}?locale=eng_us&days=3`, { token });
      expect([res.status, res.body.object]).toEqual([401, 'unauthorized']);
      const days = await api.req('POST', DAYS, { body: daysBody, token });
      expect([days.status, days.body.object]).toEqual([401, 'unauthorized']);
    }
  });

  it('for a caller without the intelligent-calendar role (client studyflow-sandbox-no-calendar, or a roles claim without it)', async () => {
    for (const token of [tokenFor('studyflow-sandbox-no-calendar'), tokenFor('studyflow-sandbox', { roles: ['reporting'] })]) {
      const range = await api.req('GET', `${RANGE}?locale=eng_us&days=3`, { token });
      expect([range.status, range.body.object]).toEqual([401, 'unauthorized']);
      const days = await api.req('POST', DAYS, { body: daysBody, token });
      expect([days.status, days.body.object]).toEqual([401, 'unauthorized']);
    }
    const withRole = await api.req('GET', `${RANGE}?locale=eng_us&days=3`, { token: tokenFor('studyflow-sandbox', { roles: ['intelligent_calendar'] }) });
    expect(withRole.status).toBe(200);
  });

  it('for a token the seeded role-less client obtains from the token endpoint, while its other calls succeed', async () => {
    const tokenRes = await fetch(`${sb.authUrl}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        client_id: SEEDED_CLIENT_WITHOUT_CALENDAR_ROLE.client_id,
        client_secret: SEEDED_CLIENT_WITHOUT_CALENDAR_ROLE.client_secret,
        grant_type: 'client_credentials',
        auth_scopes: 'app:api',
        audience: sb.info.audience,
      }),
    });
    expect(tokenRes.status).toBe(200);
    const token = ((await tokenRes.json()) as { access_token: string }).access_token;
    const range = await api.req('GET', `${RANGE}?locale=eng_us&days=3`, { token });
    expect([range.status, range.body.object]).toEqual([401, 'unauthorized']);
    const accounts = await api.req('GET', '/v1/accounts', { token });
    expect(accounts.status).toBe(200);
    const wrongSecret = await fetch(`${sb.authUrl}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_id: SEEDED_CLIENT_WITHOUT_CALENDAR_ROLE.client_id, client_secret: 'sandbox-secret', grant_type: 'client_credentials', auth_scopes: 'app:api', audience: sb.info.audience }),
    });
    expect(wrongSecret.status).toBe(401);
  });
});
