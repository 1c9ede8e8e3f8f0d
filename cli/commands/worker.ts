import path from 'node:path';
import { connectionProfileFromEnv } from '../../api/http/api-config';
import { startStudyflowWorkers, writeWorkflowBundle } from '../../worker/studyflow-worker';
import { connectClient, dataConverterFromEnv, temporalSettings, workflowTaskQueue } from '../../temporal/temporal-connection';
import { connectWorker } from '../../worker/worker-connection';
import { startWebhookIngress, type WebhookIngress } from '../../webhooks/webhook-ingress';
import { parsePort } from '../options';
import { apiTaskQueueOf } from '../../workflows/activity-proxies';
import { createWorkerActivities } from '../../worker/worker-activities';
import type { CliContext } from '../main';
import { checkReachability } from '../../worker/reachability-check';
import { reportReachability } from '../reachability-view';

/** `studyflow worker`: one worker process; SIGTERM or Ctrl-C shuts it down gracefully. `--check` only checks what it needs. */
export async function run(
  ctx: CliContext,
  options: { webhookPort?: string; webhookHost: string; writeBundle?: string; check?: boolean; json?: boolean } = { webhookHost: '127.0.0.1' },
): Promise<number> {
  if (options.check) return reportReachability(ctx, 'worker', await checkReachability('worker', ctx.env), Boolean(options.json));
  if (options.writeBundle !== undefined) {
    const file = path.resolve(ctx.cwd, options.writeBundle);
    const { bytes } = await writeWorkflowBundle(file);
    ctx.out.progress(`workflow bundle written: ${file} (${Math.round(bytes / 1024)} KiB); run workers with STUDYFLOW_WORKFLOW_BUNDLE=${file}`);
    return 0;
  }
  const settings = temporalSettings(ctx.env);
  const activities = createWorkerActivities(ctx.env);
  const connection = await connectWorker(settings);
  const taskQueue = workflowTaskQueue(ctx.env);
  const workers = await startStudyflowWorkers({ connection, namespace: settings.namespace, activities: activities.activities, taskQueue, dataConverter: dataConverterFromEnv(ctx.env) });
  ctx.out.progress(`worker polling ${taskQueue} and ${apiTaskQueueOf(taskQueue)} on ${settings.address} (namespace ${settings.namespace})`);
  ctx.out.progress(`ID lists in ${activities.blobs.location}; webhook secrets ${activities.secretsDescription}`);
  let ingress: WebhookIngress | undefined;
  let clientConnection: { close(): Promise<void> } | undefined;
  if (options.webhookPort !== undefined) {
    const { client, connection: c } = await connectClient(settings, ctx.env);
    clientConnection = c;
    ingress = await startWebhookIngress({
      client,
      secrets: activities.receiverSecrets,
      port: parsePort(options.webhookPort, '--webhook-port'),
      host: options.webhookHost,
      signatureHeader: connectionProfileFromEnv(ctx.env).signatureHeader,
    });
    ctx.out.progress(`receiving webhooks on ${ingress.url}`);
  }
  const onTerm = () => void workers.shutdown();
  process.once('SIGTERM', onTerm);
  void ctx.interrupted.then(() => workers.shutdown());
  await workers.done;
  process.off('SIGTERM', onTerm);
  await ingress?.close();
  await clientConnection?.close();
  await activities.close();
  await connection.close();
  ctx.out.progress('worker stopped');
  return 0;
}
