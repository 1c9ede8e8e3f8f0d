// Guards in the target group's watch (workflows/target-group/guards.ts), on a Temporal dev server of this file's
// own with the in-memory API of fake-api.ts: session events trip a guard, which pauses through the fielding
// path, records its evidence, sets the console's reason and notifies once per trip; the hold refuses the
// operator's resume and `fielding: live`; `approve --resume` (the study's resumeGuarded update) resumes with who;
// a second real trip notifies again; a revision that changes the guard re-arms it and resumes; the workflow
// continues as new on the way (a short history limit), carrying the guards' memory and hold.
import { describe, expect, it } from 'vitest';
import type { SendNotificationInput } from '../../activities/notify';
import type { DesiredGuard, DesiredTargetGroup } from '../../plan/types';
import {
  fieldingControlUpdate,
  resumeGuardedUpdate,
  studyWorkflowId,
  targetGroupEventOnceUpdate,
  targetGroupWorkflowId,
  webhookEventUpdateId,
  type StudyStatus,
} from '../../workflows/messages';
import { REASON } from '../../workflows/search-attributes';
import { FakeApi, targetGroup } from './fake-api';
import { desiredStudyMaker, useWorkflowUnitStack } from './workflow-env';

const TASK_QUEUE = 'guards-unit';
/** History length after which the server suggests continue-as-new: small, so the guards' memory and hold cross runs. */
const CONTINUE_AS_NEW_AFTER = 40;
let fake = new FakeApi();
let notifications: SendNotificationInput[] = [];
const stack = useWorkflowUnitStack({
  taskQueue: TASK_QUEUE,
  continueAsNewAfter: CONTINUE_AS_NEW_AFTER,
  fake: () => fake,
  activities: () => ({
    // The notification activity as the worker runs it, minus the POST: what the workflow asked to send, and under which key.
    sendNotification: async (input: SendNotificationInput) => {
      const delivered = !notifications.some((n) => n.dedupeKey === input.dedupeKey);
      notifications.push(input);
      return { delivered };
    },
  }),
});
const study = desiredStudyMaker('g');
const { apply, status, until } = stack;
const settled = (revision: string) => (s: StudyStatus) => s.appliedRevision === revision && s.phase === 'converged';

const HOOK = { envName: 'GUARDS_HOOK', events: ['guard_tripped' as const] };
/** Incidence below 0.5 × 0.5 = 0.25 after 30 entrants (the fake's expected_incidence_rate is 0.5). */
const lowIncidence: DesiredGuard = { name: 'low_incidence', kind: 'incidence_below', fraction: 0.5, expectedIncidenceRate: 0.5, minEntrants: 30, action: 'pause' };
const guarded = (key: string, guard: DesiredGuard, patch: Partial<DesiredTargetGroup> = {}) => targetGroup(key, { guards: [guard], notify: [HOOK], ...patch });

let events = 0;
/** A session webhook event with `complete` completes and `terminate` screen-outs, each a first terminal status. */
async function sessions(studyId: string, key: string, targetGroupId: string, complete: number, terminate: number): Promise<void> {
  const at = new Date().toISOString();
  const session = (status: string) => ({ status, respondent_update_date: at, respondent_last_date_change: null });
  const id = `guards-${++events}`;
  await stack.env.client.workflow
    .getHandle(targetGroupWorkflowId('1001', studyId, key))
    .executeUpdate(targetGroupEventOnceUpdate, {
      args: [{ id, type: 'com.svc.session.updated', time: at, targetGroupId, sessions: [...Array(complete).fill(session('Complete')), ...Array(terminate).fill(session('Terminate'))] }],
      updateId: webhookEventUpdateId(id),
    });
}
const tripsSent = (studyId: string) => notifications.filter((n) => n.event.kind === 'guard_tripped' && n.event.studyId === studyId);

