// Safe upgrades with worker versioning (issue 37, docs/deploy.md "Upgrading studyflow"), on a real Temporal server
// new enough for upgrade-on-continue-as-new (./fixtures/upgrade-server.ts: server v1.32.2; the suite's dev server,
// 1.29.1, never tells a pinned run that its target version changed). Build A runs a study; build B starts beside it
// and is made current with `studyflow upgrade set-current`; the study stays on A while B serves a new study, then
// moves to B at its next safe point (continue-as-new onto the new current version), with no failed workflow task.
// `studyflow upgrade check` flags a bundle with an incompatible change and passes a compatible one.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { bundleWorkflowCode, type WorkflowBundle } from '@temporalio/worker';
import type { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmbeddedStack, type EmbeddedStack } from '../../dev/embedded-stack';
import { connectClient } from '../../temporal/temporal-connection';
import { connectWorker } from '../../worker/worker-connection';
import { startStudyflowWorkers, type RunningWorkers } from '../../worker/studyflow-worker';
import { createWorkerActivities } from '../../worker/worker-activities';
import { eventually, runCli, writeStudy } from './harness';
import { startUpgradeServer, type RunningUpgradeServer } from './fixtures/upgrade-server';

const study = (id: string) => `format: studyflow/v1
study: ${id}
account: "1001"
business_unit: "2001"
project:
  name: Upgrade ${id}
  project_customer_reference_number: PO-${id}
target_groups:
  panel:
    name: Panel of ${id}
    locale: en_US
    live_url: https://survey.example.com/s/${id}?rid=[%RID%]
    expected_incidence_rate: 0.5
    expected_length_of_interview_minutes: 10
    filling_goal: 100
    project_manager_id: "6f1c2a4e-3001-4c8e-9d2b-000000003001"
    collects_pii: false
    launch:
      mode: auto
      require_feasible: true
    timing:
      job_poll_initial: 100ms
      job_poll_max: 500ms
`;

const FIXTURES = path.resolve(import.meta.dirname, '../fixtures/upgrade');
const quiet = { log: () => undefined, trace: () => undefined, debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };

