// Notifications and target groups by phase on the embedded stack (real Temporal, the sandbox) with `studyflow
// worker` as its own process (the compiled bin: run `node scripts/build.mjs` first), started with
// --metrics-port (STUDYFLOW_METRICS_PORT=0) and the URL of a local receiver in the variable the study's
// `notify:` block names. A target group the gate refuses and one the sandbox's fielding simulation completes:
// each event reaches the receiver exactly once, /metrics counts each target group in its phase, and no
// history holds the URL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestStack } from '../fixtures/stack';
import { parsePrometheusText } from '../helpers/prometheus-text';
import { quickLaunchFields } from '../helpers/study-yaml';
import { startLocalWebhook, type LocalWebhook, type ReceivedNotification } from '../notify/local-webhook';
import { targetGroupWorkflowId } from '../../workflows/messages';
import { eventually, writeStudy } from './harness';

const END = new Date(Date.now() + 86_400_000).toISOString().replace(/\.\d{3}Z$/, 'Z');

const STUDY = `format: studyflow/v1
study: notify-e2e
account: "1001"
business_unit: "2001"
project:
  name: Notifications end to end
notify:
  - url: \${NOTIFY_E2E_HOOK}
    events: [gate_blocked, target_group_completed]
defaults:
${quickLaunchFields('  ')}
target_groups:
  rare:
    locale: en_US
    live_url: https://survey.example.com/s/rare?rid=[%RID%]
    expected_incidence_rate: 0.02
    expected_length_of_interview_minutes: 45
    filling_goal: 9000
    launch: { mode: auto, require_feasible: true }
  us:
    locale: en_US
    live_url: https://survey.example.com/s/us?rid=[%RID%]
    filling_goal: 5
    end_fielding_at: ${END}
`;

const kindOf = (r: ReceivedNotification) => (r.body as { blocks: { type: string; elements?: { text: string }[] }[] }).blocks.find((b) => b.type === 'context')?.elements?.[0].text.split(' · ')[1];
const targetGroupOf = (r: ReceivedNotification) => /^\*notify-e2e \/ ([a-z_]+)\*/.exec((r.body as { blocks: { type: string; text?: { text: string } }[] }).blocks[1].text?.text ?? '')?.[1];

describe('notifications and target groups by phase, with a worker process', () => {
  const t = useTestStack('notify-e2e', { inProcessWorker: false });
  let hook: LocalWebhook;
  let metricsUrl: string;
  let stderr = '';

  beforeAll(async () => {
    // Arrivals slowed down, so the goal is not reached by the watch's reads while the first test looks: the
    // second completes the run by moving the simulation past end_fielding_at.
    const slow = await fetch(`${t.stack.sandbox.baseUrl}/_sandbox/fielding/settings`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ speed: 0.001 }) });
    expect(slow.status).toBe(200);
    hook = await startLocalWebhook([200]);
    t.spawnWorker({
      env: { NOTIFY_E2E_HOOK: hook.url, STUDYFLOW_METRICS_PORT: '0', STUDYFLOW_METRICS_PHASES_INTERVAL_MS: '1000' },
      onStderr: (text) => (stderr += text),
    });
    metricsUrl = await eventually(async () => /metrics on (http:\/\/127\.0\.0\.1:\d+\/metrics)/.exec(stderr)?.[1], 60_000, 100);
  });
  afterAll(async () => hook?.close());

  /** studyflow_target_groups by phase, as the worker's /metrics serves it now. */
  async function phases(): Promise<Record<string, number>> {
    const text = await (await fetch(metricsUrl)).text();
    return Object.fromEntries(parsePrometheusText(text).samples.filter((s) => s.name === 'studyflow_target_groups').map((s) => [s.labels.phase, s.value]));
  }

  it('a gate refusal reaches the receiver once, and /metrics counts the target groups in their phases', async () => {
    const file = writeStudy(t.dir, 'notify-e2e.yaml', STUDY);
    const applied = await t.cli(['apply', file, '--timeout', '120'], { STUDYFLOW_WATCH_INTERVAL_MS: '1000' });
    // The gate holds `rare`: a change not made, exit 4 (docs/cli.md).
    expect(applied.code, applied.stdout + applied.stderr).toBe(4);
    expect(applied.stdout).toMatch(/rare\s+gate_blocked/);
    expect(applied.stdout).toMatch(/us\s+live/);

    await eventually(async () => (hook.received.length >= 1 ? true : undefined), 60_000, 100);
    expect(hook.received.map((r) => [kindOf(r), targetGroupOf(r)])).toEqual([['gate_blocked', 'rare']]);
    // Counted by phase in Temporal's visibility, through the worker's endpoint (recounted at most every second).
    const counted = await eventually(async () => {
      const p = await phases();
      return p.gate_blocked === 1 && p.live === 1 ? p : undefined;
    }, 60_000, 500);
    expect(counted).toMatchObject({ gate_blocked: 1, live: 1, completed: 0, failed: 0 });
  });

  it('a completion reaches the receiver once, before the workflow ends; nothing else is sent, and no history holds the URL', async () => {
    // Past end_fielding_at in the simulation: the sandbox completes the run, the next watch tick sees it.
    const res = await fetch(`${t.stack.sandbox.baseUrl}/_sandbox/fielding/advance`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ minutes: 2 * 1440 }) });
    expect(res.status).toBeLessThan(300);
    const result = await t.client.workflow.getHandle(targetGroupWorkflowId('1001', 'notify-e2e', 'us')).result();
    expect(result.phase).toBe('completed');
    // The workflow awaited its notification before it returned.
    expect(hook.received.map((r) => [kindOf(r), targetGroupOf(r)])).toEqual([
      ['gate_blocked', 'rare'],
      ['target_group_completed', 'us'],
    ]);
    const counted = await eventually(async () => {
      const p = await phases();
      return p.live === 0 && p.gate_blocked === 1 ? p : undefined;
    }, 60_000, 500);
    expect(counted.live).toBe(0);
    // Nothing more comes (the blocked one waits for a revision; the completed one ended), and each had a key of its own.
    await new Promise((r) => setTimeout(r, 3_000));
    expect(hook.received).toHaveLength(2);
    expect(new Set(hook.received.map((r) => r.headers['idempotency-key'])).size).toBe(2);
    const metrics = parsePrometheusText(await (await fetch(metricsUrl)).text()).samples.filter((s) => s.name === 'studyflow_notifications_sent_total');
    expect(Object.fromEntries(metrics.map((s) => [s.labels.event, s.value]))).toEqual({ gate_blocked: 1, target_group_completed: 1 });
    await t.scanHistories([hook.url, new URL(hook.url).pathname]);
  });
});
