// The Demand API versions studyflow speaks: one vocabulary for the study format, the planner, the
// workflows and the activities. Pure; imports nothing.

/** Every dated API version studyflow speaks, oldest first. */
export const API_VERSIONS = ['2025-02-17', '2025-05-27', '2025-12-18'] as const;

/** A dated API version (the value of the version header). */
export type ApiVersion = (typeof API_VERSIONS)[number];

/** The version whose field names the study model uses; a resource written with it stays on it. */
export const CURRENT_API_VERSION: ApiVersion = '2025-12-18';

/** The later of two dated API versions (forward-only pinning). */
export function newerApiVersion(a: ApiVersion | undefined, b: ApiVersion): ApiVersion {
  return a && a > b ? a : b;
}
