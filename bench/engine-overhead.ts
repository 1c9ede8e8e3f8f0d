// Benchmark: what the engine adds per step. A fixture workflow calls one cheap activity N times in
// sequence; the same function is called directly; overhead = workflow time per activity minus the
// direct call. Measured with the activity on the workflow's own task queue (eager dispatch allowed)
// and on a separate queue, as studyflow's Demand API activities are; also how late durable timers
// fire (studyflow polls jobs with them). All of it on a dev server with studyflow's settings
// (DEV_SERVER_DYNAMIC_CONFIG), then, shorter, on one with Temporal's defaults, for comparison.
//
//   node bin/run-ts.js bench/engine-overhead.ts [--calls 100] [--timers 10] [--timer-ms 100] [--default-calls 40]
import path from 'node:path';
import { bundleWorkflowCode, type WorkflowBundle } from '@temporalio/worker';
import { installRuntimeLogging } from '../worker/runtime-logging';
import { DEV_SERVER_DYNAMIC_CONFIG, SQLITE_PRAGMAS } from '../dev/temporal-dev-server';
import { numberArg, runContext, writeResult } from './bench-stack';
import { withPrivateEngine } from './private-engine';
import { overheadActivities } from './fixtures/overhead-activities';
import type { sequentialActivitiesWorkflow, sequentialTimersWorkflow } from './fixtures/overhead-workflows';
import { activityCycles, timedEvents, timerLateness } from './history-timing';
import type { EngineOverheadResult, OverheadServerRun, OverheadVariant } from './result-types';
import { distribution } from './stats';

const calls = numberArg('calls', 100);
const timers = numberArg('timers', 10);
const timerMs = numberArg('timer-ms', 100);
const defaultCalls = numberArg('default-calls', 40);

const activities = overheadActivities();
const quiet = { log: () => undefined, trace: () => undefined, debug: () => undefined, info: () => undefined, warn: () => undefined, error: (m: string) => process.stderr.write(`${m}\n`) };

async function directCall() {
  for (let i = 0; i < 1000; i += 1) await activities.echo(i); // warm-up
  const each: number[] = [];
  for (let i = 0; i < calls; i += 1) {
    const t = performance.now();
    await activities.echo(i);
    each.push(performance.now() - t);
  }
  const batchStarted = performance.now();
  for (let i = 0; i < 10_000; i += 1) await activities.echo(i);
  return { ...distribution(each), meanUsOver10000Calls: Number((((performance.now() - batchStarted) / 10_000) * 1000).toFixed(3)) };
}

/** One dev server with `dynamicConfig`: both activity variants and the timers. */
async function onServer(workflowBundle: WorkflowBundle, dynamicConfig: Readonly<Record<string, number | string>>, activityCalls: number, directMedianMs: number, directP95Ms: number): Promise<OverheadServerRun> {
  // Temporal's defaults are its dynamic config and its SQLite settings.
  const sqlitePragmas = Object.keys(dynamicConfig).length === 0 ? [] : [...SQLITE_PRAGMAS];
  return await withPrivateEngine(
    {
      name: 'overhead',
      server: { dynamicConfig, sqlitePragmas },
      workflowWorker: { workflowBundle, activities },
      activityWorker: { activities, maxTaskQueueActivitiesPerSecond: 2000 },
    },
    async ({ client, taskQueue, activityQueue: otherQueue }): Promise<OverheadServerRun> => {
      const measure = async (label: string, queue: string | undefined): Promise<OverheadVariant> => {
        // A short warm-up run first (first workflow task, connections), not measured.
        await client.workflow.execute<typeof sequentialActivitiesWorkflow>('sequentialActivitiesWorkflow', {
          taskQueue, workflowId: `${label}-warmup`, args: [{ calls: 5, taskQueue: queue }],
        });
        const handle = await client.workflow.start<typeof sequentialActivitiesWorkflow>('sequentialActivitiesWorkflow', {
          taskQueue, workflowId: label, args: [{ calls: activityCalls, taskQueue: queue }],
        });
        const started = performance.now();
        const result = await handle.result();
        const wallMs = performance.now() - started;
        if (result !== activityCalls) throw new Error(`${label}: workflow returned ${result}, expected ${activityCalls}`);
        const cycles = activityCycles(timedEvents(await handle.fetchHistory()));
        const cycle = distribution(cycles.map((c) => c.cycleMs));
        return {
          taskQueue: queue ? 'separate activity queue (as studyflow API activities)' : 'workflow task queue (eager dispatch allowed)',
          activities: activityCalls,
          wallMs: Math.round(wallMs),
          wallPerActivityMs: Number((wallMs / activityCalls).toFixed(2)),
          perActivity: cycle,
          dispatch: distribution(cycles.map((c) => c.dispatchMs)),
          run: distribution(cycles.map((c) => c.runMs)),
          decide: distribution(cycles.map((c) => c.decideMs)),
          overheadMedianMs: Number((cycle.medianMs - directMedianMs).toFixed(2)),
          overheadP95Ms: Number((cycle.p95Ms - directP95Ms).toFixed(2)),
        };
      };
      const sameQueue = await measure('same-queue', undefined);
      const separateQueue = await measure('separate-queue', otherQueue);
      const timerHandle = await client.workflow.start<typeof sequentialTimersWorkflow>('sequentialTimersWorkflow', {
        taskQueue, workflowId: 'timers', args: [{ timers, ms: timerMs }],
      });
      await timerHandle.result();
      const lateness = distribution(timerLateness(timedEvents(await timerHandle.fetchHistory())));
      return { dynamicConfig: { ...dynamicConfig }, sqlitePragmas, sameQueue, separateQueue, timers: { count: timers, requestedMs: timerMs, lateness } };
    },
  );
}

installRuntimeLogging();
const context = runContext();
const direct = await directCall();
const workflowBundle = await bundleWorkflowCode({ workflowsPath: path.resolve(import.meta.dirname, 'fixtures/overhead-workflows.ts'), logger: quiet });
const studyflowDevServer = await onServer(workflowBundle, DEV_SERVER_DYNAMIC_CONFIG, calls, direct.medianMs, direct.p95Ms);
const temporalDefaults = await onServer(workflowBundle, {}, defaultCalls, direct.medianMs, direct.p95Ms);
const measured = studyflowDevServer.separateQueue.overheadMedianMs;
const report: EngineOverheadResult = {
  benchmark: 'engine-overhead',
  command: `node bin/run-ts.js bench/engine-overhead.ts --calls ${calls} --timers ${timers} --timer-ms ${timerMs} --default-calls ${defaultCalls}`,
  ...context,
  directCall: direct,
  studyflowDevServer,
  temporalDefaults,
  target: { medianOverheadBelowMs: 15, measuredMedianMs: measured, met: measured < 15 },
};
writeResult('engine-overhead', report);
process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
