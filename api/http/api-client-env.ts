// The Demand API client the environment configures: the connection settings (STUDYFLOW_*, a dev stack's defaults
// where unset: api-environment.ts withDevDefaults), the pacing and the connection cap. The worker's activities and
// the study client (`studyflow plan`) build theirs with it.
import { loadApiConfig, type ApiConfig } from './api-config';
import { withDevDefaults } from './api-environment';
import { createDemandApiClient, type DemandApiClient, type DemandApiClientOptions } from './demand-api-client';

/** The API client's limits of this process: STUDYFLOW_API_REQUESTS_PER_SECOND and STUDYFLOW_API_MAX_CONNECTIONS (unset: none, the default). */
export function apiClientSettingsFromEnv(env: Record<string, string | undefined>): { requestsPerSecond?: number; maxConnections?: number } {
  const pace = env.STUDYFLOW_API_REQUESTS_PER_SECOND;
  const requestsPerSecond = pace ? Number(pace) : undefined;
  if (requestsPerSecond !== undefined && !(requestsPerSecond > 0)) {
    throw new Error(`STUDYFLOW_API_REQUESTS_PER_SECOND must be a positive number, got "${pace}"`);
  }
  const connections = env.STUDYFLOW_API_MAX_CONNECTIONS;
  const maxConnections = connections ? Number(connections) : undefined;
  if (maxConnections !== undefined && !(Number.isInteger(maxConnections) && maxConnections > 0)) {
    throw new Error(`STUDYFLOW_API_MAX_CONNECTIONS must be a positive whole number, got "${connections}"`);
  }
  return { ...(requestsPerSecond !== undefined ? { requestsPerSecond } : {}), ...(maxConnections !== undefined ? { maxConnections } : {}) };
}

export interface EnvApiClient {
  /** `env` with a dev stack's defaults filled in where unset (withDevDefaults). */
  settings: Record<string, string | undefined>;
  config: ApiConfig;
  /** The pacing and connection limit the client runs with. */
  apiSettings: { requestsPerSecond?: number; maxConnections?: number };
  api: DemandApiClient;
}

/**
 * The API client of `env`. `observe` gives the client its `onRequestDone` from the loaded config (the worker counts
 * its calls by profile).
 * @throws ApiConfigError when the settings are incomplete or contradict the dev stack's profile; Error on a bad limit.
 */
export function demandApiFromEnv(env: NodeJS.ProcessEnv | Record<string, string | undefined>, options: { observe?: (config: ApiConfig) => DemandApiClientOptions['onRequestDone'] } = {}): EnvApiClient {
  const settings = withDevDefaults(env);
  const config = loadApiConfig(settings);
  const apiSettings = apiClientSettingsFromEnv(settings);
  const { requestsPerSecond, maxConnections } = apiSettings;
  const api = createDemandApiClient({ config, requestsPerSecond, maxConnections, onRequestDone: options.observe?.(config) });
  return { settings, config, apiSettings, api };
}
