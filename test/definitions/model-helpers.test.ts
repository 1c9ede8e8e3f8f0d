// Small pieces with rules of their own: periods, timing durations, credential-like keys,
// ${ENV} resolution and "did you mean".
import { describe, expect, it } from 'vitest';
import { looksLikeCredentialKey, findWrittenCredentials } from '../../definitions/credentials';
import { closestMatch, levenshtein } from '../../definitions/did-you-mean';
import { resolveEnvReferences } from '../../definitions/env-references';
import { effectiveActivityDays, periodToDays, timingDurationMs } from '../../definitions';

describe('periods', () => {
  it.each([
    ['P30D', 30],
    ['P2W', 14],
    ['P3M', 90],
    ['P1Y', 365],
    ['P1Y1M1W1D', 403],
    ['P396D', 396],
  ])('%s is %i days (Y=365, M=30, W=7)', (period, days) => {
    expect(periodToDays(period)).toBe(days);
  });

  it.each(['P', 'PT1H', 'P1DT1H', '30D', 'p30d', 'P1.5D', 'P-1D', 'P1D1Y'])('%s is not a date-only period', (period) => {
    expect(periodToDays(period)).toBeUndefined();
  });

  it('takes the item duration, else the request duration, else P90D', () => {
    expect(effectiveActivityDays('P7D', 'P30D')).toBe(7);
    expect(effectiveActivityDays(undefined, 'P30D')).toBe(30);
    expect(effectiveActivityDays()).toBe(90);
  });

  it('reads timing durations in ms, s, m and h', () => {
    expect([timingDurationMs('500ms'), timingDurationMs('1s'), timingDurationMs('30m'), timingDurationMs('2h')]).toEqual([500, 1000, 1_800_000, 7_200_000]);
    expect(timingDurationMs('1 minute')).toBeUndefined();
    expect(timingDurationMs('1d')).toBeUndefined();
  });
});

describe('credential-like keys', () => {
  it.each(['client_secret', 'clientSecret', 'password', 'api_key', 'apiKey', 'API-KEY', 'auth_token', 'token', 'privateKey', 'credentials'])('%s looks like a credential', (key) => {
    expect(looksLikeCredentialKey(key)).toBe(true);
  });

  it.each(['project_customer_reference_number', 'respondent_ids', 'filling_goal', 'key', 'tokenizer', 'description', 'passthrough'])('%s does not', (key) => {
    expect(looksLikeCredentialKey(key)).toBe(false);
  });

  it('accepts a ${ENV} reference, and ignores the names of target groups and templates', () => {
    const found = findWrittenCredentials({
      secret: '${SECRET}',
      password: 'hunter2',
      nested: [{ api_key: 42 }],
      target_groups: { token_panel: { name: 'a target group whose key says token' } },
    });
    expect(found).toEqual([['password'], ['nested', 0, 'api_key']]);
  });
});

describe('resolveEnvReferences', () => {
  it('replaces references in every string, leaves unset ones as written and records them', () => {
    const r = resolveEnvReferences({ a: 'x-${A}-${B}', list: ['${A}'], n: 3, esc: '$${A}' }, { A: '1' });
    expect(r.data).toEqual({ a: 'x-1-${B}', list: ['1'], n: 3, esc: '${A}' });
    expect(r.problems).toEqual([{ kind: 'unset', path: ['a'], name: 'B' }]);
    expect([...r.fromEnv.keys()]).toEqual(['["a"]', '["list",0]']);
  });

  it('calls malformed references problems', () => {
    const r = resolveEnvReferences({ a: '${}', b: '${9X}', c: '${OPEN' }, {});
    expect(r.problems.map((p) => [p.kind, p.path[0]])).toEqual([
      ['malformed', 'a'],
      ['malformed', 'b'],
      ['malformed', 'c'],
    ]);
  });
});

describe('did you mean', () => {
  it('measures edit distance', () => {
    expect(levenshtein('kitten', 'sitting')).toBe(3);
    expect(levenshtein('', 'abc')).toBe(3);
  });

  it('suggests only close names', () => {
    expect(closestMatch('live_ur', ['live_url', 'test_url', 'locale'])).toBe('live_url');
    expect(closestMatch('LOCALE', ['live_url', 'locale'])).toBe('locale');
    expect(closestMatch('zzz', ['live_url', 'locale'])).toBeUndefined();
  });
});
