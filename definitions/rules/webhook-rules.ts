import { didYouMeanHint } from '../did-you-mean';
import type { FileReporter } from '../reporter';
import { speaksSpec } from '../../shared/api-dialect';
import { DEFAULT_API_PROFILE, isWebhookEventOf, profilesOfWebhookEvent, WEBHOOK_EVENTS, webhookEventFor, type ApiProfileName } from '../../shared/api-profile';
import type { Webhook } from '../study-schema';

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * `webhooks[i]` that parsed; `index` is its place in the file's list. Events and compression are checked against
 * the connection profile (STUDYFLOW_API_PROFILE, or `--profile`): an event another profile names, or under `cint`
 * any event outside the reference's list, is SF4304 (the API refuses it); compression where the profile's API has
 * none is SF4305. An event no profile knows is SF4302 under `sandbox` (the spec shows only some kinds).
 */
export function checkWebhooks(webhooks: { webhook: Webhook; index: number }[], r: FileReporter, profile: ApiProfileName = DEFAULT_API_PROFILE): void {
  const urls = new Map<string, number>();
  for (const { webhook, index } of webhooks) {
    const at = ['webhooks', index];
    let host = '';
    try {
      host = new URL(webhook.url).hostname;
    } catch {
      host = '';
    }
    if (webhook.url.startsWith('http://') && !LOOPBACK_HOSTS.has(host)) {
      r.report('SF4301', [...at, 'url'], `webhook URL ${webhook.url} is not https; deliveries would travel unencrypted`, { hint: 'use an https:// URL' });
    }
    webhook.events.forEach((event, e) => {
      if (isWebhookEventOf(profile, event)) return;
      const known = WEBHOOK_EVENTS[profile];
      const others = profilesOfWebhookEvent(event);
      if (others.length > 0 || profile !== 'sandbox') {
        const counterpart = webhookEventFor(profile, event);
        const owner = others.length > 0 ? `an event of the ${others.join(', ')} profile, not` : 'not an event of';
        r.report('SF4304', [...at, 'events', e], `webhook event \`${event}\` is ${owner} the ${profile} profile (STUDYFLOW_API_PROFILE); its API refuses it`, {
          hint: counterpart
            ? `the ${profile} profile calls it \`${counterpart}\`: run \`studyflow migrate --profile ${profile} <file>\``
            : didYouMeanHint(event, known, `events of the ${profile} profile`),
        });
        return;
      }
      r.report('SF4302', [...at, 'events', e], `webhook event \`${event}\` is not one studyflow knows; it is sent as written`, {
        hint: didYouMeanHint(event, known, 'known events'),
      });
    });
    if (webhook.compression !== null && webhook.compression !== undefined && !speaksSpec(profile, 'webhook_compression')) {
      r.report('SF4305', [...at, 'compression'], `compression is the spec's field; the ${profile} profile's API has no webhook compression and would deliver uncompressed`, {
        hint: 'remove compression, or use the sandbox profile',
      });
    }
    const earlier = urls.get(webhook.url);
    if (earlier !== undefined) {
      r.report('SF4303', [...at, 'url'], `webhooks ${earlier} and ${index} have the same URL`, { hint: 'list each URL once, with all of its events' });
    } else {
      urls.set(webhook.url, index);
    }
  }
}
