// Connection settings of the Demand API client: validated once, secrets redacted wherever the object is printed.
import { inspect } from 'node:util';
import { API_PROFILES, apiProfileNamed, DEFAULT_API_PROFILE, SESSION_UPDATED_EVENT, TARGET_GROUP_UPDATED_EVENT, type ApiProfileName } from '../../shared/api-profile';
import { profileHeaders } from './dialect';

/** Timeouts of one HTTP exchange with the Demand API, in milliseconds. */
export interface ApiTimeouts {
  /** Time allowed to open a TCP/TLS connection. Default 10,000. */
  connectMs: number;
  /** Time allowed between sending the request and receiving the complete response headers. Default 30,000. */
  headersMs: number;
  /** Time allowed between two chunks of the response body. Default 60,000. */
  bodyMs: number;
}

/** Plain settings accepted by {@link createApiConfig}; every field is validated. */
export interface ApiConfigInput {
  /** Base URL of the API, e.g. `https://api.example.com` (paths `/v1/...` are appended). */
  baseUrl: string;
  /** Base URL of the token service; the token is requested at `{authUrl}/oauth/token`. */
  authUrl: string;
  /** OAuth audience: the identifier of the API being accessed. */
  audience: string;
  /** OAuth client id issued by the integration consultant. */
  clientId: string;
  /** OAuth client secret issued by the integration consultant. Never printed. */
  clientSecret: string;
  /** Name of the header that selects the API version. Default: the profile's (`Svc-API-Version` for `sandbox`). */
  versionHeader?: string;
  /**
   * The dialect spoken (api/http/dialect.ts): `sandbox` (default) the spec's, deviations included;
   * `cint` the published reference's, exactly.
   */
  profile?: ApiProfileName;
  /** Per-exchange timeouts; missing fields take the defaults. */
  timeouts?: Partial<ApiTimeouts>;
}

/** Validated, immutable connection settings. `JSON.stringify`, `util.inspect` and `String()` redact the secret. */
export interface ApiConfig {
  readonly baseUrl: string;
  readonly authUrl: string;
  readonly audience: string;
  readonly clientId: string;
  readonly clientSecret: string;
  readonly versionHeader: string;
  /** The dialect spoken (api/http/dialect.ts). */
  readonly profile: ApiProfileName;
  readonly timeouts: Readonly<ApiTimeouts>;
}

/** One problem found in the connection settings: which setting, and what is wrong (never its value). */
export interface ApiConfigIssue {
  /** The environment variable (or input field) at fault, e.g. `STUDYFLOW_CLIENT_SECRET`. */
  setting: string;
  message: string;
}

/** Thrown by {@link loadApiConfig} / {@link createApiConfig}; lists every issue, never a secret value. */
export class ApiConfigError extends Error {
  override readonly name = 'ApiConfigError';
  readonly issues: readonly ApiConfigIssue[];
  constructor(issues: ApiConfigIssue[]) {
    super(`Invalid Demand API settings:\n${issues.map((i) => `  ${i.setting}: ${i.message}`).join('\n')}`);
    this.issues = issues;
  }
}

export const DEFAULT_VERSION_HEADER = 'Svc-API-Version';

/**
 * Connection profiles (STUDYFLOW_API_PROFILE): the header and event names of a deployment, from the dialect
 * table (api/http/dialect.ts). `sandbox` (the default) uses the spec's `Svc-` names; `cint` the
 * published reference's names for the real service. STUDYFLOW_API_VERSION_HEADER still overrides the version
 * header of either.
 */
export const CONNECTION_PROFILES: Readonly<Record<ApiProfileName, { name: ApiProfileName; versionHeader: string; signatureHeader: string; sessionEvent: string; targetGroupEvent: string }>> = Object.fromEntries(
  API_PROFILES.map((name) => [name, { name, ...profileHeaders(name), sessionEvent: SESSION_UPDATED_EVENT[name], targetGroupEvent: TARGET_GROUP_UPDATED_EVENT }]),
) as Record<ApiProfileName, { name: ApiProfileName; versionHeader: string; signatureHeader: string; sessionEvent: string; targetGroupEvent: string }>;
export type ConnectionProfileName = ApiProfileName;

