// Connection settings: named errors for missing/invalid values, secrets redacted wherever the config is printed.
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { ApiConfigError, createApiConfig, loadApiConfig } from '../../api/http/api-config';

const SECRET = 'sup3r-s3cret-value';
const ENV = {
  STUDYFLOW_API_BASE_URL: 'https://api.example.com/',
  STUDYFLOW_AUTH_URL: 'https://auth.example.com',
  STUDYFLOW_AUDIENCE: 'https://demand-api.example.com',
  STUDYFLOW_CLIENT_ID: 'client-1',
  STUDYFLOW_CLIENT_SECRET: SECRET,
};

function configError(env: Record<string, string | undefined>): ApiConfigError {
  try {
    loadApiConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ApiConfigError);
    return error as ApiConfigError;
  }
  throw new Error('expected ApiConfigError');
}

describe('loadApiConfig', () => {
  it('reads every setting, defaults the version header and timeouts, trims the base URL', () => {
    const config = loadApiConfig(ENV);
    expect(config.baseUrl).toBe('https://api.example.com');
    expect(config.authUrl).toBe('https://auth.example.com');
    expect(config.clientSecret).toBe(SECRET);
    expect(config.versionHeader).toBe('Svc-API-Version');
    expect(config.timeouts).toEqual({ connectMs: 10_000, headersMs: 30_000, bodyMs: 60_000 });
  });

  it('reads the optional version header and timeouts', () => {
    const config = loadApiConfig({ ...ENV, STUDYFLOW_API_VERSION_HEADER: 'X-Version', STUDYFLOW_API_HEADERS_TIMEOUT_MS: '5000' });
    expect(config.versionHeader).toBe('X-Version');
    expect(config.timeouts.headersMs).toBe(5000);
  });

  it('STUDYFLOW_API_PROFILE=cint uses Cint-API-Version; an explicit STUDYFLOW_API_VERSION_HEADER wins; an unknown profile is named', () => {
    expect(loadApiConfig({ ...ENV, STUDYFLOW_API_PROFILE: 'cint' }).versionHeader).toBe('Cint-API-Version');
    expect(loadApiConfig({ ...ENV, STUDYFLOW_API_PROFILE: 'sandbox' }).versionHeader).toBe('Svc-API-Version');
    expect(loadApiConfig({ ...ENV, STUDYFLOW_API_PROFILE: 'cint', STUDYFLOW_API_VERSION_HEADER: 'X-Version' }).versionHeader).toBe('X-Version');
    let error: unknown;
    try {
      loadApiConfig({ ...ENV, STUDYFLOW_API_PROFILE: 'toString' });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ApiConfigError);
    expect((error as ApiConfigError).issues).toEqual([{ setting: 'STUDYFLOW_API_PROFILE', message: 'must be one of sandbox, cint' }]);
  });

  it('names every missing variable at once', () => {
    const error = configError({});
    expect(error.name).toBe('ApiConfigError');
    expect(error.issues.map((i) => i.setting).sort()).toEqual([
      'STUDYFLOW_API_BASE_URL', 'STUDYFLOW_AUDIENCE', 'STUDYFLOW_AUTH_URL', 'STUDYFLOW_CLIENT_ID', 'STUDYFLOW_CLIENT_SECRET',
    ]);
    expect(error.message).toContain('STUDYFLOW_CLIENT_SECRET: is missing');
  });

  it('names invalid values without echoing them', () => {
    const error = configError({
      ...ENV,
      STUDYFLOW_API_BASE_URL: 'ftp://api.example.com',
      STUDYFLOW_AUTH_URL: `https://user:${SECRET}@auth.example.com`,
      STUDYFLOW_API_VERSION_HEADER: 'bad header',
      STUDYFLOW_API_BODY_TIMEOUT_MS: '-5',
    });
    expect(error.issues).toEqual(expect.arrayContaining([
      { setting: 'STUDYFLOW_API_BASE_URL', message: 'must use http or https' },
      { setting: 'STUDYFLOW_AUTH_URL', message: expect.stringContaining('must not embed credentials') },
      { setting: 'STUDYFLOW_API_VERSION_HEADER', message: 'is not a valid HTTP header name' },
      { setting: 'STUDYFLOW_API_BODY_TIMEOUT_MS', message: expect.stringContaining('positive whole number') },
    ]));
    expect(error.message).not.toContain(SECRET);
    expect(error.message).not.toContain('ftp://');
  });

  it('never prints the secret: JSON, util.inspect, String, spread, Object.keys', () => {
    const config = loadApiConfig(ENV);
    for (const printed of [JSON.stringify(config), inspect(config, { depth: 5 }), String(config), JSON.stringify({ ...config }), `${Object.keys(config)}`]) {
      expect(printed).not.toContain(SECRET);
    }
    expect(JSON.parse(JSON.stringify(config)).clientSecret).toBe('[redacted]');
    expect(inspect(config)).toContain('[redacted]');
  });

  it('is immutable', () => {
    const config = createApiConfig({ baseUrl: 'http://a', authUrl: 'http://b', audience: 'x', clientId: 'c', clientSecret: SECRET });
    expect(() => {
      (config as { baseUrl: string }).baseUrl = 'http://evil';
    }).toThrow();
  });
});
