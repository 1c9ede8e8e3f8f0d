import { MAX_REVERSAL_ROWS } from '../shared/closeout-reports';
import { createActivities } from '../activities';
import { blobStoreFromEnv } from '../blobs/blob-store-env';
import { demandApiFromEnv } from '../api/http/api-client-env';
import { webhookSecretsFromEnv } from '../webhooks/sealed-webhook-secrets';
import { createStudyflowMetrics, type StudyflowMetrics } from '../telemetry/studyflow-metrics';
import { apiCallObserver } from './api-call-metrics';

export { apiClientSettingsFromEnv } from '../api/http/api-client-env';

/**
 * The activity object a worker registers, built from the process environment (STUDYFLOW_*). `metrics` counts
 * its API calls and notifications (a registry of its own when not given); notifications resolve their
 * `${ENV}` URLs from `env` when they are sent.
 */
export function createWorkerActivities(env: NodeJS.ProcessEnv | Record<string, string>, options: { metrics?: StudyflowMetrics } = {}) {
  const metrics = options.metrics ?? createStudyflowMetrics();
  const { settings, apiSettings, api } = demandApiFromEnv(env, { observe: (config) => apiCallObserver(metrics, config.profile) });
  // A close-out's rows to submit are stored as a list of their own: up to MAX_REVERSAL_ROWS of them.
  const blobs = blobStoreFromEnv(settings, { maxIds: MAX_REVERSAL_ROWS });
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
