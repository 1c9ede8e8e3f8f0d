// API versions as the models see them (the core owns the header; see core/versioning.ts).

export { API_VERSIONS, CURRENT_VERSION, isApiVersion, versionAtLeast, type ApiVersion } from '../core/versioning';
import { usesNewNames } from '../core/versioning';

/** 2025-12-18 and later: the renamed profile fields, rate_card, the 100,000 feasibility cap, new money format. */
export const usesCurrentNames = usesNewNames;
