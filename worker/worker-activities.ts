import { createActivities } from '../activities';
import { blobStoreFromEnv } from '../blobs/blob-store-env';
import { loadApiConfig } from '../api/http/api-config';
import { createDemandApiClient } from '../api/http/demand-api-client';
import { withDevDefaults } from '../api/http/api-environment';
import { webhookSecretsFromEnv } from '../webhooks/sealed-webhook-secrets';
import { createStudyflowMetrics, type StudyflowMetrics } from '../telemetry/studyflow-metrics';
import { apiCallObserver } from './api-call-metrics';

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

/**
 * The activity object a worker registers, built from the process environment (STUDYFLOW_*). `metrics` counts
 * its API calls and notifications (a registry of its own when not given); notifications resolve their
 * `${ENV}` URLs from `env` when they are sent.
 */
export function createWorkerActivities(env: NodeJS.ProcessEnv | Record<string, string>, options: { metrics?: StudyflowMetrics } = {}) {
  const metrics = options.metrics ?? createStudyflowMetrics();
  const settings = withDevDefaults(env as NodeJS.ProcessEnv);
  const config = loadApiConfig(settings);
  const apiSettings = apiClientSettingsFromEnv(settings);
  const { requestsPerSecond, maxConnections } = apiSettings;
  const api = createDemandApiClient({ config, requestsPerSecond, maxConnections, onRequestDone: apiCallObserver(metrics, config.profile) });
  const blobs = blobStoreFromEnv(settings);
  const secrets = webhookSecretsFromEnv(settings, blobs);
  const webhookSecrets = secrets.store;
  const notifications = { env: env as Record<string, string | undefined>, metrics };
  const deps = { api, blobs, webhookSecrets, notifications, fieldingMetrics: { guardTrips: metrics.guardTrips } };
  const activities = createActivities(deps);
  return {
    activities,
    api,
    /** The pacing and connection limit its API client runs with (from STUDYFLOW_API_REQUESTS_PER_SECOND and STUDYFLOW_API_MAX_CONNECTIONS). */
    apiSettings,
    metrics,
    blobs,
    webhookSecrets,
    /** What a webhook receiver of this process verifies signatures with, and where it reads them. */
    receiverSecrets: secrets.source,
    secretsDescription: secrets.description,
  };
}
