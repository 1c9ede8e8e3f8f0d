// Webhook subscriptions: body {url, events, compression?}. url an absolute http(s) URL; events a
// non-empty list of distinct known event types; compression "gzip", null or absent (= off). An update
// replaces the webhook, so omitting compression turns it off. The secret is made on create and shown
// in the create response only.

import { randomBytes } from 'node:crypto';
import { ObjectReader, isHttpUrl } from '../core/input-validation';
import { WEBHOOK_EVENT_TYPES, type WebhookEventType } from './cloud-event';

export type WebhookCompression = 'gzip' | null;

export interface WebhookInput {
  url: string;
  events: WebhookEventType[];
  compression: WebhookCompression;
}

export function readWebhookInput(body: unknown): WebhookInput {
  const reader = ObjectReader.body(body);
  reader.rejectUnknown(['url', 'events', 'compression'], {
    secret: 'is made by the service and shown once, on create',
    id: 'is read-only',
    created_at: 'is read-only',
    updated_at: 'is read-only',
  });
  const url = reader.string('url', { required: true, maxLength: 2048 });
  if (typeof url === 'string' && !isHttpUrl(url)) reader.fail('url', 'must be an absolute http(s) URL');
  const events = reader.array('events', { required: true, minItems: 1, maxItems: WEBHOOK_EVENT_TYPES.length });
  const picked: WebhookEventType[] = [];
  events?.forEach((event, index) => {
    if (typeof event !== 'string' || !(WEBHOOK_EVENT_TYPES as readonly string[]).includes(event)) {
      reader.problems.push({ name: `events[${index}]`, reason: `must be one of ${WEBHOOK_EVENT_TYPES.join(', ')}` });
    } else if (picked.includes(event as WebhookEventType)) {
      reader.problems.push({ name: `events[${index}]`, reason: 'is listed twice' });
    } else picked.push(event as WebhookEventType);
  });
  const compression = reader.oneOf('compression', ['gzip'] as const, { nullable: true });
  reader.finish('The webhook is invalid.');
  return { url: url!, events: picked, compression: compression ?? null };
}

/** A new signing secret (shown once). */
export const newWebhookSecret = (): string => `whsec_${randomBytes(24).toString('hex')}`;
