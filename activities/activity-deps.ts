// What the activities need from the process: the API client, the ID-list blob store, the webhook secret store.
import type { BlobStore } from '../blobs/blob-store';
import type { DemandApiClient } from '../api/http/demand-api-client';
import type { CounterLike, NotificationDeps } from './notify';
import type { WebhookSecretStore } from '../api/operations/webhooks';

export type { WebhookSecretStore } from '../api/operations/webhooks';

/** Dependencies of {@link createActivities}. Build them once per worker process. */
export interface ActivityDeps {
  /** The Demand API client (one per process; it holds the token cache). */
  api: DemandApiClient;
  /** Where ID lists live; uploads stream from it. */
  blobs: BlobStore;
  /** Receives webhook secrets; they never appear in activity results. */
  webhookSecrets: WebhookSecretStore;
  /** Page size for resource lists (1-100). Default 100. */
  listPageSize?: number;
  /** Page size for excluded-ID lists (1-1000). Default 1000. */
  idListPageSize?: number;
  /** Notifications: where `${NAME}` targets are read at send time, and their counters. */
  notifications?: NotificationDeps;
  /** Counters of the fielding controls: a pause a guard asked for, by guard kind (studyflow_guard_trips_total). */
  fieldingMetrics?: { guardTrips: CounterLike };
}
