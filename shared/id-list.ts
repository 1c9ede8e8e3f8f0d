// ID lists by reference: the respondent IDs themselves never travel in workflow or activity payloads.
// Pure; imports nothing.

/** Kinds of respondent ID the exclusion and recontact uploads accept. */
export type IdListEntityType = 'RSID' | 'ACCESS_RESPONDENT_GUID';

/** An ID list held in the blob store, by reference. */
export interface ListRef {
  /** `sha256:<hex>`, the content address of the list in the blob store. */
  ref: string;
  /** Hex SHA-256 of the normalized list (sorted unique IDs, one per line, `\n`-terminated). */
  sha256: string;
  /** Number of IDs. */
  count: number;
}
