// The embedded stack's in-process worker (`studyflow dev`'s) is a real worker: it takes its settings from the
// environment it was given, as a `studyflow worker` does. On the suite's Temporal dev server and a sandbox: with
// SLACK_WEBHOOK_URL (a local receiver) in that environment, a study whose guard trips notifies the receiver
// (guard_tripped, the way test/integration/guards.test.ts trips it); its pacing variables reach its API client;
// --metrics-port's endpoint counts the trip; and the webhook receiver, asked for a port that is taken, takes a free
// one when told to fall back, and otherwise fails naming the port.
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startEmbeddedStack, type EmbeddedStack } from '../../dev/embedded-stack';
import { connectClient } from '../../temporal/temporal-connection';
import { parsePrometheusText } from '../helpers/prometheus-text';
import { quickLaunchFields } from '../helpers/study-yaml';
import { testProfile } from '../helpers/test-profile';
import { startLocalWebhook, type LocalWebhook } from '../notify/local-webhook';
import { eventually, runCli, writeStudy } from './harness';
import type { StudyStatus } from '../../workflows/messages';
import { statusQuery, studyWorkflowId } from '../../workflows/messages';

const STUDY = 'dev-guard-notify';

const studyYaml = `format: studyflow/v1
study: ${STUDY}
account: "1001"
business_unit: "2001"
project:
  name: Dev guard notify
  project_customer_reference_number: PO-DEV-GUARD-NOTIFY
notify:
  - url: \${SLACK_WEBHOOK_URL}
    events: [guard_tripped]
defaults:
${quickLaunchFields('  ')}
target_groups:
  us:
    locale: en_US
    live_url: https://survey.example.com/s/dev-guard?rid=[%RID%]
    filling_goal: 3000
    end_fielding_at: 2027-06-01T00:00:00Z
    guards:
      low_incidence: { incidence_below: 0.5, min_entrants: 40 }
`;

/** A port this test holds, so that nothing else can listen on it. */
async function holdPort(): Promise<{ port: number; release(): Promise<void> }> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return { port: (server.address() as net.AddressInfo).port, release: () => new Promise((resolve) => server.close(() => resolve())) };
}

