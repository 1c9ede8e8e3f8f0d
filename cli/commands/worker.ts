import { startStudyflowWorkers } from '../../worker/studyflow-worker';
import { connectWorker, dataConverterFromEnv, temporalSettings, workflowTaskQueue } from '../../worker/temporal-connection';
import { apiTaskQueueOf } from '../../workflows/activity-proxies';
import { createWorkerActivities } from '../../worker/worker-activities';
import type { CliContext } from '../main';

/** `studyflow worker`: one worker process; SIGTERM or Ctrl-C shuts it down gracefully. */
export async function run(ctx: CliContext): Promise<number> {
  const settings = temporalSettings(ctx.env);
  const activities = createWorkerActivities(ctx.env);
  const connection = await connectWorker(settings);
  const taskQueue = workflowTaskQueue(ctx.env);
  const workers = await startStudyflowWorkers({ connection, namespace: settings.namespace, activities: activities.activities, taskQueue, dataConverter: dataConverterFromEnv(ctx.env) });
  ctx.out.progress(`worker polling ${taskQueue} and ${apiTaskQueueOf(taskQueue)} on ${settings.address} (namespace ${settings.namespace})`);
  const onTerm = () => void workers.shutdown();
  process.once('SIGTERM', onTerm);
  void ctx.interrupted.then(() => workers.shutdown());
  await workers.done;
  process.off('SIGTERM', onTerm);
  await activities.close();
  await connection.close();
  ctx.out.progress('worker stopped');
  return 0;
}
