// The receiver's operations endpoint: /metrics (its delivery counts, read at scrape time) and /healthz
// (Temporal answers, and the receiver still takes deliveries).
import { MetricsRegistry } from '../telemetry/metrics';
import { startOpsServer, type RunningOpsServer } from '../telemetry/ops-server';
import { REJECTION_REASONS } from './webhook-receiver';
import type { WebhookIngress } from './webhook-ingress';

/** The receiver's metrics in `registry`, read from the running ingress whenever they are scraped. */
export function registerReceiverMetrics(registry: MetricsRegistry, ingress: Pick<WebhookIngress, 'receiver' | 'router'>): void {
  const stats = () => ingress.receiver.stats();
  const one = (value: number) => [{ labels: {}, value }];
  registry.collected('studyflow_webhook_requests_total', 'Requests the webhook receiver got (every path and method).', 'counter', [], () => one(stats().received));
  registry.collected('studyflow_webhook_events_accepted_total', 'New events verified and queued.', 'counter', [], () => one(stats().accepted));
  registry.collected('studyflow_webhook_duplicates_total', 'Verified deliveries of an event already accepted (answered 200, not processed again).', 'counter', [], () =>
    one(stats().duplicates),
  );
  registry.collected('studyflow_webhook_rejected_total', 'Requests turned away, by reason.', 'counter', ['reason'], () => {
    const rejected = stats().rejected;
    return REJECTION_REASONS.map((reason) => ({ labels: { reason }, value: rejected[reason] ?? 0 }));
  });
  registry.collected('studyflow_webhook_delivery_retries_total', 'Retries of passing an event to its workflow.', 'counter', [], () => one(stats().deliveryRetries));
  registry.collected('studyflow_webhook_delivery_failures_total', 'Events given up on after every attempt failed.', 'counter', [], () => one(stats().deliveryFailures));
  registry.collected('studyflow_webhook_queue_depth', 'Events queued or being passed on now.', 'gauge', [], () => one(stats().queueDepth));
  registry.collected('studyflow_webhook_routed_total', 'Events by what their workflow made of them.', 'counter', ['outcome'], () => {
    const c = ingress.router.counts;
    return [
      { labels: { outcome: 'routed' }, value: c.routed },
      { labels: { outcome: 'duplicate' }, value: c.duplicates },
      { labels: { outcome: 'unmanaged' }, value: c.unmanaged },
      { labels: { outcome: 'without_target_group' }, value: c.withoutTargetGroup },
    ];
  });
}

export interface ReceiverOpsOptions {
  ingress: Pick<WebhookIngress, 'receiver' | 'router'>;
  /** The receiver's Temporal client connection. */
  connection: { workflowService: { getSystemInfo(request: object): Promise<unknown> } };
  /** False once the receiver is closing. */
  accepting: () => boolean;
  port: number;
  host?: string;
  registry?: MetricsRegistry;
}

export function startReceiverOps(options: ReceiverOpsOptions): Promise<RunningOpsServer> {
  const registry = options.registry ?? new MetricsRegistry();
  registerReceiverMetrics(registry, options.ingress);
  return startOpsServer({
    registry,
    port: options.port,
    host: options.host,
    checks: {
      temporal: async () => {
        await options.connection.workflowService.getSystemInfo({});
        return { ok: true };
      },
      receiver: () => Promise.resolve(options.accepting() ? { ok: true, detail: 'accepting deliveries' } : { ok: false, detail: 'shutting down' }),
    },
  });
}
