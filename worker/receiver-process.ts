// The bootstrap of a `studyflow receiver` process: a webhook receiver on its own (no workflow work). Several
// can run behind a load balancer on machines that share nothing but Temporal and the object storage: secrets
// come sealed from the storage, and each event reaches its workflow once (an Update keyed by the event id).
// The CLI's `receiver` command parses its options and wires them here; it opens no connection itself.
import { connectionProfileFromEnv } from '../api/http/api-config';
import { withDevDefaults } from '../api/http/api-environment';
import { blobStoreFromEnv } from '../blobs/blob-store-env';
import { connectClient, temporalSettings } from '../temporal/temporal-connection';
import { webhookSecretsFromEnv } from '../webhooks/sealed-webhook-secrets';
import { startWebhookIngress } from '../webhooks/webhook-ingress';
import { startReceiverOps } from '../webhooks/receiver-ops';

export interface ReceiverProcessOptions {
  env: NodeJS.ProcessEnv;
  port: number;
  host: string;
  /** Serve /metrics and /healthz on this port (0: a free one); absent: no endpoint. */
  metricsPort?: number;
  metricsHost?: string;
  /** Resolves when the receiver should stop. */
  stop: Promise<unknown>;
  /** Progress lines for the operator. */
  log: (line: string) => void;
}

/** A receiver that could not listen: the address and the reason, as one line. */
export class ReceiverStartError extends Error {
  override readonly name = 'ReceiverStartError';
}

/** Receives webhooks until `stop` resolves; then closes and says what it passed on. */
export async function runReceiverProcess(options: ReceiverProcessOptions): Promise<void> {
  const { env, port, host, log } = options;
  const blobs = blobStoreFromEnv(env);
  const secrets = webhookSecretsFromEnv(env, blobs, (message) => log(`studyflow: ${message}`));
  const settings = temporalSettings(env);
  const { client, connection } = await connectClient(settings, env);
  const ingress = await startWebhookIngress({ client, secrets: secrets.source, port, host, signatureHeader: connectionProfileFromEnv(withDevDefaults(env)).signatureHeader }).catch(
    async (error: Error) => {
      await connection.close();
      throw new ReceiverStartError(`cannot start the webhook receiver on ${host}:${port}: ${error.message}`);
    },
  );
  log(`receiving webhooks on ${ingress.url}`);
  let accepting = true;
  const ops =
    options.metricsPort === undefined
      ? undefined
      : await startReceiverOps({ ingress, connection, accepting: () => accepting, port: options.metricsPort, host: options.metricsHost }).catch(async (error: Error) => {
          await ingress.close();
          await connection.close();
          throw new ReceiverStartError(error.message);
        });
  if (ops) log(`metrics on ${ops.url}/metrics, health on ${ops.url}/healthz`);
  log(`passing events to workflows on ${settings.address} (namespace ${settings.namespace}); webhook secrets ${secrets.description}`);
  await options.stop;
  accepting = false;
  await ingress.close();
  await ops?.close();
  const stats = ingress.receiver.stats();
  const routed = ingress.router.counts;
  log(
    `receiver stopped: ${stats.accepted} accepted, ${stats.duplicates} duplicate(s) answered here, ${routed.routed} passed on, ${routed.duplicates} caught as duplicates by the workflow, ${routed.unmanaged} for unmanaged target groups`,
  );
  await connection.close();
}
