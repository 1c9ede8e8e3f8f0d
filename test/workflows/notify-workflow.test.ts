// workflows/notify.ts on a real Temporal dev server with the real sendNotification activity and local
// receivers: a notification whose receiver always fails never fails the workflow; retries through
// Temporal's policy reach a receiver that recovers; only the variable's NAME is in the history.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { notifyActivities } from '../../activities/notify';
import { startTemporalDevServer, type RunningDevServer } from '../../dev/temporal-dev-server';
import type { NotificationEvent } from '../../shared/notify-events';
import { startStudyflowWorkers, type RunningWorkers } from '../../worker/studyflow-worker';
import { startLocalWebhook, type LocalWebhook } from '../notify/local-webhook';
import type { NotifyProbeInput, notifyProbe } from './fixtures/notify-workflows';

const TASK_QUEUE = 'notify-unit';
let dir: string;
let server: RunningDevServer;
let env: TestWorkflowEnvironment;
let workers: RunningWorkers;
const workerEnv: Record<string, string | undefined> = {};
const hooks: LocalWebhook[] = [];

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'studyflow-notify-wf-'));
  server = await startTemporalDevServer({ dbFile: path.join(dir, 'temporal.sqlite'), uiPort: false, stopWithParent: true });
  env = await TestWorkflowEnvironment.createFromExistingServer({ address: server.address });
  const workflowBundle = await bundleWorkflowCode({ workflowsPath: path.join(import.meta.dirname, 'fixtures', 'notify-workflows.ts'), logger: quiet });
  workers = await startStudyflowWorkers({
    connection: env.nativeConnection,
    namespace: 'default',
    activities: notifyActivities({ notifications: { env: workerEnv } }),
    workflowBundle,
    taskQueue: TASK_QUEUE,
    apiRatePerSecond: 1000,
  });
}, 180_000);

afterAll(async () => {
  await workers?.shutdown();
  await env?.teardown();
  await server?.stop();
  await Promise.all(hooks.map((h) => h.close()));
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

const quiet = { log: () => undefined, trace: () => undefined, debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };
const event: NotificationEvent = { kind: 'guard_tripped', studyId: 'acme-tracker', targetGroup: 'us_gen_pop', at: '2026-11-25T18:00:00Z', guard: 'incidence_below', reading: '4%', threshold: '10%' };
let runs = 0;

async function receiverIn(envName: string, statuses: number[]): Promise<LocalWebhook> {
  const hook = await startLocalWebhook(statuses);
  hooks.push(hook);
  workerEnv[envName] = hook.url;
  return hook;
}

async function run(input: NotifyProbeInput) {
  const handle = await env.client.workflow.start<typeof notifyProbe>('notifyProbe', { taskQueue: TASK_QUEUE, workflowId: `notify-probe-${++runs}`, args: [input] });
  const result = await handle.result();
  // Payload bytes as text, so that what the history holds can be searched.
  const history = JSON.stringify((await handle.fetchHistory()).events, (key, value: unknown) => {
    if (value instanceof Uint8Array) return Buffer.from(value).toString('utf8');
    return key === 'data' && typeof value === 'string' ? Buffer.from(value, 'base64').toString('utf8') : value;
  });
  const { status } = await handle.describe();
  return { result, history, status: status.name };
}

describe('notify() in a workflow', () => {
  it('a receiver that always fails does not fail the workflow, which goes on and completes', async () => {
    const failing = await receiverIn('HOOK_ALWAYS_500', [500]);
    const { result, status, history } = await run({ targets: [{ envName: 'HOOK_ALWAYS_500', events: ['guard_tripped'] }], event, awaitOutcome: false, workMs: 3_000 });
    expect(status).toBe('COMPLETED');
    expect(result).toEqual({ finished: true });
    // The activity ran and was retried (first attempt at once, the second after 2 s) while the workflow worked.
    expect(failing.received.length).toBeGreaterThanOrEqual(1);
    expect(history).toContain('HOOK_ALWAYS_500');
    expect(history).not.toContain(failing.url);
    expect(history).not.toContain('secret-token');
  });

  it('waiting for a notification that cannot be delivered yields a failed outcome, not a failed workflow', async () => {
    const gone = await receiverIn('HOOK_GONE', [404]);
    const { result, status } = await run({
      targets: [
        { envName: 'HOOK_GONE', events: ['guard_tripped'] },
        { envName: 'HOOK_NOT_SET', events: ['guard_tripped'] },
        { envName: 'HOOK_OTHER_EVENTS', events: ['budget_reached'] },
      ],
      event,
      awaitOutcome: true,
    });
    expect(status).toBe('COMPLETED');
    expect(result.outcomes).toEqual([
      { envName: 'HOOK_GONE', outcome: 'failed', reason: expect.stringContaining('refused the notification (404)') },
      { envName: 'HOOK_NOT_SET', outcome: 'failed', reason: expect.stringContaining('HOOK_NOT_SET is not set on this worker') },
    ]);
    // Non-retryable: one request, no retries.
    expect(gone.received).toHaveLength(1);
  });

  it('Temporal retries a failed send, and the receiver that recovers gets it once per attempt with one key', async () => {
    const flaky = await receiverIn('HOOK_FLAKY', [500, 200]);
    const { result, status } = await run({ targets: [{ envName: 'HOOK_FLAKY', events: ['guard_tripped'] }], event, awaitOutcome: true });
    expect(status).toBe('COMPLETED');
    expect(result.outcomes).toEqual([{ envName: 'HOOK_FLAKY', outcome: 'sent' }]);
    expect(flaky.received).toHaveLength(2);
    expect(new Set(flaky.received.map((r) => r.headers['idempotency-key'])).size).toBe(1);
    expect(flaky.received[0].headers['idempotency-key']).toMatch(/^notify-probe-\d+:[0-9a-f-]{36}:guard_tripped:us_gen_pop:1:HOOK_FLAKY$/);
  });
});
