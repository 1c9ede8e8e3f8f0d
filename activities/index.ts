// The one registry of the activities the worker registers, their input/output types, and the downstream rate
// limit. Each activity is a thin adapter (input checks, heartbeats, batch results) over a plain operation of
// api/operations/; no activity builds another.
import { accountActivities } from './accounts';
import type { ActivityDeps } from './activity-deps';
import { activityExclusionActivities } from './activity-exclusions';
import { calendarActivities } from './calendar';
import { closeoutActivities } from './closeout';
import { exclusionGroupActivities } from './exclusion-groups';
import { feasibilityActivities } from './feasibility';
import { fieldingActivities } from './fielding';
import { liveTargetGroupActivities } from './live-target-groups';
import { idListExclusionActivities } from './id-list-exclusions';
import { jobWaitActivities } from './job-wait';
import { notifyActivities } from './notify';
import { observeStudyActivities } from './observe-study';
import { profileActivities } from './profiles';
import { projectActivities } from './projects';
import { recontactActivities } from './recontact';
import { targetGroupActivities } from './target-groups';
import { webhookActivities } from './webhooks';

export { API_TASK_QUEUE, DEFAULT_API_ACTIVITIES_PER_SECOND } from './task-queue';

/** Every Demand API activity as a plain object of async functions (what the worker registers). */
export function createActivities(deps: ActivityDeps) {
  return {
    ...accountActivities(deps),
    ...projectActivities(deps),
    ...targetGroupActivities(deps),
    ...feasibilityActivities(deps),
    ...activityExclusionActivities(deps),
    ...idListExclusionActivities(deps),
    ...exclusionGroupActivities(deps),
    ...profileActivities(deps),
    ...recontactActivities(deps),
    ...calendarActivities(deps),
    ...webhookActivities(deps),
    ...fieldingActivities(deps),
    ...liveTargetGroupActivities(deps),
    ...jobWaitActivities(deps),
    ...notifyActivities(deps),
    ...observeStudyActivities(deps),
    ...closeoutActivities(deps),
  };
}

/** The activities object; workflows use `proxyActivities<StudyflowActivities>()`. */
export type StudyflowActivities = ReturnType<typeof createActivities>;

export type { ActivityDeps, WebhookSecretStore } from './activity-deps';
export type { ActivityCtx, ApiObject, ApiVersion, IdListEntityType, ListRef, JobStatus, JsonObject } from './types';
export { API_VERSIONS, CURRENT_API_VERSION } from './types';
export type * from './accounts';
export type * from './projects';
export type * from './target-groups';
export type * from './feasibility';
export type * from './activity-exclusions';
export type * from './id-list-exclusions';
export type * from './exclusion-groups';
export type * from './profiles';
export type * from './recontact';
export type * from './calendar';
export type * from './webhooks';
export type * from './fielding';
export type * from './job-wait';
export type * from './notify';
export type * from './observe-study';
export type * from './closeout';
export type { BatchItemFailure, BatchItemResult } from './batch';
export { createBlobStore, blobDirFromEnv, BlobStoreError, DEFAULT_BLOB_DIR, type BlobStore, type BlobStoreOptions, type StoredIdList, type IdListSource, type SideObjects } from '../blobs/blob-store';
// The S3 store (blobs/blob-store-s3.ts) is not re-exported: it loads the AWS SDK, which only a store in use needs.
export { parseS3Url, type S3Location } from '../blobs/s3-url';
export { blobStoreFromEnv } from '../blobs/blob-store-env';
export { digestSortedIds, sortIds } from '../blobs/id-list-digest';
export { fromWireBody, toWireBody, usesLegacyNames } from '../api/wire/version-adapter';
export * from '../api/http/index';
