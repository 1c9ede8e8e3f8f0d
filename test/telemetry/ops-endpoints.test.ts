// /metrics and /healthz of the worker and the receiver, on 127.0.0.1 and free ports: the exposition parses as
// strict Prometheus text and holds the named metrics; counters move after a real API call (the sandbox) and a
// real webhook delivery; /healthz answers 200 while the connections are up and 503 when one is down.
import { afterEach, describe, expect, it } from 'vitest';
import { createDemandApiClient } from '../../api/http/demand-api-client';
import { startSandbox, type RunningSandbox } from '../../sandbox/index';
import { PROMETHEUS_CONTENT_TYPE, startOpsServer, type RunningOpsServer } from '../../telemetry/ops-server';
import { MetricsRegistry } from '../../telemetry/metrics';
import { createStudyflowMetrics } from '../../telemetry/studyflow-metrics';
import { startReceiverOps } from '../../webhooks/receiver-ops';
import { startWebhookReceiver, type RunningWebhookReceiver } from '../../webhooks/webhook-receiver';
import { apiCallObserver, operationMatcher } from '../../worker/api-call-metrics';
import { startWorkerOps } from '../../worker/worker-ops';
import { sandboxApiConfig } from '../activities/helpers/sandbox-harness';
import { testSandboxOptions } from '../helpers/test-profile';
import { parsePrometheusText, sampleValue } from '../helpers/prometheus-text';
import { SECRET, envelope, post, signedDelivery } from '../webhooks/delivery-fixtures';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

async function get(url: string): Promise<{ status: number; type: string | null; text: string }> {
  const res = await fetch(url);
  return { status: res.status, type: res.headers.get('content-type'), text: await res.text() };
}

/** A Temporal connection whose frontend is up or down as the test says. */
function fakeTemporal() {
  const state = { up: true };
  return {
    state,
    connection: {
      workflowService: {
        getSystemInfo: () => (state.up ? Promise.resolve({}) : Promise.reject(new Error('14 UNAVAILABLE: connection refused'))),
      },
    },
  };
}

describe('the worker /metrics and /healthz', () => {
  it('serves strict Prometheus text with the named metrics; API calls to the sandbox move the counters', async () => {
    const sandbox: RunningSandbox = await startSandbox({ quiet: true, ...testSandboxOptions() });
    closers.push(() => sandbox.close());
    const config = sandboxApiConfig(sandbox);
    const metrics = createStudyflowMetrics();
    const api = createDemandApiClient({ config, onRequestDone: apiCallObserver(metrics, config.profile) });
    const { connection } = fakeTemporal();
    const ops = await startWorkerOps({ metrics, port: 0, connection, workersRunning: () => true });
    closers.push(() => ops.close());
    expect(ops.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);

    const before = await get(`${ops.url}/metrics`);
    expect(before.status).toBe(200);
    expect(before.type).toBe(PROMETHEUS_CONTENT_TYPE);
    const parsedBefore = parsePrometheusText(before.text);
    for (const name of ['studyflow_api_calls_total', 'studyflow_api_retries_total', 'studyflow_target_groups', 'studyflow_guard_trips_total', 'studyflow_notifications_sent_total', 'studyflow_notifications_failed_total']) {
      expect(parsedBefore.types.has(name), name).toBe(true);
    }

    const account = '1001';
    await api.request({ method: 'GET', path: `/v1/demand/accounts/${account}/projects`, apiVersion: '2025-12-18' });
    await api.request({ method: 'GET', path: `/v1/demand/accounts/${account}/projects/no-such-project`, apiVersion: '2025-12-18', acceptStatuses: [404] });
    const operation = operationMatcher(config.profile)('GET', `/v1/demand/accounts/${account}/projects`);
    expect(operation).not.toBe('other');
    const missing = operationMatcher(config.profile)('GET', `/v1/demand/accounts/${account}/projects/no-such-project`);

    const parsed = parsePrometheusText((await get(`${ops.url}/metrics`)).text);
    expect(sampleValue(parsed, 'studyflow_api_calls_total', { operation, status: '200' })).toBe(1);
    expect(sampleValue(parsed, 'studyflow_api_calls_total', { operation: missing, status: '404' })).toBe(1);
    // No path with ids in it ever becomes a label.
    expect(parsed.samples.filter((s) => s.name === 'studyflow_api_calls_total').every((s) => !s.labels.operation.includes('/'))).toBe(true);
  });

  it('/healthz is 200 with JSON while Temporal answers and the workers run, 503 naming what is down otherwise', async () => {
    const temporal = fakeTemporal();
    let running = true;
    const ops = await startWorkerOps({ metrics: createStudyflowMetrics(), port: 0, connection: temporal.connection, workersRunning: () => running });
    closers.push(() => ops.close());
    const up = await get(`${ops.url}/healthz`);
    expect(up.status).toBe(200);
    expect(up.type).toBe('application/json');
    expect(JSON.parse(up.text)).toEqual({ status: 'ok', checks: { temporal: { ok: true }, workers: { ok: true, detail: 'polling' } } });

    temporal.state.up = false;
    const down = await get(`${ops.url}/healthz`);
    expect(down.status).toBe(503);
    expect(JSON.parse(down.text)).toMatchObject({ status: 'unavailable', checks: { temporal: { ok: false, detail: expect.stringContaining('UNAVAILABLE') }, workers: { ok: true } } });

    temporal.state.up = true;
    running = false;
    const stopped = await get(`${ops.url}/healthz`);
    expect(stopped.status).toBe(503);
    expect(JSON.parse(stopped.text)).toMatchObject({ checks: { workers: { ok: false, detail: 'the workers have stopped' } } });
  });

  it('a check that does not answer in time counts as down; other paths and methods are refused', async () => {
    const ops: RunningOpsServer = await startOpsServer({
      registry: new MetricsRegistry(),
      port: 0,
      checkTimeoutMs: 50,
      checks: { hangs: () => new Promise(() => undefined) },
    });
    closers.push(() => ops.close());
    const res = await get(`${ops.url}/healthz`);
    expect(res.status).toBe(503);
    expect(JSON.parse(res.text)).toEqual({ status: 'unavailable', checks: { hangs: { ok: false, detail: 'no answer within 50 ms' } } });
    expect((await get(`${ops.url}/`)).status).toBe(404);
    expect((await fetch(`${ops.url}/metrics`, { method: 'POST' })).status).toBe(405);
  });

  it('appends the SDK exporter when it answers, and still serves its own metrics when it does not', async () => {
    const registry = new MetricsRegistry();
    registry.counter('studyflow_demo_total', 'Demo.').inc();
    let sdkUp = true;
    const ops = await startOpsServer({
      registry,
      port: 0,
      checks: {},
      extraMetrics: () => (sdkUp ? Promise.resolve('# HELP temporal_demo Demo.\n# TYPE temporal_demo counter\ntemporal_demo{service_name="temporal-core-sdk"} 4') : Promise.reject(new Error('refused'))),
    });
    closers.push(() => ops.close());
    const withSdk = parsePrometheusText((await get(`${ops.url}/metrics`)).text);
    expect(sampleValue(withSdk, 'temporal_demo', { service_name: 'temporal-core-sdk' })).toBe(4);
    expect(sampleValue(withSdk, 'studyflow_demo_total')).toBe(1);
    sdkUp = false;
    const without = await get(`${ops.url}/metrics`);
    expect(without.status).toBe(200);
    expect(sampleValue(parsePrometheusText(without.text), 'studyflow_demo_total')).toBe(1);
  });

  it('a port in use is a named error, not a crash', async () => {
    const first = await startOpsServer({ registry: new MetricsRegistry(), port: 0, checks: {} });
    closers.push(() => first.close());
    await expect(startOpsServer({ registry: new MetricsRegistry(), port: first.port, checks: {} })).rejects.toMatchObject({
      name: 'OpsServerStartError',
      message: expect.stringContaining('EADDRINUSE'),
    });
  });
});

