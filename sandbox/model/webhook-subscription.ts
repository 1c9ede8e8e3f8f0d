// Webhook subscriptions: body {url, events, compression?}. url an absolute http(s) URL; events a
// non-empty list of distinct event types of the dialect (core/dialect.ts: the spec's target-group-updated and
// com.svc.session.updated; the reference's target-group-updated, quota-fill-registered and session-updated);
// compression "gzip", null or absent (= off), in the spec's dialect only (the cint dialect refuses the field, as
// the reference's webhook has none). An update replaces the webhook, so omitting compression turns it off. The
// secret is made on create and shown in the create response only.

import { randomBytes } from 'node:crypto';
import { ObjectReader, isHttpUrl } from '../core/input-validation';
import type { WebhookEventType } from './cloud-event';
import { DIALECTS, type SandboxDialect } from '../core/dialect';

export type WebhookCompression = 'gzip' | null;

export interface WebhookInput {
  url: string;
  events: WebhookEventType[];
  compression: WebhookCompression;
}

export function readWebhookInput(body: unknown, dialect: SandboxDialect = DIALECTS.spec): WebhookInput {
  const reader = ObjectReader.body(body);
  const known = dialect.webhookEvents;
  reader.rejectUnknown(dialect.webhookCompression ? ['url', 'events', 'compression'] : ['url', 'events'], {
    compression: 'is not a field of a webhook (reference: WebhookCreate and WebhookUpdate take url and events)',
    secret: 'is made by the service and shown once, on create',
    id: 'is read-only',
    created_at: 'is read-only',
    updated_at: 'is read-only',
  });
  const url = reader.string('url', { required: true, maxLength: 2048 });
  if (typeof url === 'string' && !isHttpUrl(url)) reader.fail('url', 'must be an absolute http(s) URL');
  const events = reader.array('events', { required: true, minItems: 1, maxItems: known.length });
  const picked: WebhookEventType[] = [];
  events?.forEach((event, index) => {
    if (typeof event !== 'string' || !known.includes(event)) {
      reader.problems.push({ name: `events[${index}]`, reason: `must be one of ${known.join(', ')}` });
    } else if (picked.includes(event)) {
      reader.problems.push({ name: `events[${index}]`, reason: 'is listed twice' });
    } else picked.push(event);
  });
  const compression = dialect.webhookCompression ? reader.oneOf('compression', ['gzip'] as const, { nullable: true }) : null;
  reader.finish('The webhook is invalid.');
  return { url: url!, events: picked, compression: compression ?? null };
}

/** A new signing secret (shown once). */
export const newWebhookSecret = (): string => `whsec_${randomBytes(24).toString('hex')}`;
