// Throughput and latency of the webhook receiver: N signed deliveries (half gzip) over keep-alive
// connections from this process, with bounded concurrency, to a receiver whose onEvent does a
// trivial await. Prints one JSON line: {deliveries, seconds, perSecond, p50Ms, p95Ms, rssMb}.
//   node bin/run-ts.js bench/webhook-receiver.ts [deliveries] [concurrency]
import { randomUUID } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { Agent, request } from 'undici';
import { startWebhookReceiver } from '../webhooks/webhook-receiver';
import { signatureHeaderValue } from '../webhooks/webhook-signature';

const deliveries = Number(process.argv[2] ?? 5000);
const concurrency = Number(process.argv[3] ?? 32);
const secret = `whsec_bench_${randomUUID()}`;

function eventJson(index: number): string {
  const time = new Date().toISOString();
  const data =
    index % 2 === 0
      ? {
          target_group_id: `tg-${index % 50}`,
          changes: [
            { object: 'status_change', previous: 'draft', current: 'live' },
            { object: 'allocations_private_exchange_group_percentage_change', allocation_group_id: 'ag-1', previous: 20, current: 35 },
            { object: 'private_exchange_cpi_change', supplier_id: 41, previous: null, current: { value: '3.10', currency_code: 'USD', currency_scale: 2 } },
          ],
        }
      : {
          session_id: randomUUID(),
          account_id: 1001,
          project_id: 'p-1',
          target_group_id: `tg-${index % 50}`,
          supplier_id: 41,
          respondent_id: randomUUID(),
          status: 'Complete',
          entry_date: time,
          respondent_update_date: time,
          respondent_last_date_change: time,
          quota_target_ids: ['prof-1/target-2'],
          cost_per_interview: { value: '2.50', currency_code: 'USD', currency_scale: 2 },
        };
  return JSON.stringify({
    id: randomUUID(),
    specversion: '1.0',
    source: `/v1/demand/accounts/1001/projects/p-1/target-groups/tg-${index % 50}`,
    type: index % 2 === 0 ? 'target-group-updated' : 'com.svc.session.updated',
    time,
    datacontenttype: 'application/json',
    data,
  });
}

const receiver = await startWebhookReceiver({
  secrets: () => [secret],
  queueLimit: 10_000,
  onEvent: async () => {
    await Promise.resolve();
  },
});

// Prepared before timing: the sender's signing and compression are not the receiver's cost.
const now = Math.floor(Date.now() / 1000);
const prepared = Array.from({ length: deliveries }, (_, index) => {
  const json = eventJson(index);
  const gzip = index % 4 < 2;
  const headers: Record<string, string> = { 'content-type': 'application/json', 'svc-signature': signatureHeaderValue(secret, json, now) };
  if (gzip) headers['content-encoding'] = 'gzip';
  return { headers, body: gzip ? gzipSync(json) : Buffer.from(json) };
});

const dispatcher = new Agent({ connections: concurrency, keepAliveTimeout: 10_000, pipelining: 1 });
const latencies: number[] = [];
let next = 0;
let failures = 0;
const started = performance.now();
await Promise.all(
  Array.from({ length: concurrency }, async () => {
    while (next < prepared.length) {
      const delivery = prepared[next++];
      const sentAt = performance.now();
      const res = await request(receiver.url, { method: 'POST', headers: delivery.headers, body: delivery.body, dispatcher });
      await res.body.dump();
      latencies.push(performance.now() - sentAt);
      if (res.statusCode !== 202) failures += 1;
    }
  }),
);
while (receiver.stats().delivered + receiver.stats().deliveryFailures < receiver.stats().accepted) await new Promise((resolve) => setTimeout(resolve, 2));
const seconds = (performance.now() - started) / 1000;

latencies.sort((a, b) => a - b);
const percentile = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))];
const stats = receiver.stats();
await dispatcher.close();
await receiver.close();
if (failures > 0 || stats.delivered !== deliveries) {
  console.error(`webhook receiver bench: ${failures} deliveries were not answered 202, ${stats.delivered} of ${deliveries} delivered`);
  process.exitCode = 1;
}
console.log(
  JSON.stringify({
    deliveries,
    seconds: Number(seconds.toFixed(3)),
    perSecond: Math.round(deliveries / seconds),
    p50Ms: Number(percentile(50).toFixed(2)),
    p95Ms: Number(percentile(95).toFixed(2)),
    rssMb: Math.round(process.memoryUsage().rss / (1024 * 1024)),
  }),
);
