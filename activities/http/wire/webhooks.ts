// Webhook operations on the wire (reference: create_webhook, update_webhook, get_webhooks). `compression`
// is the spec's field (Resources › Webhook; Events 2, 4), kept where the reference has none.
import { z } from 'zod';

/** WebhookCreate / WebhookUpdate body: `{url, events}` plus the spec's `compression`. */
export const WebhookRequest = z.strictObject({
  url: z.string().min(1),
  events: z.array(z.string().min(1)).min(1),
  compression: z.enum(['gzip']).nullable(),
});
/** WebhookCreated: the webhook with its `secret`, given once. */
export const WebhookCreated = z.looseObject({ id: z.string().min(1), url: z.string(), events: z.array(z.string()), secret: z.string().min(1) });
/** Webhook (answer of update_webhook). */
export const WebhookAnswer = z.looseObject({ id: z.string().min(1), url: z.string(), events: z.array(z.string()) });
