// The plain data API operations take and return.

/** A JSON object as the API returns it (2025-12-18 names). */
export type ApiObject = Record<string, unknown> & { id: string };

/** A JSON object sent to the API (2025-12-18 names). */
export type JsonObject = Record<string, unknown>;

/** Status of an asynchronous upload/remove job. */
export interface JobStatus {
  status: string;
  failureReason?: string;
}
