// Types shared by every activity: the call context, versions, ID-list references, API objects.

import type { ApiVersion } from '../shared/api-version';

export { API_VERSIONS, CURRENT_API_VERSION, type ApiVersion } from '../shared/api-version';
export type { IdListEntityType, ListRef } from '../shared/id-list';
export type { ApiObject, JobStatus, JsonObject } from '../api/operations/types';

/** Carried by every activity input. Plain JSON; never a secret, token or respondent ID. */
export interface ActivityCtx {
  /** Demand account the call acts for. */
  accountId: string;
  /** Version header for this call: the study's version, or the version the resource is pinned to. */
  apiVersion: ApiVersion;
  /** W3C trace context of the caller, passed through to the API when well-formed. */
  traceparent?: string;
}
