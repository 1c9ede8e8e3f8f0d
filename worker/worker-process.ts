// The bootstrap of a `studyflow worker` process: the worker's native connection, the namespace check, the
// workers on the workflow and API task queues, and (when asked) a webhook receiver beside them. The CLI's
// `worker` command parses its options and wires them here; it opens no connection itself.
import { connectionProfileFromEnv } from '../api/http/api-config';
import { withDevDefaults } from '../api/http/api-environment';
import { connectClient, dataConverterFromEnv, temporalSettings, workflowTaskQueue } from '../temporal/temporal-connection';
import { startWebhookIngress, type WebhookIngress } from '../webhooks/webhook-ingress';
import { apiTaskQueueOf } from '../workflows/activity-proxies';
import { requireStudyflowNamespace } from './namespace-check';
import { startStudyflowWorkers } from './studyflow-worker';
import { createWorkerActivities } from './worker-activities';
import { connectWorker } from './worker-connection';

export interface WorkerProcessOptions {
  env: NodeJS.ProcessEnv;
  /** Also receive webhooks on this port (0: a free one). */
  webhookPort?: number;
  webhookHost: string;
  /** Resolves when the process should stop: the start ends at its next step, or the running workers shut down. */
  stop: Promise<unknown>;
  /** Progress lines for the operator. */
  log: (line: string) => void;
}

/**
 * Runs a worker until `stop` resolves and the workers have shut down. It refuses to start in a namespace that
 * does not exist or lacks studyflow's search attributes (NamespaceMissingError, SearchAttributesMissingError).
 */
export async function runWorkerProcess(options: WorkerProcessOptions): Promise<void> {
  const { env, log } = options;
  const settings = temporalSettings(env);
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
  const activities = createWorkerActivities(env);
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
    const workers = await startStudyflowWorkers({ connection, namespace: settings.namespace, activities: activities.activities, taskQueue, dataConverter: dataConverterFromEnv(env) });
    stop = () => void workers.shutdown();
    if (stopRequested) stop();
    log(`worker polling ${taskQueue} and ${apiTaskQueueOf(taskQueue)} on ${settings.address} (namespace ${settings.namespace})`);
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
      log(`receiving webhooks on ${ingress.url}`);
    }
    await workers.done;
    log('worker stopped');
  } finally {
    await ingress?.close();
    await clientConnection?.close();
    await activities.close();
    await connection?.close();
  }
}
