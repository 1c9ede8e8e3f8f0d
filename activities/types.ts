// Types shared by every activity: the call context, versions, ID-list references, API objects.

/** API versions studyflow speaks. The study model uses the 2025-12-18 names. */
export type ApiVersion = '2025-02-17' | '2025-05-27' | '2025-12-18';

export const API_VERSIONS: readonly ApiVersion[] = ['2025-02-17', '2025-05-27', '2025-12-18'];
export const CURRENT_API_VERSION: ApiVersion = '2025-12-18';

/** Carried by every activity input. Plain JSON; never a secret, token or respondent ID. */
export interface ActivityCtx {
  /** Demand account the call acts for. */
  accountId: string;
  /** Version header for this call: the study's version, or the version the resource is pinned to. */
  apiVersion: ApiVersion;
  /** W3C trace context of the caller, passed through to the API when well-formed. */
  traceparent?: string;
}

/** An ID list held in the blob store, by reference. The IDs themselves never travel in activity payloads. */
export interface IdListRef {
  /** `sha256:<hex>` */
  ref: string;
  /** Hex SHA-256 of the normalized list (sorted unique IDs, one per line, `\n`-terminated). */
  sha256: string;
  /** Number of IDs. */
  count: number;
}

/** Kinds of respondent ID the exclusion and recontact uploads accept. */
export type IdEntityType = 'RSID' | 'ACCESS_RESPONDENT_GUID';

/** A JSON object as the API returns it (2025-12-18 names). */
export type ApiObject = Record<string, unknown> & { id: string };

/** A JSON object sent to the API (2025-12-18 names). */
export type JsonObject = Record<string, unknown>;

/** Status of an asynchronous upload/remove job. */
export interface JobStatus {
  status: string;
  failureReason?: string;
}