describe('the receiver /metrics and /healthz', () => {
  it('counts deliveries as they come, and reports 503 when Temporal is down or the receiver is closing', async () => {
    const routed: string[] = [];
    const receiver: RunningWebhookReceiver = await startWebhookReceiver({
      secrets: () => [SECRET],
      onEvent: async (_event, raw) => {
        routed.push(raw.id);
        await Promise.resolve();
      },
    });
    closers.push(() => receiver.close());
    const router = { counts: { routed: 0, duplicates: 0, unmanaged: 0, withoutTargetGroup: 0 } };
    const temporal = fakeTemporal();
    let accepting = true;
    const ops = await startReceiverOps({ ingress: { receiver, router } as never, connection: temporal.connection, accepting: () => accepting, port: 0 });
    closers.push(() => ops.close());

    const before = parsePrometheusText((await get(`${ops.url}/metrics`)).text);
    expect(sampleValue(before, 'studyflow_webhook_events_accepted_total')).toBe(0);
    expect(sampleValue(before, 'studyflow_webhook_rejected_total', { reason: 'bad_signature' })).toBe(0);

    const event = envelope('target-group-updated', { target_group_id: 'tg-77', changes: [] });
    expect((await post(receiver.url, signedDelivery(event))).status).toBe(202);
    expect((await post(receiver.url, signedDelivery(event))).status).toBe(200);
    expect((await post(receiver.url, signedDelivery(event, { tamper: (json) => json.replace('tg-77', 'tg-78') }))).status).toBe(401);
    router.counts.routed = 1;

    const after = parsePrometheusText((await get(`${ops.url}/metrics`)).text);
    expect(sampleValue(after, 'studyflow_webhook_requests_total')).toBe(3);
    expect(sampleValue(after, 'studyflow_webhook_events_accepted_total')).toBe(1);
    expect(sampleValue(after, 'studyflow_webhook_duplicates_total')).toBe(1);
    expect(sampleValue(after, 'studyflow_webhook_rejected_total', { reason: 'bad_signature' })).toBe(1);
    expect(sampleValue(after, 'studyflow_webhook_routed_total', { outcome: 'routed' })).toBe(1);

    expect((await get(`${ops.url}/healthz`)).status).toBe(200);
    temporal.state.up = false;
    expect((await get(`${ops.url}/healthz`)).status).toBe(503);
    temporal.state.up = true;
    accepting = false;
    const closing = await get(`${ops.url}/healthz`);
    expect(closing.status).toBe(503);
    expect(JSON.parse(closing.text)).toMatchObject({ checks: { receiver: { ok: false, detail: 'shutting down' }, temporal: { ok: true } } });
  });
});
