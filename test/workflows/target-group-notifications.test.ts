// The target group's notifications (workflows/target-group/notifications.ts) on a real Temporal dev server:
// the study and target-group workflows with the in-memory API of fake-api.ts, and the real sendNotification
// activity posting to local receivers on 127.0.0.1 (the worker's environment names their URLs). The server
// suggests continue-as-new after a short history, so the watch's notices also cross continue-as-new.
import { afterAll, describe, expect, it } from 'vitest';
import { notifyActivities } from '../../activities/notify';
import type { NotifyEventKind, NotifyTarget } from '../../shared/notify-events';
import type { DesiredTargetGroup } from '../../plan/types';
import { createStudyflowMetrics } from '../../telemetry/studyflow-metrics';
import { targetGroupEventOnceUpdate, targetGroupWorkflowId, webhookEventUpdateId, type StudyStatus } from '../../workflows/messages';
import { startLocalWebhook, type LocalWebhook, type ReceivedNotification } from '../notify/local-webhook';
import { FakeApi, targetGroup } from './fake-api';
import { desiredStudyMaker, settled, useWorkflowUnitStack } from './workflow-env';

const CONTINUE_AS_NEW_AFTER = 60;
const TASK_QUEUE = 'notify-target-groups';

let fake = new FakeApi();
const workerEnv: Record<string, string | undefined> = {};
const metrics = createStudyflowMetrics();
const hooks: LocalWebhook[] = [];
const stack = useWorkflowUnitStack({
  taskQueue: TASK_QUEUE,
  continueAsNewAfter: CONTINUE_AS_NEW_AFTER,
  fake: () => fake,
  activities: () => ({ ...notifyActivities({ notifications: { env: workerEnv, metrics } }) }),
});
afterAll(() => Promise.all(hooks.map((h) => h.close())));
const study = desiredStudyMaker('n');

/** A receiver in a variable of the worker's environment, and the target naming it. */
async function receiver(envName: string, events: NotifyEventKind[], statuses: number[] = [200]): Promise<{ hook: LocalWebhook; target: NotifyTarget }> {
  const hook = await startLocalWebhook(statuses);
  hooks.push(hook);
  workerEnv[envName] = hook.url;
  return { hook, target: { envName, events } };
}

const { apply, status } = stack;

