// The floor of the design: what one child workflow per target group costs this machine before any
// Demand API call. A parent workflow starts N children; each runs one cheap activity on a separate
// task queue, signals the parent once and stays open (bench/fixtures/fan-out-workflows.ts), on a
// private dev server with studyflow's settings and one worker, as `studyflow worker` runs them. Wall
// time from the start of the parent until every child has reported, and the CPU the Temporal server
// and this process (worker and client) used meanwhile. No API latency and no job is on this path,
// so the bound of the apply-latency benchmark comes on top of it.
//
//   node bin/run-ts.js bench/fan-out-floor.ts [--sizes 1,10,50,200]
import path from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import { installRuntimeLogging } from '../worker/runtime-logging';
import { DEV_SERVER_DYNAMIC_CONFIG, SQLITE_PRAGMAS } from '../dev/temporal-dev-server';
import { runContext, stringArg, writeResult } from './bench-stack';
import { overheadActivities } from './fixtures/overhead-activities';
import type { fanOutParentWorkflow } from './fixtures/fan-out-workflows';
import { EVENT_TYPES, startedAtMs, timedEvents } from './history-timing';
import { withPrivateEngine } from './private-engine';
import { cpuMeter, processNamed } from './process-cpu';
import type { FanOutFloorResult, FanOutFloorRow } from './result-types';

const sizes = stringArg('sizes', '1,10,50,200').split(',').map(Number);
if (sizes.some((n) => !Number.isInteger(n) || n < 1)) throw new Error(`--sizes must be positive integers, got ${sizes.join(',')}`);

const quiet = { log: () => undefined, trace: () => undefined, debug: () => undefined, info: () => undefined, warn: () => undefined, error: (m: string) => process.stderr.write(`${m}\n`) };

installRuntimeLogging();
const context = runContext();
const workflowBundle = await bundleWorkflowCode({ workflowsPath: path.resolve(import.meta.dirname, 'fixtures/fan-out-workflows.ts'), logger: quiet });
const rows: FanOutFloorRow[] = [];
await withPrivateEngine(
  {
    name: 'fan-out',
    workflowWorker: { workflowBundle, maxCachedWorkflows: 500 },
    activityWorker: { activities: overheadActivities(), maxTaskQueueActivitiesPerSecond: 1000, maxConcurrentActivityTaskExecutions: 50 },
  },
  async ({ client, taskQueue, activityQueue, temporalPid }) => {
    const run = (id: string, children: number) =>
      client.workflow.start<typeof fanOutParentWorkflow>('fanOutParentWorkflow', { taskQueue, workflowId: id, args: [{ children, activityQueue }] });
    await (await run('warm-up', 5)).result();
    for (const n of sizes) {
      const meter = cpuMeter({ temporalServer: processNamed(temporalPid, 'temporal') });
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
  },
);

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
