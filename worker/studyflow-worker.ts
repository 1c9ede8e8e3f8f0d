import fs from 'node:fs';
import path from 'node:path';
import { bundleWorkflowCode, NativeConnection, Worker, type WorkflowBundle } from '@temporalio/worker';
import type { DataConverter } from '@temporalio/common';
import { apiTaskQueueOf } from '../workflows/activity-proxies';
import { installRuntimeLogging } from './runtime-logging';
import { workflowTaskQueue } from '../temporal/temporal-connection';
import { PACKAGED_WORKFLOW_BUNDLE, RUNNING_COMPILED, WORKFLOWS_PATH } from './package-files';
import { bundleCode, settleCurrentVersion, workerDeploymentVersion, type CurrentPolicy } from './deployment';
import type { DeploymentVersion } from '../temporal/worker-deployments';

export { WORKFLOWS_PATH };

/** Options of a studyflow worker process (or an in-process worker in `studyflow dev` and the tests). */
export interface StudyflowWorkerOptions {
  connection: NativeConnection;
  namespace: string;
  /** The activity object (from `createActivities`). */
  activities: object;
  /** A prebuilt workflow bundle; built from workflows/ when omitted (see `prebuiltWorkflowBundle`). */
  workflowBundle?: WorkflowBundle;
  /**
   * Downstream rate limit: API activity starts per second across ALL workers of the task queue
   * (Temporal enforces it server-side). Default 20, env STUDYFLOW_API_RATE_LIMIT.
   */
  apiRatePerSecond?: number;
  /** Concurrent API activities in this process (default 50). */
  maxConcurrentApiActivities?: number;
  dataConverter?: DataConverter;
  /** Workflow task queue (default STUDYFLOW_TASK_QUEUE or "studyflow"); API activities poll "<queue>-api". */
  taskQueue?: string;
  /** Grace period to finish running activities on shutdown. */
  shutdownGraceTime?: string;
  /**
   * Workflow runs kept in memory between their tasks (`workflowCacheFromEnv`); absent: the SDK's default, which
   * grows with the process's heap limit (about 2,300 under Node's default 4 GiB limit).
   */
  maxCachedWorkflows?: number;
  /**
   * Run as a worker deployment version (./deployment.ts): its name and build id from this environment
   * (STUDYFLOW_DEPLOYMENT, STUDYFLOW_BUILD_ID, else the task queue and the bundle's hash), study and target-group
   * workflows pinned to it, and the version made current under `currentPolicy` once it polls. Absent: unversioned.
   */
  deployment?: { env: Record<string, string | undefined>; currentPolicy: CurrentPolicy };
}

/** STUDYFLOW_WORKFLOW_CACHE is not 0 or a whole number of 2 or more. */
export class WorkflowCacheSizeError extends Error {
  override readonly name = 'WorkflowCacheSizeError';
}

/**
 * The workflow cache size from STUDYFLOW_WORKFLOW_CACHE (unset or empty: the SDK's default). A workflow run that
 * is not cached is replayed from its whole history at its next task, so a worker that watches N live target
 * groups wants room for N target-group runs and their studies' runs (docs/operations.md, "Sizing a worker").
 */
export function workflowCacheFromEnv(env: Record<string, string | undefined>): number | undefined {
  const text = env.STUDYFLOW_WORKFLOW_CACHE?.trim();
  if (!text) return undefined;
  const value = Number(text);
  if (!Number.isInteger(value) || value === 1 || value < 0) {
    throw new WorkflowCacheSizeError(`STUDYFLOW_WORKFLOW_CACHE must be 0 (no cache) or a whole number of workflow runs, 2 or more (it is "${text}")`);
  }
  return value;
}

/** STUDYFLOW_API_RATE_LIMIT is not a positive number. */
export class ApiRateLimitError extends Error {
  override readonly name = 'ApiRateLimitError';
}

/** API activities per second across all workers of the task queue, from STUDYFLOW_API_RATE_LIMIT (unset or empty: 20). */
export function apiRateLimitFromEnv(env: Record<string, string | undefined>): number {
  const text = env.STUDYFLOW_API_RATE_LIMIT?.trim();
  if (!text) return 20;
  const value = Number(text);
  if (!(value > 0) || !Number.isFinite(value)) throw new ApiRateLimitError(`STUDYFLOW_API_RATE_LIMIT must be a positive number of API activities per second (it is "${text}")`);
  return value;
}

let bundlePromise: Promise<WorkflowBundle> | undefined;

/**
 * The workflow bundle: the file named by STUDYFLOW_WORKFLOW_BUNDLE (made by `studyflow worker --write-bundle`,
 * so that every worker of a deployment runs byte-identical workflow code); else, in the compiled package, the
 * bundle `npm run build` wrote beside it; else (the TypeScript sources: a checkout, the tests) workflows/
 * bundled once per process (a few seconds) and reused.
 */