async function eventually<T>(read: () => Promise<T> | T, done: (value: T) => boolean, what: string, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`never ${what}: ${JSON.stringify(value, null, 1)?.slice(0, 2000)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
const untilStudy = (studyId: string, done: (s: StudyStatus) => boolean, what: string) => eventually(() => status(studyId).catch(() => undefined), (s) => s !== undefined && done(s), what) as Promise<StudyStatus>;

const body = (r: ReceivedNotification) => r.body as { text: string; blocks: { type: string; elements?: { text: string }[] }[] };
const keyOf = (r: ReceivedNotification) => String(r.headers['idempotency-key']);
/** The event kind a posted message names (its context line: `studyflow · <kind> · <time>`). */
const kindOf = (r: ReceivedNotification) => body(r).blocks.find((b) => b.type === 'context')?.elements?.[0].text.split(' · ')[1];
const fast = (key: string, patch: Partial<DesiredTargetGroup> = {}) => targetGroup(key, { ...patch, timing: { ...targetGroup(key).timing, watchIntervalMs: 300 } });

describe('a target group tells its notify targets', () => {
  it('gate_blocked: once per refusal; the same refusal again after a new revision is sent again', async () => {
    fake = new FakeApi();
    const { hook, target } = await receiver('HOOK_GATE', ['gate_blocked', 'target_group_completed']);
    // Each call is a new revision of the same file.
    const infeasible = () => study('gate-notify', [targetGroup('g', { draft: { ...targetGroup('g').draft, filling_goal: 900 }, notify: [target] })]);
    const first = infeasible();
    await apply(first);
    expect((await untilStudy('gate-notify', settled(first.revision), 'blocked')).targetGroups.g.phase).toBe('gate_blocked');
    await eventually(() => hook.received.length, (n) => n >= 1, 'the first refusal told');
    expect(kindOf(hook.received[0])).toBe('gate_blocked');
    expect(body(hook.received[0]).text).toMatch(/^Launch gate blocked: gate-notify \/ g \(gate launch; reason .*infeasible/);

    const again = infeasible();
    await apply(again);
    await untilStudy('gate-notify', settled(again.revision), 'blocked again');
    await eventually(() => hook.received.length, (n) => n >= 2, 'the second refusal told');
    expect(fake.callsOf('checkLaunchGatesBatch')).toHaveLength(2);
    // Nothing else comes: one post per refusal, each with a key of its own.
    await new Promise((r) => setTimeout(r, 1_500));
    expect(hook.received.map(kindOf)).toEqual(['gate_blocked', 'gate_blocked']);
    expect(new Set(hook.received.map(keyOf)).size).toBe(2);
    expect(keyOf(hook.received[1])).toMatch(/:gate_blocked:g:n\d+#2:HOOK_GATE$/);
  });

  it('gate_blocked: the live gate that holds a change of a launched target group', async () => {
    fake = new FakeApi();
    const { hook, target } = await receiver('HOOK_LIVE_GATE', ['gate_blocked']);
    const first = study('live-gate-notify', [targetGroup('l', { notify: [target] })]);
    await apply(first);
    await untilStudy('live-gate-notify', settled(first.revision), 'live');
    expect(hook.received).toEqual([]);
    const raised = study('live-gate-notify', [targetGroup('l', { draft: { ...targetGroup('l').draft, filling_goal: 900 }, notify: [target] })]);
    await apply(raised);
    const s = await untilStudy('live-gate-notify', settled(raised.revision), 'the raise held');
    expect(s.targetGroups.l).toMatchObject({ phase: 'live', message: expect.stringMatching(/^change held: infeasible/) });
    await eventually(() => hook.received.length, (n) => n >= 1, 'the held change told');
    expect(body(hook.received[0]).text).toMatch(/^Launch gate blocked: live-gate-notify \/ l \(gate live change; reason infeasible/);
    expect(keyOf(hook.received[0])).toMatch(new RegExp(`:gate_blocked:l:${raised.revision}#1:HOOK_LIVE_GATE$`));
  });

  it('launch_failed: once when the launch fails for good, not for each attempt', async () => {
    fake = new FakeApi();
    fake.failingLaunches.add('x');
    const { hook, target } = await receiver('HOOK_LAUNCH', ['launch_failed', 'gate_blocked']);
    const desired = study('launch-notify', [targetGroup('x', { notify: [target] })]);
    await apply(desired);
    const s = await untilStudy('launch-notify', settled(desired.revision), 'failed');
    expect(s.targetGroups.x).toMatchObject({ phase: 'failed', failure: { type: 'job_failed' } });
    await eventually(() => hook.received.length, (n) => n >= 1, 'the failure told');
    await new Promise((r) => setTimeout(r, 1_500));
    expect(hook.received.map(kindOf)).toEqual(['launch_failed']);
    expect(body(hook.received[0]).text).toMatch(/^Launch failed: launch-notify \/ x \(reason launch job .* failed: injected launch failure\)/);
  });

  it('drift_found: once while the drift stays (across continue-as-new), again once it cleared and came back', async () => {
    fake = new FakeApi();
    const { hook, target } = await receiver('HOOK_DRIFT', ['drift_found']);
    const desired = study('drift-notify', [fast('d', { notify: [target] })]);
    await apply(desired);
    await untilStudy('drift-notify', settled(desired.revision), 'live');
    const child = stack.env.client.workflow.getHandle(targetGroupWorkflowId('1001', 'drift-notify', 'd'));
    const runs = async () => {
      let n = 0;
      for await (const _ of stack.env.client.workflow.list({ query: `WorkflowId = '${child.workflowId}'` })) n += 1;
      return n;
    };

    fake.setField('d', 'name', 'renamed in the exchange');
    await untilStudy('drift-notify', (s) => s.targetGroups.d.drift?.[0]?.field === 'name', 'drift seen');
    await eventually(() => hook.received.length, (n) => n >= 1, 'the drift told');
    // Every target-group-updated event reads the state again and sees the same drift: across continue-as-new, nothing new is sent.
    const runsBefore = await runs();
    const targetGroupId = (await status('drift-notify')).targetGroups.d.targetGroupId;
    let events = 0;
    await eventually(
      async () => {
        const id = `drift-${(events += 1)}`;
        await child.executeUpdate(targetGroupEventOnceUpdate, { args: [{ id, type: 'target-group-updated', time: new Date().toISOString(), targetGroupId }], updateId: webhookEventUpdateId(id) });
        return runs();
      },
      (n) => n >= runsBefore + 1,
      'a continue-as-new while drifting',
    );
    expect(hook.received).toHaveLength(1);
    expect(body(hook.received[0]).text).toMatch(/^Drift found: drift-notify \/ d \(changed outside the file name\)/);

    fake.setField('d', 'name', 'd');
    await untilStudy('drift-notify', (s) => s.targetGroups.d.drift === undefined, 'drift cleared');
    fake.setField('d', 'name', 'renamed again');
    await eventually(() => hook.received.length, (n) => n >= 2, 'the drift found again told');
    await new Promise((r) => setTimeout(r, 1_500));
    expect(hook.received.map(kindOf)).toEqual(['drift_found', 'drift_found']);
    expect(hook.received.map(keyOf)).toEqual([expect.stringMatching(/:drift_found:d:drift#1:HOOK_DRIFT$/), expect.stringMatching(/:drift_found:d:drift#2:HOOK_DRIFT$/)]);
    // Its watch reads every 300 ms: ended here, so it does not read the next test's fake.
    await child.terminate('test finished');
  });

  it('a notify block added to a study reaches its running target group with the next apply', async () => {
    fake = new FakeApi();
    const { hook, target } = await receiver('HOOK_ADDED', ['drift_found']);
    const before = study('added-notify', [fast('a')]);
    await apply(before);
    await untilStudy('added-notify', settled(before.revision), 'live');
    const after = study('added-notify', [fast('a', { notify: [target] })]);
    await apply(after);
    await untilStudy('added-notify', settled(after.revision), 'the new revision settled');
    fake.setField('a', 'name', 'renamed in the exchange');
    await eventually(() => hook.received.length, (n) => n >= 1, 'the drift told to the added target');
    expect(kindOf(hook.received[0])).toBe('drift_found');
    await stack.env.client.workflow.getHandle(targetGroupWorkflowId('1001', 'added-notify', 'a')).terminate('test finished');
  });

  it('target_group_completed: the workflow ends only after the notification, which a retried attempt sends under one key', async () => {
    fake = new FakeApi();
    fake.completes.c = 100;
    // The receiver fails the first post: Temporal retries the activity (2 s later) with the same input and key.
    const { hook, target } = await receiver('HOOK_DONE', ['target_group_completed'], [500, 200]);
    const quiet = await receiver('HOOK_QUIET', ['gate_blocked']);
    const sentBefore = metrics.registry.render();
    const desired = study('done-notify', [fast('c', { notify: [target, quiet.target] })]);
    await apply(desired);
    await untilStudy('done-notify', settled(desired.revision), 'live');
    const child = stack.env.client.workflow.getHandle(targetGroupWorkflowId('1001', 'done-notify', 'c'));
    fake.setStatus('c', 'completed');
    const result = await child.result();
    expect(result.phase).toBe('completed');
    // Delivered before the workflow returned: both attempts reached the receiver, with one key.
    expect(hook.received).toHaveLength(2);
    expect(new Set(hook.received.map(keyOf)).size).toBe(1);
    expect(keyOf(hook.received[0])).toMatch(/:target_group_completed:c:run-tg-\d+#1:HOOK_DONE$/);
    expect(body(hook.received[1]).text).toBe('Target group completed: done-notify / c (completes 100 of 100)');
    expect(quiet.hook.received).toEqual([]);
    // The worker's counters: one sent, one failed attempt (the 500).
    expect(sentBefore).not.toContain('studyflow_notifications_sent_total{event="target_group_completed"}');
    expect(metrics.registry.render()).toContain('studyflow_notifications_sent_total{event="target_group_completed"} 1');
    expect(metrics.registry.render()).toContain('studyflow_notifications_failed_total{event="target_group_completed",reason="server_error"} 1');
  });
});
