import path from 'node:path';
import { connectionProfileFromEnv } from '../../api/http/api-config';
import { withDevDefaults } from '../../api/http/api-environment';
import { startStudyflowWorkers, writeWorkflowBundle } from '../../worker/studyflow-worker';
import { connectClient, dataConverterFromEnv, temporalSettings, workflowTaskQueue } from '../../temporal/temporal-connection';
import { connectWorker } from '../../worker/worker-connection';
import { startWebhookIngress, type WebhookIngress } from '../../webhooks/webhook-ingress';
import { registerReceiverMetrics } from '../../webhooks/receiver-ops';
import { metricsPortOf, parsePort } from '../options';
import { apiTaskQueueOf } from '../../workflows/activity-proxies';
import { createWorkerActivities } from '../../worker/worker-activities';
import type { CliContext } from '../main';
import { checkReachability } from '../../worker/reachability-check';
import { reportReachability } from '../reachability-view';
import { CliError } from '../output';
import { requireStudyflowNamespace } from '../../worker/namespace-check';
import { prepareWorkerTelemetry, startWorkerOps } from '../../worker/worker-ops';

/**
 * `studyflow worker`: one worker process; SIGTERM or Ctrl-C shuts it down gracefully, also while it starts.
 * It refuses to start (exit 1, a named error) in a namespace that does not exist or lacks studyflow's search
 * attributes, rather than poll nothing. `--check` only checks what it needs.
 */
export async function run(
  ctx: CliContext,
  options: { webhookPort?: string; webhookHost: string; metricsPort?: string; metricsHost?: string; writeBundle?: string; check?: boolean; json?: boolean } = {
    webhookHost: '127.0.0.1',
  },
): Promise<number> {
  if (options.check) return reportReachability(ctx, 'worker', await checkReachability('worker', ctx.env), Boolean(options.json));
  if (options.writeBundle !== undefined) {
    const file = path.resolve(ctx.cwd, options.writeBundle);
    const { bytes } = await writeWorkflowBundle(file);
    ctx.out.progress(`workflow bundle written: ${file} (${Math.round(bytes / 1024)} KiB); run workers with STUDYFLOW_WORKFLOW_BUNDLE=${file}`);
    return 0;
  }
  const settings = temporalSettings(ctx.env);
  // A stop asked for while starting ends the start at its next step; once the workers run, it shuts them down.
  let stopRequested = false;
  let stop = () => {
    stopRequested = true;
  };
  const onStop = () => stop();
  process.on('SIGTERM', onStop);
  void ctx.interrupted.then(onStop);
  const stoppedWhileStarting = () => {
    if (stopRequested) ctx.out.progress('worker stopped before it started polling');
    return stopRequested;
  };
  const metricsPort = metricsPortOf(options.metricsPort, ctx.env);
  // Before the Temporal connection: the SDK's exporter is part of the runtime the connection starts.
  const telemetry = await prepareWorkerTelemetry(ctx.env, metricsPort !== undefined);
  const activities = createWorkerActivities(ctx.env, { metrics: telemetry.metrics });
  let ops: { url: string; close(): Promise<void> } | undefined;
  let connection: Awaited<ReturnType<typeof connectWorker>> | undefined;
  let ingress: WebhookIngress | undefined;
  let clientConnection: { close(): Promise<void> } | undefined;
  // Everything opened is closed on every way out: an open connection would keep the process alive after an error.
  try {
    connection = await connectWorker(settings);
    if (stoppedWhileStarting()) return 0;
    try {
      await requireStudyflowNamespace(connection.workflowService, settings.namespace, settings.address);
    } catch (error) {
      if (error instanceof Error && (error.name === 'NamespaceMissingError' || error.name === 'SearchAttributesMissingError')) throw new CliError(error.message);
      throw error;
    }
    if (stoppedWhileStarting()) return 0;
    const taskQueue = workflowTaskQueue(ctx.env);
    const workers = await startStudyflowWorkers({ connection, namespace: settings.namespace, activities: activities.activities, taskQueue, dataConverter: dataConverterFromEnv(ctx.env) });
    stop = () => void workers.shutdown();
    if (stopRequested) stop();
    let workersRunning = true;
    void workers.done.then(
      () => (workersRunning = false),
      () => (workersRunning = false),
    );
    if (metricsPort !== undefined && !stopRequested) {
      ops = await startWorkerOps({
        metrics: telemetry.metrics,
        port: metricsPort,
        host: options.metricsHost,
        connection,
        workersRunning: () => workersRunning,
        sdkMetricsAddress: telemetry.sdkMetricsAddress,
      }).catch((error: Error) => {
        stop();
        throw new CliError(error.message);
      });
      ctx.out.progress(`metrics on ${ops.url}/metrics, health on ${ops.url}/healthz${telemetry.sdkMetricsAddress ? '' : " (studyflow's own metrics only: the Temporal runtime was set up before)"}`);
    }
    ctx.out.progress(`worker polling ${taskQueue} and ${apiTaskQueueOf(taskQueue)} on ${settings.address} (namespace ${settings.namespace})`);
    ctx.out.progress(`ID lists in ${activities.blobs.location}; webhook secrets ${activities.secretsDescription}`);
    if (options.webhookPort !== undefined && !stopRequested) {
      const { client, connection: c } = await connectClient(settings, ctx.env);
      clientConnection = c;
      ingress = await startWebhookIngress({
        client,
        secrets: activities.receiverSecrets,
        port: parsePort(options.webhookPort, '--webhook-port'),
        host: options.webhookHost,
        signatureHeader: connectionProfileFromEnv(withDevDefaults(ctx.env)).signatureHeader,
      });
      registerReceiverMetrics(telemetry.metrics.registry, ingress);
      ctx.out.progress(`receiving webhooks on ${ingress.url}`);
    }
    await workers.done;
    ctx.out.progress('worker stopped');
    return 0;
  } finally {
    process.off('SIGTERM', onStop);
    await ops?.close();
    await ingress?.close();
    await clientConnection?.close();
    await connection?.close();
  }
}