export function prebuiltWorkflowBundle(env: NodeJS.ProcessEnv = process.env): Promise<WorkflowBundle> {
  bundlePromise ??= (async () => {
    const file = env.STUDYFLOW_WORKFLOW_BUNDLE ?? (RUNNING_COMPILED ? PACKAGED_WORKFLOW_BUNDLE : undefined);
    if (file) {
      try {
        return { code: await fs.promises.readFile(file, 'utf8') };
      } catch (error) {
        const origin = env.STUDYFLOW_WORKFLOW_BUNDLE ? `STUDYFLOW_WORKFLOW_BUNDLE=${file}` : `the packaged workflow bundle ${file} (run \`npm run build\`)`;
        throw new Error(`${origin} cannot be read: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
      }
    }
    return await bundleWorkflowCode({ workflowsPath: WORKFLOWS_PATH, logger: quietBundlerLogger });
  })();
  return bundlePromise;
}

/** Writes the workflow bundle to a file for STUDYFLOW_WORKFLOW_BUNDLE. */
export async function writeWorkflowBundle(file: string): Promise<{ bytes: number }> {
  const { code } = await bundleWorkflowCode({ workflowsPath: WORKFLOWS_PATH, logger: quietBundlerLogger });
  await fs.promises.mkdir(path.dirname(file), { recursive: true });
  await fs.promises.writeFile(`${file}.tmp`, code);
  await fs.promises.rename(`${file}.tmp`, file);
  return { bytes: Buffer.byteLength(code) };
}

const quietBundlerLogger = {
  log: () => undefined,
  trace: () => undefined,
  debug: () => undefined,
  info: () => undefined,
  warn: (message: string, meta?: Record<string, unknown>) => process.stderr.write(`bundler: ${message} ${meta ? JSON.stringify(meta) : ''}\n`),
  error: (message: string, meta?: Record<string, unknown>) => process.stderr.write(`bundler: ${message} ${meta ? JSON.stringify(meta) : ''}\n`),
};

export interface RunningWorkers {
  /** Resolves when both workers have stopped. */
  done: Promise<void>;
  /** Graceful shutdown: stop polling, finish running tasks within the grace time. */
  shutdown(): Promise<void>;
  /** The deployment version the workers run as (with `deployment`), and the deployment's current build after start. */
  deployment?: DeploymentVersion & { current?: string; madeCurrent: boolean };
}

/**
 * Two workers in one process: workflows on the study task queue, and the Demand API activities on
 * their own queue whose `maxTaskQueueActivitiesPerSecond` every worker of that queue respects together.
 */
export async function startStudyflowWorkers(options: StudyflowWorkerOptions): Promise<RunningWorkers> {
  installRuntimeLogging();
  const workflowBundle = options.workflowBundle ?? (await prebuiltWorkflowBundle());
  const rate = options.apiRatePerSecond ?? apiRateLimitFromEnv(process.env);
  const taskQueue = options.taskQueue ?? workflowTaskQueue();
  const version = options.deployment ? workerDeploymentVersion(options.deployment.env, taskQueue, await bundleCode(workflowBundle)) : undefined;
  // Both workers are of the version: a pinned workflow's activities run on the API workers of its own build.
  const versioned = version ? { workerDeploymentOptions: { version, useWorkerVersioning: true as const, defaultVersioningBehavior: 'PINNED' as const } } : {};
  const common = { connection: options.connection, namespace: options.namespace, dataConverter: options.dataConverter, ...versioned };
  const workflowWorker = await Worker.create({
    ...common,
    taskQueue,
    workflowBundle,
    ...(options.maxCachedWorkflows !== undefined ? { maxCachedWorkflows: options.maxCachedWorkflows } : {}),
  });
  let apiWorker: Worker;
  try {
    apiWorker = await Worker.create({
      ...common,
      taskQueue: apiTaskQueueOf(taskQueue),
      activities: options.activities,
      maxTaskQueueActivitiesPerSecond: rate,
      maxConcurrentActivityTaskExecutions: options.maxConcurrentApiActivities ?? 50,
      shutdownGraceTime: options.shutdownGraceTime ?? '10 seconds',
    });
  } catch (error) {
    // The workflow worker holds the connection: run it and stop it at once, so that nothing keeps the process alive.
    const run = workflowWorker.run();
    workflowWorker.shutdown();
    await run.catch(() => undefined);
    throw error;
  }
  const workers = [workflowWorker, apiWorker];
  const stopAll = () => {
    for (const worker of workers) if (worker.getState() === 'RUNNING') worker.shutdown();
  };
  // When one worker fails (e.g. its namespace is deleted), the other stops too and `done` rejects with the
  // failure once both have stopped: a process with half its workers would look alive and do half the work.
  const done = Promise.allSettled(
    workers.map((worker) =>
      worker.run().catch((error: unknown) => {
        stopAll();
        throw error;
      }),
    ),
  ).then((results) => {
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw failed.reason;
  });
  let stopping: Promise<void> | undefined;
  const shutdown = () => {
    stopping ??= (async () => {
      stopAll();
      await done;
    })();
    return stopping;
  };
  let deployment: RunningWorkers['deployment'];
  if (version && options.deployment) {
    try {
      const settled = await settleCurrentVersion(options.connection.workflowService, options.namespace, version, options.deployment.currentPolicy, {
        taskQueue,
        identity: `studyflow-worker ${version.deploymentName}/${version.buildId}`,
        stopped: () => workers.some((worker) => worker.getState() !== 'RUNNING'),
      });
      deployment = { ...version, ...settled };
    } catch (error) {
      await shutdown().catch(() => undefined);
      throw error;
    }
  }
  return { done, shutdown, deployment };
}
