// API versions, the version header, and the forward-only rule of 2025-12-18.
import { ApiError } from './api-error';

export const API_VERSIONS = ['2025-02-17', '2025-05-27', '2025-12-18'] as const;
export type ApiVersion = (typeof API_VERSIONS)[number];
export const CURRENT_VERSION: ApiVersion = '2025-12-18';
/** Versions before 2025-12-18, where removed endpoints still answer. */
export const LEGACY_VERSIONS: readonly ApiVersion[] = ['2025-02-17', '2025-05-27'];
export const DEFAULT_VERSION_HEADER = 'Svc-API-Version';

export const isApiVersion = (value: string): value is ApiVersion => (API_VERSIONS as readonly string[]).includes(value);

/** True when `version` is `since` or later (dates compare lexically). */
export const versionAtLeast = (version: ApiVersion, since: ApiVersion) => version >= since;

/** True when the request version uses the 2025-12-18 names. */
export const usesNewNames = (version: ApiVersion) => versionAtLeast(version, '2025-12-18');

/** Anything that can be pinned to 2025-12-18 by the forward-only rule. */
export interface VersionPinned {
  pinned_version: ApiVersion | null;
}

/**
 * Forward-only rule: once a resource was written with 2025-12-18, writes with an older version are refused.
 * Call before validating or mutating anything else on the resource.
 */
export function assertWriteVersionAllowed(resource: VersionPinned, version: ApiVersion, what: string): void {
  if (resource.pinned_version && version < resource.pinned_version) {
    throw new ApiError(
      400,
      'version_downgrade_not_allowed',
      `The ${what} was written with version ${resource.pinned_version}; later writes must use ${resource.pinned_version} or newer, not ${version}.`,
    );
  }
}

/** Records a committed write; only 2025-12-18 pins. Call after all validation passed. */
export function pinWriteVersion(resource: VersionPinned, version: ApiVersion): void {
  if (usesNewNames(version) && (!resource.pinned_version || resource.pinned_version < version)) {
    resource.pinned_version = version;
  }
}

/** The reason text for a field renamed away in the request's version (docs/api-conventions.md). */
export const renamedReason = (oldName: string, newName: string) => `renamed to ${newName} in 2025-12-18`;
export const notYetReason = (newName: string, oldName: string) =>
  `${newName} is the 2025-12-18 name; this version uses ${oldName}`;
