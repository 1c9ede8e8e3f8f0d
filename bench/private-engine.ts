// A private Temporal dev server with one workflow worker and one activity worker on a queue of its own
// (as worker/studyflow-worker.ts sets them up), for the engine benchmarks. Everything stops when the
// measurement ends; a worker that stops before that fails the measurement instead of hanging it.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import { startTemporalDevServer, type DevServerOptions } from '../dev/temporal-dev-server';

type QueueWorkerOptions = Omit<WorkerOptions, 'connection' | 'namespace' | 'taskQueue'>;

export interface PrivateEngine {
  client: Client;
  /** The workflows' task queue. */
  taskQueue: string;
  /** The activity worker's queue. */
  activityQueue: string;
  /** The dev server process (for CPU metering). */
  temporalPid?: number;
}

export interface PrivateEngineOptions {
  /** Prefix of the temporary directory and the task queues. */
  name: string;
  server?: Pick<DevServerOptions, 'dynamicConfig' | 'sqlitePragmas'>;
  workflowWorker: QueueWorkerOptions;
  activityWorker: QueueWorkerOptions;
}

export async function withPrivateEngine<T>(options: PrivateEngineOptions, measure: (engine: PrivateEngine) => Promise<T>): Promise<T> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `studyflow-bench-${options.name}-`));
  const temporal = await startTemporalDevServer({ dbFile: path.join(dir, 'temporal.sqlite'), uiPort: false, stopWithParent: true, ...options.server });
  try {
    const connection = await NativeConnection.connect({ address: temporal.address });
    const taskQueue = `${options.name}-${process.pid}`;
    const activityQueue = `${taskQueue}-api`;
    const workflowWorker = await Worker.create({ connection, namespace: 'default', taskQueue, ...options.workflowWorker });
    const activityWorker = await Worker.create({ connection, namespace: 'default', taskQueue: activityQueue, ...options.activityWorker });
    const clientConnection = await Connection.connect({ address: temporal.address });
    const client = new Client({ connection: clientConnection, namespace: 'default' });
    const workersDone = Promise.all([workflowWorker.run(), activityWorker.run()]);
    let measuring = true;
    try {
      return await Promise.race([
        workersDone.then(() => {
          if (measuring) throw new Error(`${options.name}: the workers stopped before the measurement ended`);
          return undefined as never;
        }),
        measure({ client, taskQueue, activityQueue, temporalPid: temporal.pid }),
      ]);
    } finally {
      measuring = false;
      workflowWorker.shutdown();
      activityWorker.shutdown();
      await workersDone.catch(() => undefined);
      await clientConnection.close();
      await connection.close();
    }
  } finally {
    await temporal.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