describe('worker versioning: a study moves to a new build only at a safe point', () => {
  let server: RunningUpgradeServer;
  let stack: EmbeddedStack;
  let client: Client;
  let clientConnection: Connection;
  let workersB: RunningWorkers | undefined;
  let workerBConnection: Awaited<ReturnType<typeof connectWorker>> | undefined;
  let dir: string;
  let env: Record<string, string>;
  const taskQueue = `versioning-${Math.random().toString(36).slice(2, 8)}`;
  const bundleFiles: Record<'compatible' | 'incompatible', string> = { compatible: '', incompatible: '' };
  let compatibleBundle: WorkflowBundle;

  const cli = (args: string[]) => runCli(env, args);
  const versionOf = async (workflowId: string) => {
    const described = await client.workflow.getHandle(workflowId).describe();
    const info = described.raw.workflowExecutionInfo?.versioningInfo;
    return { runId: described.runId, buildId: info?.deploymentVersion?.buildId ?? undefined, behavior: Number(info?.behavior ?? 0) };
  };

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'studyflow-versioning-'));
    server = await startUpgradeServer();
    // The next releases, as `studyflow worker --write-bundle` would write them.
    for (const kind of ['compatible', 'incompatible'] as const) {
      const { code } = await bundleWorkflowCode({ workflowsPath: path.join(FIXTURES, `${kind}-workflows.ts`), logger: quiet });
      bundleFiles[kind] = path.join(dir, `${kind}-bundle.js`);
      fs.writeFileSync(bundleFiles[kind], code);
      if (kind === 'compatible') compatibleBundle = { code };
    }
    // Build A: the dev stack's in-process worker, on its own task queue (= its deployment), made current at start.
    stack = await startEmbeddedStack({
      stateDir: dir,
      temporalAddress: server.address,
      taskQueue,
      sandboxPort: 0,
      uiPort: false,
      env: { ...process.env, STUDYFLOW_BUILD_ID: 'build-a' },
    });
    env = { ...stack.env, STUDYFLOW_WATCH_INTERVAL_MS: '8000', NO_COLOR: '1' };
    ({ client, connection: clientConnection } = await connectClient({ address: server.address, namespace: 'default', connectionOptions: {} }, env));
  }, 1_800_000);

  afterAll(async () => {
    await workersB?.shutdown().catch(() => undefined);
    await workerBConnection?.close().catch(() => undefined);
    await clientConnection?.close();
    await stack?.stop();
    await server?.stop();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('runs build A as the current version of the deployment named by the task queue', async () => {
    expect(stack.worker).toBeDefined();
    const status = await cli(['upgrade', 'status', '--json']);
    expect(status.code, status.stderr).toBe(0);
    const parsed = JSON.parse(status.stdout) as { deploymentName: string; deployment?: { current?: string } };
    expect(parsed.deploymentName).toBe(taskQueue);
    expect(parsed.deployment?.current).toBe('build-a');
  });

  it('pins a study to build A, keeps it there while build B becomes current and serves a new study, then moves it at a safe point', async () => {
    const applied = await cli(['apply', writeStudy(dir, 'first.yaml', study('first'))]);
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stdout).toMatch(/panel\s+live/);
    const before = { study: await versionOf('study/1001/first'), panel: await versionOf('study/1001/first/tg/panel') };
    expect(before.study).toMatchObject({ buildId: 'build-a', behavior: 1 }); // VERSIONING_BEHAVIOR_PINNED
    expect(before.panel).toMatchObject({ buildId: 'build-a', behavior: 1 });

    // A build no worker serves is refused by name, and nothing changes.
    const unserved = await cli(['upgrade', 'set-current', '--build-id', 'build-b']);
    expect(unserved.code).toBe(1);
    expect(unserved.stderr).toContain('UnservedBuildError');
    expect(unserved.stderr).toContain('build-b');
    expect(JSON.parse((await cli(['upgrade', 'status', '--json'])).stdout).deployment.current).toBe('build-a');

    // Build B: a compatible next release (a new workflow type), started beside A. It joins; it does not take over.
    workerBConnection = await connectWorker({ address: server.address, namespace: 'default', connectionOptions: {} });
    workersB = await startStudyflowWorkers({
      connection: workerBConnection,
      namespace: 'default',
      activities: createWorkerActivities(stack.worker!.env).activities,
      taskQueue,
      workflowBundle: compatibleBundle,
      apiRatePerSecond: 100,
      deployment: { env: { STUDYFLOW_BUILD_ID: 'build-b' }, currentPolicy: 'if-none' },
    });
    expect(workersB.deployment).toMatchObject({ deploymentName: taskQueue, buildId: 'build-b', current: 'build-a', madeCurrent: false });

    const promoted = await cli(['upgrade', 'set-current', '--build-id', 'build-b']);
    expect(promoted.code, promoted.stderr).toBe(0);
    expect(promoted.stdout).toContain('build build-b is current');
    // The running study is still on A: a pinned run does not move under a deploy.
    expect((await versionOf('study/1001/first')).buildId).toBe('build-a');

    // A new study starts on B.
    const second = await cli(['apply', writeStudy(dir, 'second.yaml', study('second'))]);
    expect(second.code, second.stderr).toBe(0);
    expect(await versionOf('study/1001/second')).toMatchObject({ buildId: 'build-b', behavior: 1 });
    expect(await versionOf('study/1001/second/tg/panel')).toMatchObject({ buildId: 'build-b', behavior: 1 });

    // At its next safe point (a watch tick with nothing in flight) the first study and its target group continue as
    // new onto B: a new run, pinned to B.
    const after = await eventually(
      async () => {
        const s = await versionOf('study/1001/first');
        const p = await versionOf('study/1001/first/tg/panel');
        return s.buildId === 'build-b' && p.buildId === 'build-b' ? { study: s, panel: p } : undefined;
      },
      120_000,
      1000,
    );
    expect(after.study.runId).not.toBe(before.study.runId);
    expect(after.panel.runId).not.toBe(before.panel.runId);
    expect(after.study.behavior).toBe(1);

    // The old runs ended in a continue-as-new, and the new runs did not inherit A's pinned version (a continue-as-new
    // without initialVersioningBehavior AUTO_UPGRADE would have: the server pins the next run where the last one was).
    for (const [workflowId, runId, next] of [
      ['study/1001/first', before.study.runId, after.study.runId],
      ['study/1001/first/tg/panel', before.panel.runId, after.panel.runId],
    ]) {
      const events = (await client.workflow.getHandle(workflowId, runId).fetchHistory()).events ?? [];
      expect(events.at(-1)?.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId, workflowId).toBe(next);
      const started = (await client.workflow.getHandle(workflowId, next).fetchHistory()).events?.[0]?.workflowExecutionStartedEventAttributes;
      expect(started?.continuedExecutionRunId, workflowId).toBe(runId);
      expect(started?.inheritedPinnedVersion ?? undefined, `${workflowId}: no pinned version inherited`).toBeUndefined();
    }
    const failedTasks: string[] = [];
    for await (const wf of client.workflow.list({ query: `TaskQueue = "${taskQueue}"` })) {
      const events = (await client.workflow.getHandle(wf.workflowId, wf.runId).fetchHistory()).events ?? [];
      for (const e of events) if (e.workflowTaskFailedEventAttributes) failedTasks.push(`${wf.workflowId} ${wf.runId}: ${e.workflowTaskFailedEventAttributes.failure?.message ?? ''}`);
    }
    expect(failedTasks).toEqual([]);

    // Status: every study on B, nothing left to drain on A.
    const status = await eventually(async () => {
      const result = await cli(['upgrade', 'status', '--json']);
      const parsed = JSON.parse(result.stdout) as { builds: { buildId: string; workflows: number; studies: string[] }[]; draining: string[]; deployment: { current: string } };
      return parsed.draining.length === 0 ? parsed : undefined;
    }, 30_000);
    expect(status.deployment.current).toBe('build-b');
    expect(status.builds.find((b) => b.buildId === 'build-b')?.studies).toEqual(['1001/first', '1001/second']);
    expect(status.builds.find((b) => b.buildId === 'build-a')?.workflows ?? 0).toBe(0);
  }, 300_000);

  it('upgrade check replays the running studies: an incompatible bundle names each study and exits 3, a compatible one passes', async () => {
    const bad = await cli(['upgrade', 'check', '--from-cluster', '--bundle', bundleFiles.incompatible, '--json']);
    expect(bad.code, bad.stderr).toBe(3);
    const report = JSON.parse(bad.stdout) as { ok: boolean; replayed: unknown[]; failingStudies: { study: string; workflows: { workflowId: string; kind: string }[] }[] };
    expect(report.ok).toBe(false);
    expect(report.replayed).toHaveLength(4);
    expect(report.failingStudies.map((s) => s.study)).toEqual(['1001/first', '1001/second']);
    expect(report.failingStudies.flatMap((s) => s.workflows.map((w) => w.kind))).toEqual(['nondeterminism', 'nondeterminism', 'nondeterminism', 'nondeterminism']);

    const good = await cli(['upgrade', 'check', '--bundle', bundleFiles.compatible]);
    expect(good.code, good.stderr).toBe(0);
    expect(good.stdout).toContain('replayed 4 running workflow(s)');
    expect(good.stdout).toContain('every running study replays on the new bundle');

    // The same from history files (the committed replay histories): the incompatible bundle fails them.
    const files = await cli(['upgrade', 'check', '--histories', path.resolve(import.meta.dirname, '../replay/histories'), '--bundle', bundleFiles.incompatible]);
    expect(files.code).toBe(3);
    expect(files.stdout).toMatch(/FAIL study 1001\//);
  }, 300_000);
});
