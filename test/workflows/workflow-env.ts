// The workflow unit tests' stack: a Temporal dev server of the file's own (continue-as-new suggested after a
// short history, so every test also crosses continue-as-new), a TestWorkflowEnvironment on it, and studyflow's
// workers whose API activities are the current FakeApi's (fake-api.ts), looked up at each call so a test can
// swap the fake; the workflows a test started are terminated after it. Also the desired study those tests apply, with a
// revision of its own each time.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { submitRevision } from '../../client/study-runs';
import { DEV_SERVER_DYNAMIC_CONFIG, startTemporalDevServer, type RunningDevServer } from '../../dev/temporal-dev-server';
import type { DesiredStudy, DesiredTargetGroup } from '../../plan/types';
import { startStudyflowWorkers, type RunningWorkers } from '../../worker/studyflow-worker';
import { statusQuery, studyWorkflowId, type StudyStatus } from '../../workflows/messages';
import type { FakeApi } from './fake-api';

export interface WorkflowUnitOptions {
  /** The workers' task queue (and the temporary directory's name). */
  taskQueue: string;
  /** History length after which the server suggests continue-as-new. */
  continueAsNewAfter: number;
  /** The fake the API activities call now. */
  fake: () => FakeApi;
  /** Activities besides the fake's (e.g. the notification activity), built once the stack starts. */
  activities?: () => Record<string, (...args: never[]) => Promise<unknown>>;
}

export interface WorkflowUnitStack {
  readonly env: TestWorkflowEnvironment;
  /** Submits a revision of the study (the client's path) to this stack's task queue. */
  apply(desired: DesiredStudy): ReturnType<typeof submitRevision>;
  /** The study workflow's status query. */
  status(studyId: string): Promise<StudyStatus>;
  /** Polls the study's status until `done` holds (the workflows answer within seconds; 60 s at most). */
  until(studyId: string, done: (s: StudyStatus) => boolean, what: string): Promise<StudyStatus>;
}

/** Starts the stack before the file's tests and stops it after them; `env` is there once they run. */
export function useWorkflowUnitStack(options: WorkflowUnitOptions): WorkflowUnitStack {
  let dir: string | undefined;
  let server: RunningDevServer | undefined;
  let env: TestWorkflowEnvironment | undefined;
  let workers: RunningWorkers | undefined;
  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), `studyflow-${options.taskQueue}-`));
    server = await startTemporalDevServer({
      dbFile: path.join(dir, 'temporal.sqlite'),
      uiPort: false,
      stopWithParent: true,
      dynamicConfig: { ...DEV_SERVER_DYNAMIC_CONFIG, 'limit.historyCount.suggestContinueAsNew': options.continueAsNewAfter },
    });
    env = await TestWorkflowEnvironment.createFromExistingServer({ address: server.address });
    const names = Object.keys(options.fake().activities) as Array<keyof FakeApi['activities']>;
    const api = Object.fromEntries(names.map((name) => [name, (...args: unknown[]) => (options.fake().activities[name] as (...a: unknown[]) => Promise<unknown>)(...args)]));
    const activities = { ...api, ...(options.activities?.() ?? {}) };
    workers = await startStudyflowWorkers({ connection: env.nativeConnection, namespace: 'default', activities, taskQueue: options.taskQueue, apiRatePerSecond: 1000 });
  }, 180_000);
  // Each test's workflows end with it: a study left watching (some tests watch every 300 ms) would otherwise read the
  // next tests' fake, record calls in it and load the server under them.
  afterEach(async () => {
    if (!env) return;
    const client = env.client;
    const running: string[] = [];
    for await (const execution of client.workflow.list({ query: 'ExecutionStatus="Running"' })) running.push(execution.workflowId);
    await Promise.all(running.map((id) => client.workflow.getHandle(id).terminate('the test ended').catch(() => undefined)));
  });
  afterAll(async () => {
    await workers?.shutdown();
    await env?.teardown();
    await server?.stop();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });
  const started = (): TestWorkflowEnvironment => {
    if (!env) throw new Error('the workflow unit stack is not started yet (use it inside a test)');
    return env;
  };
  const status = (studyId: string) => started().client.workflow.getHandle(studyWorkflowId('1001', studyId)).query(statusQuery);
  return {
    get env() {
      return started();
    },
    apply: (desired) => submitRevision(started().client, desired, { taskQueue: options.taskQueue }),
    status,
    async until(studyId, done, what) {
      const deadline = Date.now() + 60_000;
      for (;;) {
        const s = await status(studyId).catch(() => undefined);
        if (s && done(s)) return s;
        if (Date.now() > deadline) throw new Error(`study ${studyId} never got ${what}: ${JSON.stringify(s, null, 1)}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    },
  };
}

/** The study applied `revision` and settled: converged, partially failed or failed. */
export const settled = (revision: string) => (s: StudyStatus) => s.appliedRevision === revision && ['converged', 'partially_failed', 'failed'].includes(s.phase);

export interface DesiredStudyMaker {
  (studyId: string, targetGroups: DesiredTargetGroup[], patch?: Partial<DesiredStudy>): DesiredStudy;
  /** A new revision name, for a study re-applied as it is. */
  nextRevision(): string;
}

/** A desired study of account 1001 as the planner makes it, with a new revision (`<prefix><n>`) each call. */
export function desiredStudyMaker(prefix: string): DesiredStudyMaker {
  let revisions = 0;
  const nextRevision = () => `${prefix}${++revisions}`;
  const make = (studyId: string, targetGroups: DesiredTargetGroup[], patch: Partial<DesiredStudy> = {}): DesiredStudy => ({
    studyId,
    accountId: '1001',
    businessUnitId: '2001',
    apiVersion: '2025-12-18',
    revision: nextRevision(),
    project: { name: studyId, project_manager_id: '6f1c2a4e-3001-4c8e-9d2b-000000003001', project_customer_reference_number: `PO-${studyId}` },
    targetGroups,
    exclusionGroups: [],
    webhooks: [],
    ...patch,
  });
  return Object.assign(make, { nextRevision });
}
