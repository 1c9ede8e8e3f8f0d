// sendNotification against a local receiver: the Slack incoming-webhook JSON for every event, retries on 500
// then success (as Temporal's retry policy runs them), one delivery per dedupe key, an unset variable as a
// named non-retryable failure, and the URL (the secret) never followed elsewhere nor shown.
import { ApplicationFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { notifyActivities, type SendNotificationInput } from '../../activities/notify';
import { HEADER_MAX, SECTION_MAX, slackMessage, type SlackMessage } from '../../notify/slack-message';
import { NOTIFY_EVENTS, type NotificationEvent, type NotifyEventKind } from '../../shared/notify-events';
import { createStudyflowMetrics } from '../../telemetry/studyflow-metrics';
import { runWithRetries } from '../activities/helpers/retry-like-temporal';
import { startLocalWebhook, type LocalWebhook } from './local-webhook';

const at = '2026-11-25T18:00:00.000Z';
const EVENTS: { [K in NotifyEventKind]: Extract<NotificationEvent, { kind: K }> } = {
  gate_blocked: { kind: 'gate_blocked', studyId: 'acme-tracker', targetGroup: 'us_gen_pop', at, gate: 'feasibility', reason: 'feasible 310 of 500 completes' },
  guard_tripped: { kind: 'guard_tripped', studyId: 'acme-tracker', targetGroup: 'us_gen_pop', at, guard: 'incidence_below', reading: 'incidence 4% after 200 entrants', threshold: 'below 50% of 20%' },
  launch_failed: { kind: 'launch_failed', studyId: 'acme-tracker', targetGroup: 'de_18_34', at, reason: 'live_url refused: <script> & co' },
  drift_found: { kind: 'drift_found', studyId: 'acme-tracker', targetGroup: 'us_gen_pop', at, fields: ['filling_goal', 'cpi'] },
  target_group_completed: { kind: 'target_group_completed', studyId: 'acme-tracker', targetGroup: 'us_gen_pop', at, completes: 500, goal: 500 },
  budget_reached: { kind: 'budget_reached', studyId: 'acme-tracker', at, spent: { amount: 10000, currency: 'USD' }, budget: { amount: 10000, currency: 'USD' } },
  closeout_deadline: { kind: 'closeout_deadline', studyId: 'acme-tracker', targetGroup: 'us_gen_pop', at, closesAt: '2026-12-26T00:00:00.000Z', daysLeft: 3, toReverse: 120, phase: 'awaiting_approval' },
  soft_launch_decided: {
    kind: 'soft_launch_decided',
    studyId: 'acme-tracker',
    targetGroup: 'us_gen_pop',
    at,
    outcome: 'fail',
    action: 'paused',
    completes: 50,
    evidence: ['incidence 0.12 after 50 completes is below 0.24 (of the expected 0.4): fail'],
  },
};

/** Slack's rules for an incoming webhook's JSON that studyflow's messages use: text required; blocks of known kinds within their limits. */
function expectSlackIncomingWebhookJson(body: unknown): asserts body is SlackMessage {
  expect(body).toBeTypeOf('object');
  const message = body as Record<string, unknown>;
  expect(typeof message.text === 'string' && message.text.length > 0, 'text is required').toBe(true);
  expect(Object.keys(message).sort()).toEqual(['blocks', 'text']);
  const blocks = message.blocks as Record<string, any>[];
  expect(Array.isArray(blocks) && blocks.length >= 1 && blocks.length <= 50).toBe(true);
  for (const block of blocks) {
    if (block.type === 'header') {
      expect(block.text.type).toBe('plain_text');
      expect(block.text.text.length).toBeGreaterThan(0);
      expect(block.text.text.length).toBeLessThanOrEqual(HEADER_MAX);
    } else if (block.type === 'section') {
      expect(block.text.type).toBe('mrkdwn');
      expect(block.text.text.length).toBeGreaterThan(0);
      expect(block.text.text.length).toBeLessThanOrEqual(SECTION_MAX);
    } else if (block.type === 'context') {
      expect(block.elements.length).toBeGreaterThan(0);
      expect(block.elements.length).toBeLessThanOrEqual(10);
      for (const element of block.elements) expect(element.type).toBe('mrkdwn');
    } else {
      throw new Error(`unexpected block type ${String(block.type)}`);
    }
  }
}

const hooks: LocalWebhook[] = [];
afterEach(async () => {
  await Promise.all(hooks.splice(0).map((h) => h.close()));
});
async function hook(...args: Parameters<typeof startLocalWebhook>): Promise<LocalWebhook> {
  const h = await startLocalWebhook(...args);
  hooks.push(h);
  return h;
}

const POLICY = { maximumAttempts: 5, initialIntervalMs: 5, backoffCoefficient: 2, maximumIntervalMs: 20 };
const input = (event: NotificationEvent, dedupeKey = `wf-1:${event.kind}:1:SLACK_WEBHOOK_URL`): SendNotificationInput => ({ envName: 'SLACK_WEBHOOK_URL', event, dedupeKey });

describe('the message', () => {
  it.each(NOTIFY_EVENTS)('%s becomes valid incoming-webhook JSON with the event in its text', (kind) => {
    const message = slackMessage(EVENTS[kind]);
    expectSlackIncomingWebhookJson(message);
    expect(message.text).toContain('acme-tracker');
    expect(message.blocks[2]).toMatchObject({ type: 'context', elements: [{ text: expect.stringContaining(kind) }] });
  });

  it('says the target group was paused only when the guard pauses', () => {
    expect(slackMessage({ ...EVENTS.guard_tripped, action: 'pause' }).text).toMatch(/^Guard tripped: target group paused: acme-tracker/);
    const notifyOnly = slackMessage({ ...EVENTS.guard_tripped, action: 'notify' });
    expect(notifyOnly.text).toMatch(/^Guard tripped: acme-tracker/);
    expect(notifyOnly.text).not.toContain('paused');
  });

  it('escapes mrkdwn control characters, so an event reason cannot mention or link', () => {
    const message = slackMessage({ ...EVENTS.launch_failed, reason: '<!channel> see <https://evil.example|here> & more' });
    const section = (message.blocks[1] as { text: { text: string } }).text.text;
    expect(section).toContain('&lt;!channel&gt; see &lt;https://evil.example|here&gt; &amp; more');
    expect(section).not.toMatch(/<[!h@]/);
  });

  it('clips a long section to Slack\'s limit', () => {
    const message = slackMessage({ ...EVENTS.drift_found, fields: Array.from({ length: 800 }, (_, i) => `field_${i}`) });
    expectSlackIncomingWebhookJson(message);
  });
});

describe('sendNotification', () => {
  it('posts the message with the dedupe key, and counts it sent', async () => {
    const receiver = await hook([200]);
    const metrics = createStudyflowMetrics();
    const { sendNotification } = notifyActivities({ notifications: { env: { SLACK_WEBHOOK_URL: receiver.url }, metrics } });
    await expect(sendNotification(input(EVENTS.guard_tripped))).resolves.toEqual({ delivered: true, status: 200 });
    expect(receiver.received).toHaveLength(1);
    const [got] = receiver.received;
    expect(got.path).toBe('/services/T000/B000/secret-token');
    expect(got.headers['content-type']).toMatch(/^application\/json/);
    expect(got.headers['idempotency-key']).toBe('wf-1:guard_tripped:1:SLACK_WEBHOOK_URL');
    expectSlackIncomingWebhookJson(got.body);
    // The token in the URL travels only as the request's path, never in the body.
    expect(JSON.stringify(got.body)).not.toContain('secret-token');
    expect(metrics.notificationsSent.value({ event: 'guard_tripped' })).toBe(1);
  });

  it('retries a 500 and succeeds, with the same key on every attempt', async () => {
    const receiver = await hook([500, 500, 200]);
    const metrics = createStudyflowMetrics();
    const { sendNotification } = notifyActivities({ notifications: { env: { SLACK_WEBHOOK_URL: receiver.url }, metrics } });
    const run = await runWithRetries(() => sendNotification(input(EVENTS.gate_blocked)), POLICY);
    expect(run.attempts).toBe(3);
    expect(run.result).toEqual({ delivered: true, status: 200 });
    expect(run.failures.map((f) => (f as ApplicationFailure).type)).toEqual(['NotificationDeliveryFailed', 'NotificationDeliveryFailed']);
    expect(new Set(receiver.received.map((r) => r.headers['idempotency-key']))).toEqual(new Set(['wf-1:gate_blocked:1:SLACK_WEBHOOK_URL']));
    expect(metrics.notificationsFailed.value({ event: 'gate_blocked', reason: 'server_error' })).toBe(2);
    expect(metrics.notificationsSent.value({ event: 'gate_blocked' })).toBe(1);
  });

  it('delivers a key once: a repeat in this worker, or an attempt whose earlier attempt recorded it, sends nothing', async () => {
    const receiver = await hook([200]);
    const metrics = createStudyflowMetrics();
    const { sendNotification } = notifyActivities({ notifications: { env: { SLACK_WEBHOOK_URL: receiver.url }, metrics } });
    await sendNotification(input(EVENTS.target_group_completed, 'k-1'));
    await expect(sendNotification(input(EVENTS.target_group_completed, 'k-1'))).resolves.toEqual({ delivered: false });
    expect(receiver.received).toHaveLength(1);
    expect(metrics.notificationsDeduplicated.value({ event: 'target_group_completed' })).toBe(1);

    // Another worker (its own memory) running a later attempt of the same activity: the heartbeat details of
    // the attempt that delivered travel with the retry.
    const otherWorker = notifyActivities({ notifications: { env: { SLACK_WEBHOOK_URL: receiver.url } } });
    const retry = new MockActivityEnvironment({ attempt: 2, heartbeatDetails: { delivered: 'k-2' } });
    await expect(retry.run(otherWorker.sendNotification, input(EVENTS.target_group_completed, 'k-2'))).resolves.toEqual({ delivered: false });
    expect(receiver.received).toHaveLength(1);

    // The attempt that delivers records the key in its heartbeat details.
    const first = new MockActivityEnvironment({ attempt: 1 });
    const beats: unknown[] = [];
    first.on('heartbeat', (details: unknown) => beats.push(details));
    await first.run(otherWorker.sendNotification, input(EVENTS.target_group_completed, 'k-3'));
    expect(beats).toContainEqual({ delivered: 'k-3' });
    expect(receiver.received).toHaveLength(2);
  });

  it('an unset variable is a named, non-retryable failure that names the variable and sends nothing', async () => {
    const metrics = createStudyflowMetrics();
    const { sendNotification } = notifyActivities({ notifications: { env: {}, metrics } });
    const error = await sendNotification(input(EVENTS.budget_reached)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApplicationFailure);
    expect(error).toMatchObject({ type: 'NotificationTargetUnset', nonRetryable: true, message: expect.stringContaining('SLACK_WEBHOOK_URL is not set on this worker') });
    expect(metrics.notificationsFailed.value({ event: 'budget_reached', reason: 'target_unset' })).toBe(1);
  });

  it('does not follow a redirect (the URL is the secret), and refuses what would fail again', async () => {
    const elsewhere = await hook([200]);
    const redirecting = await hook([302], { headers: () => ({ location: elsewhere.url }) });
    const { sendNotification } = notifyActivities({ notifications: { env: { SLACK_WEBHOOK_URL: redirecting.url } } });
    const error = (await sendNotification(input(EVENTS.drift_found)).catch((e: unknown) => e)) as ApplicationFailure;
    expect(error).toMatchObject({ type: 'NotificationUndeliverable', nonRetryable: true, message: expect.stringContaining('302') });
    expect(error.message).not.toContain('secret-token');
    expect(redirecting.received).toHaveLength(1);
    expect(elsewhere.received).toHaveLength(0);

    const gone = await hook([404]);
    const refused = (await notifyActivities({ notifications: { env: { SLACK_WEBHOOK_URL: gone.url } } })
      .sendNotification(input(EVENTS.drift_found))
      .catch((e: unknown) => e)) as ApplicationFailure;
    expect(refused).toMatchObject({ type: 'NotificationUndeliverable', nonRetryable: true });

    for (const url of ['http://hooks.example.com/services/T/B/secret-token', 'ftp://127.0.0.1/x', 'not a url']) {
      const bad = (await notifyActivities({ notifications: { env: { SLACK_WEBHOOK_URL: url } } })
        .sendNotification(input(EVENTS.drift_found))
        .catch((e: unknown) => e)) as ApplicationFailure;
      expect(bad, url).toMatchObject({ type: 'NotificationUndeliverable', nonRetryable: true, message: expect.stringContaining('SLACK_WEBHOOK_URL') });
      expect(bad.message).not.toContain('secret-token');
    }
  });

  it('a receiver that does not answer is a retryable failure, bounded by the timeout', async () => {
    const http = await import('node:http');
    const silent = http.createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', () => resolve()));
    const port = (silent.address() as { port: number }).port;
    try {
      const { sendNotification } = notifyActivities({ notifications: { env: { SLACK_WEBHOOK_URL: `http://127.0.0.1:${port}/hook` }, timeoutMs: 200 } });
      const error = await sendNotification(input(EVENTS.drift_found)).catch((e: unknown) => e);
      expect(error).toMatchObject({ type: 'NotificationDeliveryFailed', nonRetryable: false, message: expect.stringContaining('did not answer in time') });
    } finally {
      silent.closeAllConnections();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  });

  it('refuses bad input by name', async () => {
    const { sendNotification } = notifyActivities({ notifications: { env: {} } });
    await expect(sendNotification({ envName: 'not a name', event: EVENTS.drift_found, dedupeKey: 'k' })).rejects.toMatchObject({ type: 'invalid_activity_input', nonRetryable: true });
    await expect(sendNotification({ envName: 'X', event: { ...EVENTS.drift_found, kind: 'nope' } as never, dedupeKey: 'k' })).rejects.toThrow(/event.kind/);
    await expect(sendNotification({ envName: 'X', event: EVENTS.drift_found, dedupeKey: '' })).rejects.toThrow(/dedupeKey/);
  });
});
