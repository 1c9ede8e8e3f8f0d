// The bootstrap of a `studyflow worker` process: the worker's native connection, the namespace check, the
// workers on the workflow and API task queues, and (when asked) a webhook receiver beside them. The CLI's
// `worker` command parses its options and wires them here; it opens no connection itself.
import { connectionProfileFromEnv } from '../api/http/api-config';
import { withDevDefaults } from '../api/http/api-environment';
import { connectClient, dataConverterFromEnv, temporalSettings, workflowTaskQueue } from '../temporal/temporal-connection';
import { startWebhookIngress, type WebhookIngress } from '../webhooks/webhook-ingress';
import { apiTaskQueueOf } from '../workflows/activity-proxies';
import { requireStudyflowNamespace } from './namespace-check';
import { startStudyflowWorkers, workflowCacheFromEnv } from './studyflow-worker';
import { createWorkerActivities } from './worker-activities';
import { connectWorker } from './worker-connection';
import { registerReceiverMetrics } from '../webhooks/receiver-ops';
import { prepareWorkerTelemetry, startWorkerOps } from './worker-ops';
import { phaseIntervalFromEnv, TargetGroupPhaseCollector } from './target-group-phases';

export interface WorkerProcessOptions {
  env: NodeJS.ProcessEnv;
  /** Also receive webhooks on this port (0: a free one). */
  webhookPort?: number;
  webhookHost: string;
  /** Serve /metrics and /healthz on this port (0: a free one); absent: no endpoint. */
  metricsPort?: number;
  metricsHost?: string;
  /** Resolves when the process should stop: the start ends at its next step, or the running workers shut down. */
  stop: Promise<unknown>;
  /** Progress lines for the operator. */
  log: (line: string) => void;
}

/** What the worker runs as, and whether new studies start on it. */
export function deploymentLine(d: { deploymentName: string; buildId: string; current?: string; madeCurrent: boolean }): string {
  const state = d.madeCurrent ? 'made current (none was)' : d.current === d.buildId ? 'current' : `not current (current: ${d.current ?? 'none'}; \`studyflow upgrade set-current --build-id ${d.buildId}\` makes it)`;
  return `worker build ${d.buildId} of deployment ${d.deploymentName}: ${state}`;
}

/** The metrics and health endpoint could not start (its address and the reason). */
export class OpsEndpointError extends Error {
  override readonly name = 'OpsEndpointError';
}

/**
 * Runs a worker until `stop` resolves and the workers have shut down. It refuses to start in a namespace that
 * does not exist or lacks studyflow's search attributes (NamespaceMissingError, SearchAttributesMissingError).
 */
export async function runWorkerProcess(options: WorkerProcessOptions): Promise<void> {
  const { env, log } = options;
  const settings = temporalSettings(env);
  const maxCachedWorkflows = workflowCacheFromEnv(env);
  // A stop asked for while starting ends the start at its next step; once the workers run, it shuts them down.
  let stopRequested = false;
  let stop = () => {
    stopRequested = true;
  };
  void options.stop.then(() => stop());
  const stoppedWhileStarting = () => {
    if (stopRequested) log('worker stopped before it started polling');
    return stopRequested;
  };
  // Before the Temporal connection: the SDK's exporter is part of the runtime the connection starts.
  const telemetry = await prepareWorkerTelemetry(env, options.metricsPort !== undefined);
  const activities = createWorkerActivities(env, { metrics: telemetry.metrics });
  const phasesEveryMs = options.metricsPort === undefined ? undefined : phaseIntervalFromEnv(env);
  let phases: TargetGroupPhaseCollector | undefined;
  let ops: { url: string; close(): Promise<void> } | undefined;
  let connection: Awaited<ReturnType<typeof connectWorker>> | undefined;
  let ingress: WebhookIngress | undefined;
  let clientConnection: { close(): Promise<void> } | undefined;
  // Everything opened is closed on every way out: an open connection would keep the process alive after an error.
  try {
    connection = await connectWorker(settings);
    if (stoppedWhileStarting()) return;
    await requireStudyflowNamespace(connection.workflowService, settings.namespace, settings.address);
    if (stoppedWhileStarting()) return;
    const taskQueue = workflowTaskQueue(env);
    // A worker deployment version (./deployment.ts): its own version becomes current only where none is.
    const workers = await startStudyflowWorkers({
      connection,
      namespace: settings.namespace,
      activities: activities.activities,
      taskQueue,
      dataConverter: dataConverterFromEnv(env),
      maxCachedWorkflows,
      deployment: { env, currentPolicy: 'if-none' },
    });
    stop = () => void workers.shutdown();
    if (stopRequested) stop();
    let workersRunning = true;
    void workers.done.then(
      () => (workersRunning = false),
      () => (workersRunning = false),
    );
    if (options.metricsPort !== undefined && !stopRequested) {
      // studyflow_target_groups{phase}: counted in Temporal's visibility (./target-group-phases.ts).
      phases = new TargetGroupPhaseCollector({ workflowService: connection.workflowService, namespace: settings.namespace, taskQueue, metrics: telemetry.metrics, intervalMs: phasesEveryMs, log });
      phases.start();
      const collector = phases;
      ops = await startWorkerOps({
        metrics: telemetry.metrics,
        port: options.metricsPort,
        host: options.metricsHost,
        connection,
        workersRunning: () => workersRunning,
        sdkMetricsAddress: telemetry.sdkMetricsAddress,
        beforeScrape: () => collector.refreshIfStale(),
      }).catch((error: Error) => {
        stop();
        throw new OpsEndpointError(error.message);
      });
      log(`metrics on ${ops.url}/metrics, health on ${ops.url}/healthz${telemetry.sdkMetricsAddress ? '' : " (studyflow's own metrics only: the Temporal runtime was set up before)"}`);
    }
    log(`worker polling ${taskQueue} and ${apiTaskQueueOf(taskQueue)} on ${settings.address} (namespace ${settings.namespace})`);
    if (workers.deployment) log(deploymentLine(workers.deployment));
    log(`ID lists in ${activities.blobs.location}; webhook secrets ${activities.secretsDescription}`);
    if (options.webhookPort !== undefined && !stopRequested) {
      const { client, connection: c } = await connectClient(settings, env);
      clientConnection = c;
      ingress = await startWebhookIngress({
        client,
        secrets: activities.receiverSecrets,
        port: options.webhookPort,
        host: options.webhookHost,
        signatureHeader: connectionProfileFromEnv(withDevDefaults(env)).signatureHeader,
      });
      registerReceiverMetrics(telemetry.metrics.registry, ingress);
      log(`receiving webhooks on ${ingress.url}`);
    }
    await workers.done;
    log('worker stopped');
  } finally {
    phases?.stop();
    await ops?.close();
    await ingress?.close();
    await clientConnection?.close();
    await connection?.close();
  }
}
