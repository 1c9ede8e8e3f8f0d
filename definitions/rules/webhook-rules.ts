import { didYouMeanHint } from '../did-you-mean';
import type { FileReporter } from '../reporter';
import { KNOWN_WEBHOOK_EVENTS, type Webhook } from '../study-schema';

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/** `webhooks[i]` that parsed; `index` is its place in the file's list. */
export function checkWebhooks(webhooks: { webhook: Webhook; index: number }[], r: FileReporter): void {
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
      if (!(KNOWN_WEBHOOK_EVENTS as readonly string[]).includes(event)) {
        r.report('SF4302', [...at, 'events', e], `webhook event \`${event}\` is not one studyflow knows; it is sent as written`, {
          hint: didYouMeanHint(event, KNOWN_WEBHOOK_EVENTS, 'known events'),
        });
      }
    });
    const earlier = urls.get(webhook.url);
    if (earlier !== undefined) {
      r.report('SF4303', [...at, 'url'], `webhooks ${earlier} and ${index} have the same URL`, { hint: 'list each URL once, with all of its events' });
    } else {
      urls.set(webhook.url, index);
    }
  }
}