describe("the embedded stack's worker takes its settings from the environment it is given", () => {
  let dir: string;
  let stack: EmbeddedStack;
  let hook: LocalWebhook;
  let held: Awaited<ReturnType<typeof holdPort>>;
  const taskQueue = `test-dev-worker-${Math.random().toString(36).slice(2, 8)}`;
  const temporalAddress = inject('temporalAddress');
  let cliEnv: Record<string, string>;

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'studyflow-dev-worker-'));
    hook = await startLocalWebhook([200]);
    held = await holdPort();
    stack = await startEmbeddedStack({
      stateDir: dir,
      temporalAddress,
      taskQueue,
      sandboxPort: 0,
      apiProfile: testProfile(),
      webhookPort: held.port,
      webhookPortFallback: true,
      metricsPort: 0,
      // As `SLACK_WEBHOOK_URL=… STUDYFLOW_API_REQUESTS_PER_SECOND=… studyflow dev` gives them; not in process.env.
      env: {
        ...process.env,
        SLACK_WEBHOOK_URL: hook.url,
        STUDYFLOW_API_REQUESTS_PER_SECOND: '40',
        STUDYFLOW_API_MAX_CONNECTIONS: '16',
        STUDYFLOW_API_RATE_LIMIT: '30',
        STUDYFLOW_METRICS_PHASES_INTERVAL_MS: '1000',
        // A shell's own API settings do not turn the stack's worker away from its sandbox.
        STUDYFLOW_API_BASE_URL: 'http://127.0.0.1:9/not-the-sandbox',
      },
    });
    cliEnv = { ...stack.env, STUDYFLOW_WATCH_INTERVAL_MS: '1500', NO_COLOR: '1' };
  });
  afterAll(async () => {
    if (stack) {
      const { client, connection } = await connectClient({ address: temporalAddress, namespace: 'default', connectionOptions: {} }, stack.env);
      for await (const wf of client.workflow.list({ query: `TaskQueue = "${taskQueue}" AND ExecutionStatus = "Running"` })) {
        await client.workflow.getHandle(wf.workflowId, wf.runId).terminate('test finished').catch(() => undefined);
      }
      await connection.close();
      await stack.stop();
    }
    await hook?.close();
    await held?.release();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('runs its worker with the pacing, connection limit and rate limit of that environment, and the stack\'s own API', () => {
    expect(stack.worker).toMatchObject({ apiRatePerSecond: 30, apiClient: { requestsPerSecond: 40, maxConnections: 16 } });
    expect(stack.worker!.env.SLACK_WEBHOOK_URL).toBe(hook.url);
    expect(stack.worker!.env.STUDYFLOW_API_BASE_URL).toBe(stack.sandbox.baseUrl);
    expect(process.env.SLACK_WEBHOOK_URL).not.toBe(hook.url);
  });

  it('takes a free port for the webhook receiver when the one asked for is taken', () => {
    expect(stack.webhookPortTaken).toBe(held.port);
    const port = Number(new URL(stack.webhooks!.url).port);
    expect(port).toBeGreaterThan(0);
    expect(port).not.toBe(held.port);
  });

  it('notifies SLACK_WEBHOOK_URL of a guard that trips, and counts the trip on its /metrics', async () => {
    const file = writeStudy(dir, 'study.yaml', studyYaml);
    const applied = await runCli(cliEnv, ['apply', file, '--require-live']);
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);

    const admin = async (method: string, route: string, body: unknown) => {
      const res = await fetch(`${stack.sandbox.baseUrl}/_sandbox${route}`, { method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      expect(res.status, `${method} ${route}: ${await res.clone().text()}`).toBe(200);
    };
    const tg = Object.values(stack.sandbox.state().target_groups).find((x) => x.target_group_customer_reference_number === `${STUDY}_us`)!;
    await admin('PUT', '/fielding/settings', { speed: 1, auto_advance: false });
    await admin('PUT', `/fielding/target-groups/${tg.id}/settings`, { incidence_rate: 0.05 });
    await admin('POST', '/fielding/advance', { minutes: 24 * 60 });

    const { client, connection } = await connectClient({ address: temporalAddress, namespace: 'default', connectionOptions: {} }, stack.env);
    try {
      await eventually(async () => {
        const status: StudyStatus = await client.workflow.getHandle(studyWorkflowId('1001', STUDY)).query(statusQuery);
        return status.targetGroups.us?.guards?.hold ? true : undefined;
      }, 90_000, 500);
    } finally {
      await connection.close();
    }
    const trips = await eventually(async () => {
      const got = hook.received.filter((r) => JSON.stringify(r.body).includes('Guard tripped'));
      return got.length ? got : undefined;
    }, 60_000, 200);
    expect(trips).toHaveLength(1);
    expect(JSON.stringify(trips[0].body)).toContain(STUDY);

    const metrics = parsePrometheusText(await (await fetch(`${stack.metrics!.url}/metrics`)).text()).samples;
    expect(metrics.filter((s) => s.name === 'studyflow_guard_trips_total').map((s) => [s.labels.guard, s.value])).toEqual([['incidence_below', 1]]);
    expect(metrics.filter((s) => s.name === 'studyflow_notifications_sent_total').map((s) => [s.labels.event, s.value])).toEqual([['guard_tripped', 1]]);
    expect(metrics.some((s) => s.name === 'studyflow_api_calls_total' && s.value > 0)).toBe(true);
    const health = await fetch(`${stack.metrics!.url}/healthz`);
    expect(health.status).toBe(200);
  });

  it('fails naming the webhook port when it is taken and no fallback was asked for', async () => {
    const other = fs.mkdtempSync(path.join(os.tmpdir(), 'studyflow-dev-worker-taken-'));
    try {
      await expect(
        startEmbeddedStack({ stateDir: other, temporalAddress, taskQueue: `${taskQueue}-taken`, sandboxPort: 0, apiProfile: testProfile(), webhookPort: held.port }),
      ).rejects.toThrow(`the webhook receiver's port ${held.port} is already in use`);
    } finally {
      fs.rmSync(other, { recursive: true, force: true });
    }
  });
});
