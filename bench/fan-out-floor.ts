// The floor of the design: what one child workflow per target group costs this machine before any
// Demand API call. A parent workflow starts N children; each runs one cheap activity on a separate
// task queue, signals the parent once and stays open (bench/fixtures/fan-out-workflows.ts), on a
// private dev server with studyflow's settings and one worker, as `studyflow worker` runs them. Wall
// time from the start of the parent until every child has reported, and the CPU the Temporal server
// and this process (worker and client) used meanwhile. No API latency and no job is on this path,
// so the bound of the apply-latency benchmark comes on top of it.
//
//   node bin/run-ts.js bench/fan-out-floor.ts [--sizes 1,10,50,200]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { bundleWorkflowCode, NativeConnection, Worker } from '@temporalio/worker';
import { installRuntimeLogging } from '../worker/runtime-logging';
import { DEV_SERVER_DYNAMIC_CONFIG, SQLITE_PRAGMAS, startTemporalDevServer } from '../worker/temporal-dev-server';
import { runContext, stringArg, writeResult } from './bench-stack';
import { overheadActivities } from './fixtures/overhead-activities';
import type { fanOutParentWorkflow } from './fixtures/fan-out-workflows';
import { EVENT_TYPES, startedAtMs, timedEvents } from './history-timing';
import { cpuMeter, processNamed } from './process-cpu';
import type { FanOutFloorResult, FanOutFloorRow } from './result-types';

const sizes = stringArg('sizes', '1,10,50,200').split(',').map(Number);
if (sizes.some((n) => !Number.isInteger(n) || n < 1)) throw new Error(`--sizes must be positive integers, got ${sizes.join(',')}`);

const quiet = { log: () => undefined, trace: () => undefined, debug: () => undefined, info: () => undefined, warn: () => undefined, error: (m: string) => process.stderr.write(`${m}\n`) };

installRuntimeLogging();
const context = runContext();
const workflowBundle = await bundleWorkflowCode({ workflowsPath: path.resolve(import.meta.dirname, 'fixtures/fan-out-workflows.ts'), logger: quiet });
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'studyflow-bench-fan-out-'));
const temporal = await startTemporalDevServer({ dbFile: path.join(dir, 'temporal.sqlite'), uiPort: false, stopWithParent: true });
const rows: FanOutFloorRow[] = [];
try {
  const connection = await NativeConnection.connect({ address: temporal.address });
  const taskQueue = `fan-out-${process.pid}`;
  const activityQueue = `${taskQueue}-api`;
  const activities = overheadActivities();
  // As worker/studyflow-worker.ts sets them up: workflows on one queue, the activities on their own.
  const workflowWorker = await Worker.create({ connection, namespace: 'default', taskQueue, workflowBundle, maxCachedWorkflows: 500 });
  const activityWorker = await Worker.create({ connection, namespace: 'default', taskQueue: activityQueue, activities, maxTaskQueueActivitiesPerSecond: 1000, maxConcurrentActivityTaskExecutions: 50 });
  const workersDone = Promise.all([workflowWorker.run(), activityWorker.run()]);
  const clientConnection = await Connection.connect({ address: temporal.address });
  const client = new Client({ connection: clientConnection, namespace: 'default' });
  try {
    const run = (id: string, children: number) =>
      client.workflow.start<typeof fanOutParentWorkflow>('fanOutParentWorkflow', { taskQueue, workflowId: id, args: [{ children, activityQueue }] });
    await (await run('warm-up', 5)).result();
    for (const n of sizes) {
      const meter = cpuMeter({ temporalServer: processNamed(temporal.pid, 'temporal') });
      const started = performance.now();
      const handle = await run(`floor-${n}`, n);
      const reported = await handle.result();
      const wallMs = Math.round(performance.now() - started);
      const used = meter.stop();
      if (reported !== n) throw new Error(`floor-${n}: ${reported} of ${n} children reported`);
      const events = timedEvents(await handle.fetchHistory());
      const first = startedAtMs(events);
      const childStarts = events.filter((e) => e.type === EVENT_TYPES.childStarted).map((e) => e.timeMs - first);
      const serverMs = used.cpuMs.temporalServer ?? 0;
      const processMs = used.cpuMs.benchmark ?? 0;
      rows.push({
        children: n,
        wallMs,
        lastChildStartedMs: Math.round(Math.max(0, ...childStarts)),
        parentEvents: events.length,
        cpuMs: { temporalServer: serverMs, workerAndClient: processMs },
        cpuPerChildMs: Math.round((serverMs + processMs) / n),
        machineShare: used.machineShare,
        loadAverage: runContext().loadAverageAtStart,
      });
      process.stderr.write(`fan-out floor: ${n} children reported after ${wallMs} ms\n`);
    }
  } finally {
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

const result: FanOutFloorResult = {
  benchmark: 'fan-out-floor',
  command: `node bin/run-ts.js bench/fan-out-floor.ts --sizes ${sizes.join(',')}`,
  ...context,
  dynamicConfig: { ...DEV_SERVER_DYNAMIC_CONFIG },
  sqlitePragmas: [...SQLITE_PRAGMAS],
  results: rows,
};
writeResult('fan-out-floor', result);
process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