/** The profile STUDYFLOW_API_PROFILE names; `sandbox` when unset (an unknown name is refused by loadApiConfig). */
export function connectionProfileFromEnv(env: Record<string, string | undefined>): (typeof CONNECTION_PROFILES)[ConnectionProfileName] {
  return CONNECTION_PROFILES[apiProfileNamed(env.STUDYFLOW_API_PROFILE) ?? DEFAULT_API_PROFILE];
}
export const DEFAULT_API_TIMEOUTS: Readonly<ApiTimeouts> = Object.freeze({ connectMs: 10_000, headersMs: 30_000, bodyMs: 60_000 });

/** Environment variables read by {@link loadApiConfig}. */
export const API_CONFIG_ENV = {
  baseUrl: 'STUDYFLOW_API_BASE_URL',
  authUrl: 'STUDYFLOW_AUTH_URL',
  audience: 'STUDYFLOW_AUDIENCE',
  clientId: 'STUDYFLOW_CLIENT_ID',
  clientSecret: 'STUDYFLOW_CLIENT_SECRET',
  versionHeader: 'STUDYFLOW_API_VERSION_HEADER',
  profile: 'STUDYFLOW_API_PROFILE',
  connectTimeoutMs: 'STUDYFLOW_API_CONNECT_TIMEOUT_MS',
  headersTimeoutMs: 'STUDYFLOW_API_HEADERS_TIMEOUT_MS',
  bodyTimeoutMs: 'STUDYFLOW_API_BODY_TIMEOUT_MS',
} as const;

const REDACTED = '[redacted]';
const HEADER_TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/**
 * Reads the Demand API settings from the environment (`STUDYFLOW_*`, see {@link API_CONFIG_ENV}).
 * @throws ApiConfigError naming every missing or invalid variable; values (secrets above all) are never echoed.
 */
export function loadApiConfig(env: Record<string, string | undefined> = process.env): ApiConfig {
  const issues: ApiConfigIssue[] = [];
  const timeouts: Partial<ApiTimeouts> = {};
  const timeoutVars: [keyof ApiTimeouts, string][] = [
    ['connectMs', API_CONFIG_ENV.connectTimeoutMs],
    ['headersMs', API_CONFIG_ENV.headersTimeoutMs],
    ['bodyMs', API_CONFIG_ENV.bodyTimeoutMs],
  ];
  for (const [field, variable] of timeoutVars) {
    const raw = env[variable]?.trim();
    if (!raw) continue;
    const value = Number(raw);
    if (!Number.isInteger(value) || value <= 0) issues.push({ setting: variable, message: 'must be a positive whole number of milliseconds' });
    else timeouts[field] = value;
  }
  const profileName = apiProfileNamed(env[API_CONFIG_ENV.profile]);
  const profile = profileName && CONNECTION_PROFILES[profileName];
  if (!profile) issues.push({ setting: API_CONFIG_ENV.profile, message: `must be one of ${API_PROFILES.join(', ')}` });
  const input: ApiConfigInput = {
    baseUrl: env[API_CONFIG_ENV.baseUrl] ?? '',
    authUrl: env[API_CONFIG_ENV.authUrl] ?? '',
    audience: env[API_CONFIG_ENV.audience] ?? '',
    clientId: env[API_CONFIG_ENV.clientId] ?? '',
    clientSecret: env[API_CONFIG_ENV.clientSecret] ?? '',
    versionHeader: env[API_CONFIG_ENV.versionHeader]?.trim() || profile?.versionHeader,
    profile: profileName,
    timeouts,
  };
  return buildApiConfig(input, issues, {
    baseUrl: API_CONFIG_ENV.baseUrl,
    authUrl: API_CONFIG_ENV.authUrl,
    audience: API_CONFIG_ENV.audience,
    clientId: API_CONFIG_ENV.clientId,
    clientSecret: API_CONFIG_ENV.clientSecret,
    versionHeader: API_CONFIG_ENV.versionHeader,
    profile: API_CONFIG_ENV.profile,
    timeouts: 'timeouts',
  });
}

/**
 * Validates settings given in code (e.g. from the sandbox's `/_sandbox/info`).
 * @throws ApiConfigError naming every invalid field.
 */