describe('guards in the watch', () => {
  it('a pausing guard trips on session events: paused through the fielding path with its evidence, held, resumed on approval with who; a changed guard re-arms and resumes', async () => {
    fake = new FakeApi();
    notifications = [];
    const first = study('guarded', [guarded('g', lowIncidence)]);
    await apply(first);
    const live = await until('guarded', settled(first.revision), 'live');
    const id = live.targetGroups.g.targetGroupId as string;
    const firstRun = (await stack.env.client.workflow.getHandle(targetGroupWorkflowId('1001', 'guarded', 'g')).describe()).runId;

    // 29 entrants: not judged yet.
    await sessions('guarded', 'g', id, 4, 25);
    const waiting = await until('guarded', (s) => s.targetGroups.g.guards?.states[0]?.state === 'waiting', 'the guard waiting');
    expect(waiting.targetGroups.g.guards?.states[0].detail).toBe('29 of 30 entrants');
    expect(fake.callsOf('pauseFieldingRun')).toEqual([]);

    // 50 entrants at 10 / (10 + 40) = 0.2: below 0.25.
    await sessions('guarded', 'g', id, 6, 15);
    const tripped = await until('guarded', (s) => s.targetGroups.g.phase === 'paused' && s.targetGroups.g.guards?.hold !== undefined, 'the trip');
    const guards = tripped.targetGroups.g.guards!;
    expect(guards.active).toEqual([
      expect.objectContaining({ guard: 'low_incidence', kind: 'incidence_below', action: 'pause', value: 0.2, threshold: 0.25, unit: 'rate', source: 'sessions', figures: { entrants: 50, completes: 10 }, text: 'incidence 0.2 is below 0.25 (0.5 of the expected 0.5) after 50 entrants' }),
    ]);
    expect(guards.hold?.guards.map((h) => h.guard)).toEqual(['low_incidence']);
    expect(guards.trips).toBe(1);
    expect(fake.callsOf('pauseFieldingRun').map((c) => c.keys)).toEqual([['g']]);
    expect(fake.statusOf('g')).toBe('paused');
    const child = stack.env.client.workflow.getHandle(targetGroupWorkflowId('1001', 'guarded', 'g'));
    const reason = async () => (await child.describe()).typedSearchAttributes.get(REASON);
    for (let i = 0; (await reason()) !== 'guard:incidence_below' && i < 100; i += 1) await new Promise((r) => setTimeout(r, 100));
    expect(await reason()).toBe('guard:incidence_below');
    // One notification of the trip, keyed by its number (a retry or a replay sends the same key).
    await until('guarded', () => tripsSent('guarded').length === 1, 'the notification');
    expect(tripsSent('guarded')[0]).toMatchObject({ envName: 'GUARDS_HOOK', event: { kind: 'guard_tripped', targetGroup: 'g', reading: guards.active[0].text, threshold: '0.25' } });
    expect(tripsSent('guarded')[0].dedupeKey).toMatch(/:guard_tripped:g:trip#1:GUARDS_HOOK$/);

    // Held: the operator's resume is refused, and a re-apply with `fielding: live` resumes nothing.
    const studyHandle = stack.env.client.workflow.getHandle(studyWorkflowId('1001', 'guarded'));
    await studyHandle.executeUpdate(fieldingControlUpdate, { args: [{ targetGroup: 'g', action: 'resume' }] });
    const refused = await until('guarded', (s) => /^cannot resume: held by guard low_incidence/.test(s.targetGroups.g.message ?? ''), 'the refusal');
    expect(refused.targetGroups.g.phase).toBe('paused');
    const again = study('guarded', [guarded('g', lowIncidence, { fielding: 'live' })]);
    await apply(again);
    const held = await until('guarded', settled(again.revision), 'the re-apply');
    expect(held.plan?.find((a) => a.key === 'g' && a.resource === 'fielding')?.reason).toMatch(/^paused, held by guard low_incidence/);
    expect(fake.callsOf('resumeFieldingRun')).toEqual([]);

    // approve --resume: resumed through the fielding path, recorded with who, the trip acknowledged.
    expect(await studyHandle.executeUpdate(resumeGuardedUpdate, { args: [{ by: 'ana' }] })).toEqual(['g']);
    const resumed = await until('guarded', (s) => s.targetGroups.g.phase === 'live' && s.targetGroups.g.guards?.resumed !== undefined, 'the resume');
    expect(resumed.targetGroups.g.guards).toMatchObject({ active: [], resumed: { by: 'ana', guards: ['low_incidence'] }, trips: 1 });
    expect(resumed.targetGroups.g.guards?.hold).toBeUndefined();
    expect(fake.callsOf('resumeFieldingRun').map((c) => c.keys)).toEqual([['g']]);
    expect(await studyHandle.executeUpdate(resumeGuardedUpdate, { args: [{ by: 'ana' }] })).toEqual([]);

    // Acknowledged: judged again after another 30 entrants. 29 more: still acknowledged; one more: a second, real trip.
    await sessions('guarded', 'g', id, 0, 29);
    await until('guarded', (s) => s.targetGroups.g.guards?.states[0]?.state === 'acknowledged' && /now 79/.test(s.targetGroups.g.guards.states[0].detail), 'acknowledged');
    expect(fake.callsOf('pauseFieldingRun')).toHaveLength(1);
    await sessions('guarded', 'g', id, 0, 1);
    const second = await until('guarded', (s) => s.targetGroups.g.phase === 'paused' && s.targetGroups.g.guards?.trips === 2, 'the second trip');
    expect(second.targetGroups.g.guards?.active[0].figures).toEqual({ entrants: 80, completes: 10 });
    await until('guarded', () => tripsSent('guarded').length === 2, 'the second notification');
    expect(tripsSent('guarded')[1].dedupeKey).toMatch(/:guard_tripped:g:trip#2:GUARDS_HOOK$/);
    expect(new Set(tripsSent('guarded').map((n) => n.dedupeKey)).size).toBe(2);

    // A revision that changes the guard (a lower fraction) re-arms it: the plan resumes the run, and the new guard judges afresh.
    const lowered = study('guarded', [guarded('g', { ...lowIncidence, fraction: 0.1 })]);
    await apply(lowered);
    const rearmed = await until('guarded', (s) => settled(lowered.revision)(s) && s.targetGroups.g.phase === 'live', 'the re-armed guard');
    expect(rearmed.plan?.find((a) => a.key === 'g' && a.resource === 'fielding')).toMatchObject({ kind: 'resume', reason: 'guard low_incidence changed in the file: re-armed; resume the fielding run it paused' });
    expect(fake.callsOf('resumeFieldingRun')).toHaveLength(2);
    await sessions('guarded', 'g', id, 1, 0);
    const ok = await until('guarded', (s) => s.targetGroups.g.guards?.states[0]?.state === 'ok', 'the new guard judged');
    expect(ok.targetGroups.g.guards?.states[0].detail).toBe('incidence 0.1358 is not below 0.05 (0.1 of the expected 0.5) after 81 entrants');
    expect(ok.targetGroups.g.guards?.hold).toBeUndefined();
    expect(fake.callsOf('pauseFieldingRun')).toHaveLength(2);
    // All of it across runs: the target group's workflow continued as new on the way (its memory and hold were carried).
    expect((await stack.env.client.workflow.getHandle(targetGroupWorkflowId('1001', 'guarded', 'g')).describe()).runId).not.toBe(firstRun);
  }, 120_000);

  it('a notify-only guard notifies and marks the target group, and never pauses it', async () => {
    fake = new FakeApi();
    notifications = [];
    const first = study('noted', [guarded('n', { ...lowIncidence, action: 'notify' })]);
    await apply(first);
    const live = await until('noted', settled(first.revision), 'live');
    await sessions('noted', 'n', live.targetGroups.n.targetGroupId as string, 5, 45);
    const s = await until('noted', (x) => (x.targetGroups.n.guards?.active.length ?? 0) > 0, 'the trip');
    expect(s.targetGroups.n.guards?.active[0]).toMatchObject({ action: 'notify', value: 0.1 });
    expect(s.targetGroups.n.guards?.hold).toBeUndefined();
    await until('noted', () => tripsSent('noted').length === 1, 'the notification');
    // Still live a while later (more events judged): nothing paused it, and the trip was sent once.
    await sessions('noted', 'n', live.targetGroups.n.targetGroupId as string, 0, 10);
    await until('noted', (x) => x.targetGroups.n.events.received === 2, 'the second event');
    expect((await status('noted')).targetGroups.n.phase).toBe('live');
    expect(fake.callsOf('pauseFieldingRun')).toEqual([]);
    expect(tripsSent('noted')).toHaveLength(1);
  }, 60_000);

  it("no_completes_for counts its silence from the operator's resume, not from the launch", async () => {
    fake = new FakeApi();
    notifications = [];
    const stalled: DesiredGuard = { name: 'stalled', kind: 'no_completes_for', duration: 'PT3S', durationMs: 3_000, action: 'pause' };
    const first = study('silence', [guarded('s', stalled)]);
    await apply(first);
    const live = await until('silence', settled(first.revision), 'live');
    const id = live.targetGroups.s.targetGroupId as string;
    const studyHandle = stack.env.client.workflow.getHandle(studyWorkflowId('1001', 'silence'));
    // Paused by the operator at once, and left paused longer than the guard allows: a paused run is not judged.
    await studyHandle.executeUpdate(fieldingControlUpdate, { args: [{ targetGroup: 's', action: 'pause' }] });
    await until('silence', (x) => x.targetGroups.s.phase === 'paused', 'paused');
    await new Promise((r) => setTimeout(r, 3_500));
    await sessions('silence', 's', id, 0, 1);
    await until('silence', (x) => x.targetGroups.s.guards?.states[0]?.state === 'waiting', 'judged while paused');
    // Resumed by the operator: the silence starts again there, so the next events find the guard ok, not tripped.
    await studyHandle.executeUpdate(fieldingControlUpdate, { args: [{ targetGroup: 's', action: 'resume' }] });
    const resumed = await until('silence', (x) => x.targetGroups.s.phase === 'live' && x.targetGroups.s.resumedAt !== undefined, 'resumed');
    await sessions('silence', 's', id, 0, 1);
    const ok = await until('silence', (x) => x.targetGroups.s.events.received === 2 && x.targetGroups.s.guards?.states[0]?.state === 'ok', 'judged after the resume');
    expect(ok.targetGroups.s.guards?.states[0].detail).toContain(`(since ${resumed.targetGroups.s.resumedAt})`);
    expect(fake.callsOf('pauseFieldingRun')).toHaveLength(1);
    // Three seconds of silence after the resume: it trips, and pauses the run.
    await new Promise((r) => setTimeout(r, 3_200));
    await sessions('silence', 's', id, 0, 1);
    const tripped = await until('silence', (x) => x.targetGroups.s.phase === 'paused' && x.targetGroups.s.guards?.hold !== undefined, 'the trip');
    expect(tripped.targetGroups.s.guards?.active[0]).toMatchObject({ guard: 'stalled', figures: { silentSince: resumed.targetGroups.s.resumedAt } });
    expect(fake.callsOf('pauseFieldingRun')).toHaveLength(2);
  }, 60_000);
});
