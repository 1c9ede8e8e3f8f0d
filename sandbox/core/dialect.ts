// The sandbox's two dialects, and the one table of what differs between them (docs/sandbox.md, "Dialects").
//
// `spec` (the default) is the service the spec describes (../shared/spec/demand-exchange-api.md), its
// deviations from the published reference included; `cint` is the published reference
// (../shared/reference/cint-demand-openapi.yml) exactly, as the real exchange speaks it. Everything not in this
// table is the same in both (the reference's fields, plus nothing). The client keeps its own table
// (activities/); the sandbox shares no code with it.
import type { ApiVersion } from './versioning';

export const SANDBOX_DIALECTS = ['spec', 'cint'] as const;
export type SandboxDialectName = (typeof SANDBOX_DIALECTS)[number];

export interface SandboxDialect {
  name: SandboxDialectName;
  /** The header that selects the API version (spec: Svc-API-Version; reference: CintAPIVersion parameters). */
  versionHeader: string;
  /** The header of a webhook delivery's signature (spec Events 3: Svc-Signature; reference: WebhookSecret). */
  signatureHeader: string;
  /** The sessions data event (spec: com.svc.session.updated; reference: session-updated). */
  sessionEvent: string;
  /** The event names a webhook may subscribe to (reference: WebhookEventType). */
  webhookEvents: readonly string[];
  /**
   * The wanted completes on draft create/update and calculate-feasibility bodies of 2025-12-18 (spec:
   * filling_goal, line 45 and 208; reference: completes_goal). Older versions keep filling_goal in both.
   */
  goalField: 'filling_goal' | 'completes_goal';
  /** generate-price-prediction (spec line 210: GET with query parameters; reference: POST with a body). */
  pricePredictionMethod: 'GET' | 'POST';
  /** The answer fields of suggest-time-range (spec line 142: suggested_start/suggested_end; reference: start/end). */
  timeRangeFields: { start: string; end: string };
  /** respondent_statuses on activity-exclusion items (spec line 62; the reference has none). */
  respondentStatuses: boolean;
  /** Webhook compression (spec line 124 and Events 2-5; the reference has none). */
  webhookCompression: boolean;
  /** `name` in the target group list from 2025-12-18 (spec line 52 removes it; the reference requires it). */
  listItemName(version: ApiVersion): boolean;
  /** `type` on the target group get and overview (spec lines 55 and 205; the reference's reads have none). */
  readsCarryType: boolean;
  /**
   * The intelligent calendar's error objects, renamed from the sandbox's standard ones (spec Errors:
   * bad_request, unauthorized, internal_server_error; the reference's suggest_time_range and suggest_days:
   * bad_request_error, authorization_error (401), unexpected_internal_error).
   */
  calendarErrorObjects: Readonly<Record<string, string>>;
}

export const DIALECTS: Readonly<Record<SandboxDialectName, SandboxDialect>> = {
  spec: {
    name: 'spec',
    versionHeader: 'Svc-API-Version',
    signatureHeader: 'Svc-Signature',
    sessionEvent: 'com.svc.session.updated',
    webhookEvents: ['target-group-updated', 'com.svc.session.updated'],
    goalField: 'filling_goal',
    pricePredictionMethod: 'GET',
    timeRangeFields: { start: 'suggested_start', end: 'suggested_end' },
    respondentStatuses: true,
    webhookCompression: true,
    listItemName: (version) => version < '2025-12-18',
    readsCarryType: true,
    calendarErrorObjects: { bad_request_error: 'bad_request', unexpected_internal_error: 'internal_server_error' },
  },
  cint: {
    name: 'cint',
    versionHeader: 'Cint-API-Version',
    signatureHeader: 'Cint-Signature',
    sessionEvent: 'session-updated',
    webhookEvents: ['target-group-updated', 'quota-fill-registered', 'session-updated'],
    goalField: 'completes_goal',
    pricePredictionMethod: 'POST',
    timeRangeFields: { start: 'start', end: 'end' },
    respondentStatuses: false,
    webhookCompression: false,
    listItemName: () => true,
    readsCarryType: false,
    calendarErrorObjects: { bad_request: 'bad_request_error', unauthorized: 'authorization_error', internal_server_error: 'unexpected_internal_error' },
  },
};

export function isSandboxDialect(value: unknown): value is SandboxDialectName {
  return typeof value === 'string' && (SANDBOX_DIALECTS as readonly string[]).includes(value);
}

/** The goal field of a draft or feasibility body in `version` (older versions keep filling_goal in both dialects). */
export function goalFieldOf(dialect: SandboxDialect, version: ApiVersion): 'filling_goal' | 'completes_goal' {
  return version >= '2025-12-18' ? dialect.goalField : 'filling_goal';
}