export function createApiConfig(input: ApiConfigInput): ApiConfig {
  return buildApiConfig(input, [], {
    baseUrl: 'baseUrl',
    authUrl: 'authUrl',
    audience: 'audience',
    clientId: 'clientId',
    clientSecret: 'clientSecret',
    versionHeader: 'versionHeader',
    profile: 'profile',
    timeouts: 'timeouts',
  });
}

type SettingNames = Record<keyof ApiConfigInput, string>;

function buildApiConfig(input: ApiConfigInput, issues: ApiConfigIssue[], names: SettingNames): ApiConfig {
  const baseUrl = checkUrl(input.baseUrl, names.baseUrl, issues);
  const authUrl = checkUrl(input.authUrl, names.authUrl, issues);
  const audience = checkPresent(input.audience, names.audience, issues);
  const clientId = checkPresent(input.clientId, names.clientId, issues);
  const clientSecret = typeof input.clientSecret === 'string' ? input.clientSecret : '';
  if (clientSecret.trim() === '') issues.push({ setting: names.clientSecret, message: 'is missing' });
  const profile = input.profile ?? DEFAULT_API_PROFILE;
  if (!(API_PROFILES as readonly string[]).includes(profile)) issues.push({ setting: names.profile, message: `must be one of ${API_PROFILES.join(', ')}` });
  const versionHeader = input.versionHeader ?? profileHeaders(profile).versionHeader;
  if (!HEADER_TOKEN.test(versionHeader)) issues.push({ setting: names.versionHeader, message: 'is not a valid HTTP header name' });
  const timeouts = { ...DEFAULT_API_TIMEOUTS, ...input.timeouts };
  for (const [field, value] of Object.entries(timeouts)) {
    if (!Number.isInteger(value) || value <= 0) issues.push({ setting: `${names.timeouts}.${field}`, message: 'must be a positive whole number of milliseconds' });
  }
  if (issues.length > 0) throw new ApiConfigError(issues);
  return redactingConfig({ baseUrl, authUrl, audience, clientId, clientSecret, versionHeader, profile, timeouts: Object.freeze(timeouts) });
}

function checkPresent(value: unknown, setting: string, issues: ApiConfigIssue[]): string {
  if (typeof value !== 'string' || value.trim() === '') {
    issues.push({ setting, message: 'is missing' });
    return '';
  }
  return value.trim();
}

function checkUrl(value: unknown, setting: string, issues: ApiConfigIssue[]): string {
  const text = checkPresent(value, setting, issues);
  if (text === '') return '';
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    issues.push({ setting, message: 'is not a valid URL' });
    return '';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') issues.push({ setting, message: 'must use http or https' });
  if (url.username || url.password) issues.push({ setting, message: 'must not embed credentials; use STUDYFLOW_CLIENT_ID/SECRET' });
  if (url.search || url.hash) issues.push({ setting, message: 'must not carry a query or fragment' });
  return url.origin + url.pathname.replace(/\/+$/, '');
}

/** The config with every secret replaced, for logs and error reports. */
export function redactApiConfig(config: ApiConfig): Omit<ApiConfig, 'clientSecret'> & { clientSecret: string } {
  return {
    baseUrl: config.baseUrl,
    authUrl: config.authUrl,
    audience: config.audience,
    clientId: config.clientId,
    clientSecret: REDACTED,
    versionHeader: config.versionHeader,
    profile: config.profile,
    timeouts: { ...config.timeouts },
  };
}

function redactingConfig(fields: ApiConfig): ApiConfig {
  const config = { ...fields };
  Object.defineProperties(config, {
    toJSON: { value: () => redactApiConfig(config), enumerable: false },
    toString: { value: () => `ApiConfig ${JSON.stringify(redactApiConfig(config))}`, enumerable: false },
    [inspect.custom]: {
      value: (_depth: number, options: object) => `ApiConfig ${inspect(redactApiConfig(config), options)}`,
      enumerable: false,
    },
    // Keep the secret out of object spread / Object.entries / structured logging of the fields.
    clientSecret: { value: fields.clientSecret, enumerable: false, writable: false },
  });
  return Object.freeze(config);
}
