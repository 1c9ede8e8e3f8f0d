import { connectionProfileFromEnv } from '../../api/http/api-config';
import { withDevDefaults } from '../../api/http/api-environment';
import { blobStoreFromEnv } from '../../blobs/blob-store-env';
import { checkReachability } from '../../worker/reachability-check';
import { webhookSecretsFromEnv } from '../../webhooks/sealed-webhook-secrets';
import { connectClient, temporalSettings } from '../../temporal/temporal-connection';
import { startWebhookIngress } from '../../webhooks/webhook-ingress';
import type { CliContext } from '../main';
import { metricsPortOf, parsePort } from '../options';
import { CliError } from '../output';
import { reportReachability } from '../reachability-view';
import { startReceiverOps } from '../../webhooks/receiver-ops';

/**
 * `studyflow receiver`: a webhook receiver on its own (no workflow work). Several can run behind a load
 * balancer on machines that share nothing but Temporal and the object storage: secrets come sealed from
 * the storage, and each event reaches its workflow once (an Update keyed by the event id).
 */
export async function run(ctx: CliContext, options: { port: string; host: string; metricsPort?: string; metricsHost?: string; check?: boolean; json?: boolean }): Promise<number> {
  if (options.check) return reportReachability(ctx, 'receiver', await checkReachability('receiver', ctx.env), Boolean(options.json));
  const port = parsePort(options.port, '--port');
  const metricsPort = metricsPortOf(options.metricsPort, ctx.env);
  const blobs = blobStoreFromEnv(ctx.env);
  const secrets = webhookSecretsFromEnv(ctx.env, blobs, (message) => ctx.out.progress(`studyflow: ${message}`));
  const settings = temporalSettings(ctx.env);
  const { client, connection } = await connectClient(settings, ctx.env);
  const ingress = await startWebhookIngress({ client, secrets: secrets.source, port, host: options.host, signatureHeader: connectionProfileFromEnv(withDevDefaults(ctx.env)).signatureHeader }).catch(async (error: Error) => {
    await connection.close();
    throw new CliError(`cannot start the webhook receiver on ${options.host}:${port}: ${error.message}`);
  });
  ctx.out.progress(`receiving webhooks on ${ingress.url}`);
  let accepting = true;
  const ops =
    metricsPort === undefined
      ? undefined
      : await startReceiverOps({ ingress, connection, accepting: () => accepting, port: metricsPort, host: options.metricsHost }).catch(async (error: Error) => {
          await ingress.close();
          await connection.close();
          throw new CliError(error.message);
        });
  if (ops) ctx.out.progress(`metrics on ${ops.url}/metrics, health on ${ops.url}/healthz`);
  ctx.out.progress(`passing events to workflows on ${settings.address} (namespace ${settings.namespace}); webhook secrets ${secrets.description}`);
  let stop: () => void = () => undefined;
  const stopped = new Promise<void>((resolve) => (stop = resolve));
  process.once('SIGTERM', stop);
  void ctx.interrupted.then(stop);
  await stopped;
  process.off('SIGTERM', stop);
  accepting = false;
  await ingress.close();
  await ops?.close();
  const stats = ingress.receiver.stats();
  const routed = ingress.router.counts;
  ctx.out.progress(
    `receiver stopped: ${stats.accepted} accepted, ${stats.duplicates} duplicate(s) answered here, ${routed.routed} passed on, ${routed.duplicates} caught as duplicates by the workflow, ${routed.unmanaged} for unmanaged target groups`,
  );
  await connection.close();
  return 0;
}
