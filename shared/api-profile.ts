// The connection profiles (STUDYFLOW_API_PROFILE) and the webhook event names each speaks: one vocabulary
// for the study format's checks and migration (definitions/), the client (api/, activities/) and the receiver
// (webhooks/). Which fields and methods differ between the two dialects is the client's table
// (api/http/dialect.ts). Pure; imports nothing.

/** `sandbox`: the spec's dialect (the service the spec describes, which the sandbox implements); `cint`: the published reference's, exactly. */
export const API_PROFILES = ['sandbox', 'cint'] as const;
export type ApiProfileName = (typeof API_PROFILES)[number];
export const DEFAULT_API_PROFILE: ApiProfileName = 'sandbox';

/** The profile a text names (trimmed), or undefined for an unknown name. An empty text is the default. */
export function apiProfileNamed(text: string | undefined): ApiProfileName | undefined {
  const name = text?.trim() || DEFAULT_API_PROFILE;
  return (API_PROFILES as readonly string[]).includes(name) ? (name as ApiProfileName) : undefined;
}

/**
 * The webhook event names each profile accepts on webhook create and update. The spec shows
 * `target-group-updated` and `com.svc.session.updated`; the reference's WebhookEventType enumerates
 * `target-group-updated`, `quota-fill-registered` and `session-updated`.
 */
export const WEBHOOK_EVENTS: Readonly<Record<ApiProfileName, readonly string[]>> = {
  sandbox: ['target-group-updated', 'com.svc.session.updated'],
  cint: ['target-group-updated', 'quota-fill-registered', 'session-updated'],
};

/** The same event under each profile's name (an event one profile lacks has no row). */
const EVENT_COUNTERPARTS: readonly Readonly<Record<ApiProfileName, string>>[] = [
  { sandbox: 'target-group-updated', cint: 'target-group-updated' },
  { sandbox: 'com.svc.session.updated', cint: 'session-updated' },
];

/** The target-group change event (the same name in both profiles). */
export const TARGET_GROUP_UPDATED_EVENT = 'target-group-updated';
/** The sessions data event of each profile. */
export const SESSION_UPDATED_EVENT: Readonly<Record<ApiProfileName, string>> = { sandbox: 'com.svc.session.updated', cint: 'session-updated' };
/** Every name of the sessions data event, whichever profile delivered it. */
export const SESSION_UPDATED_EVENTS: readonly string[] = [...new Set(Object.values(SESSION_UPDATED_EVENT))];

/** Whether the profile accepts the event name. */
export function isWebhookEventOf(profile: ApiProfileName, event: string): boolean {
  return WEBHOOK_EVENTS[profile].includes(event);
}

/**
 * The profile's name for an event another profile names (`com.svc.session.updated` -> `session-updated` under
 * `cint`); the event itself when the profile accepts it; undefined when the profile has no such event.
 */
export function webhookEventFor(profile: ApiProfileName, event: string): string | undefined {
  if (isWebhookEventOf(profile, event)) return event;
  for (const row of EVENT_COUNTERPARTS) {
    if (Object.values(row).includes(event)) return row[profile];
  }
  return undefined;
}

/** The profiles that accept the event name (none for an event neither knows). */
export function profilesOfWebhookEvent(event: string): ApiProfileName[] {
  return API_PROFILES.filter((profile) => isWebhookEventOf(profile, event));
}
