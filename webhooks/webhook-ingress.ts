import type { Client } from '@temporalio/client';
import { startWebhookReceiver, type RunningWebhookReceiver } from './webhook-receiver';
import { WebhookEventRouter } from './webhook-routing';
import type { ReceiverSecretSource } from './webhook-secret-store';

/** The webhook receiver wired to the workflows: verified deliveries become target-group workflow signals. */
export interface WebhookIngress {
  url: string;
  receiver: RunningWebhookReceiver;
  router: WebhookEventRouter;
  close(): Promise<void>;
}

export async function startWebhookIngress(options: {
  client: Client;
  secrets: ReceiverSecretSource;
  port?: number;
  host?: string;
  /** Signature header name (the connection profile's); default `Svc-Signature`. */
  signatureHeader?: string;
}): Promise<WebhookIngress> {
  const router = new WebhookEventRouter(options.client);
  const receiver = await startWebhookReceiver({
    port: options.port ?? 0,
    host: options.host,
    secrets: (read) => options.secrets.secretsForVerification(read),
    signatureHeader: options.signatureHeader,
    onEvent: (event) => router.route(event),
  });
  return { url: receiver.url, receiver, router, close: () => receiver.close() };
}
