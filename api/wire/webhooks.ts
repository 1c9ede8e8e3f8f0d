// Webhook operations on the wire (reference: create_webhook, update_webhook, get_webhooks). `compression`
// is the spec's field (Resources › Webhook; Events 2, 4): sent under the `sandbox` profile, never under `cint`,
// whose events are the reference's WebhookEventType (api/http/dialect.ts).
import { z } from 'zod';
import { WEBHOOK_EVENTS } from '../../shared/api-profile';
import { speaksSpec, type ApiProfileName } from '../http/dialect';

/** WebhookCreate / WebhookUpdate body of the `sandbox` profile: `{url, events}` plus the spec's `compression`. */
export const WebhookRequest = z.strictObject({
  url: z.string().min(1),
  events: z.array(z.string().min(1)).min(1),
  compression: z.enum(['gzip']).nullable(),
});
/** WebhookCreate / WebhookUpdate body of the `cint` profile: `{url, events}`, the events the reference's WebhookEventType. */
export const ReferenceWebhookRequest = z.strictObject({
  url: z.string().min(1),
  events: z.array(z.enum(WEBHOOK_EVENTS.cint as [string, ...string[]])).min(1),
});

/** The webhook request body a profile sends. */
export function webhookRequest(profile: ApiProfileName) {
  return speaksSpec(profile, 'webhook_compression') ? WebhookRequest : ReferenceWebhookRequest;
}
/** WebhookCreated: the webhook with its `secret`, given once. */
export const WebhookCreated = z.looseObject({ id: z.string().min(1), url: z.string(), events: z.array(z.string()), secret: z.string().min(1) });
/** Webhook (answer of update_webhook). */
export const WebhookAnswer = z.looseObject({ id: z.string().min(1), url: z.string(), events: z.array(z.string()) });
