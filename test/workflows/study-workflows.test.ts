// Workflow unit tests: the study and target-group workflows on a Temporal server of their own, with
// the in-memory API of fake-api.ts in place of the activities. The server suggests continue-as-new
// after a short history (CONTINUE_AS_NEW_AFTER events), so every test also runs across continue-as-new.
//
// Time skipping: @temporalio/testing's time-skipping server is a download this machine cannot make
// (no internet). The workflows here never wait on a long timer (job polls are answered at once, the
// watch interval is ten minutes and never reached), so the dev server (the `temporal` CLI the project
// installs, in TestWorkflowEnvironment.createFromExistingServer) serves as well.
import { describe, expect, it } from 'vitest';
import { awaitRevision } from '../../client/study-runs';
import { planStudy } from '../../plan/plan-study';
import { profilingOf } from '../../plan/profiling';
import { scheduleStudy } from '../../plan/schedule';
import type { DesiredTargetGroup } from '../../plan/types';
import {
  fieldingControlUpdate,
  reportQuery,
  revisionOutcome,
  studyWorkflowId,
  targetGroupEventOnceUpdate,
  targetGroupWorkflowId,
  webhookEventUpdateId,
  type StudyStatus,
  type WebhookEventSignal,
} from '../../workflows/messages';
import { targetGroupReportSignal } from '../../workflows/child-protocol';
import { programStudy } from '../../plan/program';
import { REASON } from '../../workflows/search-attributes';
import { FakeApi, targetGroup } from './fake-api';
import { desiredStudyMaker, settled, useWorkflowUnitStack } from './workflow-env';

/** History length after which the server suggests continue-as-new (Temporal's default is 4 Ki events). */
const CONTINUE_AS_NEW_AFTER = 60;
const TASK_QUEUE = 'workflow-unit';

let fake = new FakeApi();
// Every activity goes to the fake of the test that runs.
const stack = useWorkflowUnitStack({ taskQueue: TASK_QUEUE, continueAsNewAfter: CONTINUE_AS_NEW_AFTER, fake: () => fake });
const study = desiredStudyMaker('r');

const { apply, status, until } = stack;


/** An ID list in the blob store: a target group with one is launched by its own workflow, after the upload. */
const LIST = { ref: 'sha256:aa', sha256: 'aa', count: 3 };

describe('study workflow', () => {
  it('carries out the plan step by step: who the schedule names launches each target group, each gate read once', async () => {
    fake = new FakeApi();
    const desired = study('lifecycle', [targetGroup('a'), targetGroup('b', { idLists: { RSID: LIST } }), targetGroup('c', { exclusionGroups: ['waves'] })], {
      exclusionGroups: [{ name: 'waves', title: 'Waves', targetGroups: ['c'] }],
    });
    const schedule = scheduleStudy(desired, planStudy(desired, { targetGroups: {}, exclusionGroups: {} }), { targetGroups: {}, exclusionGroups: {} }, new Set());
    const launcher = Object.fromEntries(schedule.targetGroups.map((t) => [t.key, t.launch.by]));
    expect(launcher).toEqual({ a: 'draft_batch', b: 'target_group', c: 'study' });

    await apply(desired);
    const s = await until('lifecycle', settled(desired.revision), 'converged');
    expect(s.phase).toBe('converged');
    expect(Object.fromEntries(Object.entries(s.targetGroups).map(([k, t]) => [k, t.phase]))).toEqual({ a: 'live', b: 'live', c: 'live' });

    const order = fake.calls.map((c) => c.activity);
    // Observe and plan first; the project before the drafts, the gates of a and c beside it.
    expect(order[0]).toBe('observeStudy');
    expect(order.indexOf('ensureProject')).toBeLessThan(order.indexOf('ensureDraftTargetGroups'));
    expect(fake.callsOf('checkLaunchGatesBatch')[0].keys).toEqual(['a', 'c']);
    expect(order.indexOf('checkLaunchGatesBatch')).toBeLessThan(order.indexOf('ensureDraftTargetGroups'));
    // One draft batch; it launches the one the schedule gives it, and only that one.
    expect(fake.callsOf('ensureDraftTargetGroups')).toHaveLength(1);
    expect(fake.callsOf('ensureDraftTargetGroups')[0].keys).toEqual(schedule.draftBatches[0]);
    expect(Object.keys(fake.callsOf('ensureDraftTargetGroups')[0].launchKeys ?? {})).toEqual(['a']);
    expect(fake.callsOf('awaitJobsBatch').map((c) => c.keys)).toEqual([['a']]);
    // The study launches c after its membership; b's own workflow launches b after its ID list.
    const launches = fake.callsOf('launchAndAwaitBatch');
    const launchedBy = Object.fromEntries(launches.flatMap((c) => Object.entries(c.launchKeys ?? {}).map(([key, idem]) => [key, idem.includes('/tg/') ? 'target_group' : 'study'])));
    expect(launchedBy).toEqual({ b: 'target_group', c: 'study' });
    expect(order.indexOf('addTargetGroupsToExclusionGroup')).toBeLessThan(order.findIndex((a, i) => a === 'launchAndAwaitBatch' && fake.calls[i].keys.includes('c')));
    expect(order.indexOf('uploadIdList')).toBeLessThan(order.findIndex((a, i) => a === 'launchAndAwaitBatch' && fake.calls[i].keys.includes('b')));
    // Every gate read once in the revision: a and c by the study, b by its own workflow.
    expect(fake.callsOf('checkLaunchGatesBatch').flatMap((c) => c.keys).sort()).toEqual(['a', 'b', 'c']);
    // Writes: project, group, three drafts, membership, three launches, b's ID list.
    expect(s.writes).toBe(10);
    expect(s.managedTargetGroups?.sort()).toEqual(['a', 'b', 'c']);
  });

  it('runs the program: the steps each target group ran are the steps plan/program.ts gave it', async () => {
    fake = new FakeApi();
    const desired = study('program', [targetGroup('a'), targetGroup('b', { idLists: { RSID: LIST } }), targetGroup('c', { exclusionGroups: ['waves'] })], {
      exclusionGroups: [{ name: 'waves', title: 'Waves', targetGroups: ['c'] }],
    });
    const program = programStudy(desired, { targetGroups: {}, exclusionGroups: {} });
    await apply(desired);
    // The target group its draft batch took live is handed over once the revision settled.
    const ran = (s: StudyStatus, key: string) => [...(s.program?.ran[key] ?? []), ...(s.targetGroups[key]?.steps ?? [])];
    const s = await until('program', (x) => settled(desired.revision)(x) && ran(x, 'a').some((step) => step.kind === 'hand_over'), 'converged and handed over');
    for (const planned of program.targetGroups) expect(ran(s, planned.key), planned.key).toEqual(planned.steps);
    expect(program.targetGroups.map((t) => t.steps.length)).toEqual([4, 5, 5]);
  });

  it('awaitRevision answers once the revision settles (what apply --wait waits on), and at once for a superseded one', async () => {
    fake = new FakeApi();
    const desired = study('await', [targetGroup('a'), targetGroup('b')]);
    const id = studyWorkflowId('1001', 'await');
    await apply(desired);
    // Asked right after the revision was accepted: the answer is the settled status, not the one of that moment.
    const answered = await awaitRevision(stack.env.client, id, desired.revision);
    expect(revisionOutcome(answered, desired.revision)).toBe('settled');
    expect(answered).toMatchObject({ appliedRevision: desired.revision, phase: 'converged' });
    expect(Object.values(answered.targetGroups).map((t) => t.phase)).toEqual(['live', 'live']);
    expect(await status('await')).toMatchObject({ appliedRevision: desired.revision, phase: 'converged' });

    const newer = study('await', [targetGroup('a'), targetGroup('b', { draft: { ...targetGroup('b').draft, filling_goal: 150 } })]);
    await apply(newer);
    const superseded = await awaitRevision(stack.env.client, id, desired.revision);
    expect(revisionOutcome(superseded, desired.revision)).toBe('superseded');
    expect(revisionOutcome(await awaitRevision(stack.env.client, id, newer.revision), newer.revision)).toBe('settled');
  });

  it('holds a target group at its gate, then launches it when a revision lets the gate pass', async () => {
    fake = new FakeApi();
    const held = study('gate', [targetGroup('g', { draft: { ...targetGroup('g').draft, filling_goal: 900 } })]);
    await apply(held);
    const blocked = await until('gate', settled(held.revision), 'settled at the gate');
    expect(blocked.targetGroups.g).toMatchObject({ phase: 'gate_blocked', feasibility: { feasible: false } });
    expect(blocked.targetGroups.g.message).toMatch(/infeasible/);
    expect(fake.callsOf('launchAndAwaitBatch')).toEqual([]);
    expect(fake.callsOf('checkLaunchGatesBatch')).toHaveLength(1); // the study's read, handed to the workflow
    // The operator's console: the target group's workflow carries the gate's reason code as a search attribute.
    const gateChild = stack.env.client.workflow.getHandle(targetGroupWorkflowId('1001', 'gate', 'g'));
    const reasonOf = async () => (await gateChild.describe()).typedSearchAttributes.get(REASON);
    expect(await reasonOf()).toBe('gate_blocked:not_feasible');

    const lowered = study('gate', [targetGroup('g', { draft: { ...targetGroup('g').draft, filling_goal: 200 } })]);
    await apply(lowered);
    const live = await until('gate', settled(lowered.revision), 'live after the new revision');
    expect(live.targetGroups.g.phase).toBe('live');
    expect(fake.statusOf('g')).toBe('live');
    // The new revision: the study updates the draft; the target group's workflow (which runs, so the plan
    // gives it the launch) reads the gate once more and launches it.
    expect(scheduleStudy(lowered, planStudy(lowered, { targetGroups: {}, exclusionGroups: {} }), { targetGroups: {}, exclusionGroups: {} }, new Set(blocked.managedTargetGroups)).targetGroups[0].launch.by).toBe('target_group');
    expect(fake.callsOf('launchAndAwaitBatch')[0].launchKeys?.g).toMatch(/\/tg\/g\/launch\/1$/);
    expect(fake.callsOf('updateDraftTargetGroup').map((c) => c.keys)).toEqual([['g']]);
    expect(fake.callsOf('checkLaunchGatesBatch')).toHaveLength(2);
    // Live, nothing holds it: the reason is removed.
    const deadline = Date.now() + 30_000;
    while ((await reasonOf()) !== undefined && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(await reasonOf()).toBeUndefined();
  });

  it('a draft carries its profiles in its create call; a launched target group whose profiles changed gets them with manage-profiles', async () => {
    fake = new FakeApi();
    const gender = (options: string[]) => ({ object: 'regular', name: 'Gender', quotas_enabled: false, targets: options.map((option) => ({ conditions: [{ object: 'selection', question_id: 43, option }] })) });
    const withProfiles = (options: string[]) => targetGroup('pr', { profiles: [gender(options)], draft: { ...targetGroup('pr').draft, profiling: profilingOf([gender(options)]) } });
    const first = study('profiled', [withProfiles(['1'])]);
    // Nothing but the draft (its profiles inside) comes before the launch: the draft batch launches it.
    expect(scheduleStudy(first, planStudy(first, { targetGroups: {}, exclusionGroups: {} }), { targetGroups: {}, exclusionGroups: {} }, new Set()).targetGroups[0].launch.by).toBe('draft_batch');
    await apply(first);
    expect((await until('profiled', settled(first.revision), 'converged')).targetGroups.pr.phase).toBe('live');
    expect(fake.callsOf('ensureDraftTargetGroups')).toHaveLength(1);
    expect(fake.callsOf('manageProfiles')).toEqual([]);

    const second = study('profiled', [withProfiles(['1', '2'])]);
    await apply(second);
    const s = await until('profiled', settled(second.revision), 'the second revision applied');
    expect(s.targetGroups.pr.phase).toBe('live');
    expect(fake.callsOf('manageProfiles').map((c) => c.keys)).toEqual([['pr']]);
    expect(fake.callsOf('updateDraftTargetGroup')).toEqual([]);

    // Applied again, the same profiles make no write.
    const third = study('profiled', [withProfiles(['1', '2'])]);
    await apply(third);
    await until('profiled', settled(third.revision), 'the third revision applied');
    expect(fake.callsOf('manageProfiles')).toHaveLength(1);
  });

  it('fails a target group whose launch job fails every time, after the launch retries of its study file', async () => {
    fake = new FakeApi();
    fake.failingLaunches.add('x');
    const desired = study('failing', [targetGroup('x'), targetGroup('y')]);
    await apply(desired);
    const s = await until('failing', settled(desired.revision), 'settled');
    expect(s.phase).toBe('partially_failed');
    expect(s.targetGroups.x).toMatchObject({ phase: 'failed', failure: { type: 'job_failed' } });
    expect(s.targetGroups.y.phase).toBe('live');
    // The draft batch's launch, then launch_retries (2) more by its own workflow, each with a key of its own.
    const ownLaunches = fake.callsOf('launchAndAwaitBatch').filter((c) => c.keys.includes('x'));
    expect(ownLaunches.map((c) => c.launchKeys?.x)).toEqual([expect.stringMatching(/\/tg\/x\/launch\/1$/), expect.stringMatching(/\/tg\/x\/launch\/2$/)]);
    expect(fake.statusOf('x')).toBe('draft');
  });

  it('sends a launch whose answer was lost again with the same Idempotency-Key and the same request', async () => {
    fake = new FakeApi();
    fake.lostLaunchAnswers.add('own');
    const desired = study('lost-answer', [targetGroup('own', { idLists: { RSID: LIST } })]);
    await apply(desired);
    const s = await until('lost-answer', settled(desired.revision), 'settled');
    expect(s.targetGroups.own.phase).toBe('live');
    const keys = fake.callsOf('launchAndAwaitBatch').map((c) => c.launchKeys?.own);
    expect(keys).toHaveLength(2);
    expect(keys[1]).toBe(keys[0]);
  });

  it('lets a newer revision supersede one in the middle of its drafts', async () => {
    fake = new FakeApi();
    const first = study('supersede', [targetGroup('s', { draft: { ...targetGroup('s').draft, filling_goal: 100 } })]);
    const drafting = fake.hold('ensureDraftTargetGroups');
    await apply(first);
    await drafting;
    const second = study('supersede', [targetGroup('s', { draft: { ...targetGroup('s').draft, filling_goal: 150 } })]);
    const { accepted } = await apply(second);
    expect(accepted).toEqual({ revision: second.revision, superseded: first.revision });
    fake.release('ensureDraftTargetGroups');
    const s = await until('supersede', settled(second.revision), 'the second revision applied');
    expect(s).toMatchObject({ revision: second.revision, appliedRevision: second.revision, phase: 'converged' });
    expect(s.targetGroups.s).toMatchObject({ phase: 'live', revision: second.revision });
    // The first revision stopped at its checkpoint after the drafts. Its draft batch had sent the launch;
    // the second revision's launch batch sends it with the same Idempotency-Key: one launch to the API.
    expect(fake.callsOf('observeStudy')).toHaveLength(2);
    expect(fake.callsOf('awaitJobsBatch')).toEqual([]);
    const launches = [...fake.callsOf('ensureDraftTargetGroups'), ...fake.callsOf('launchAndAwaitBatch')].flatMap((c) => Object.values(c.launchKeys ?? {}));
    expect(launches).toHaveLength(2);
    expect(new Set(launches).size).toBe(1);
  });

  it('continues as new carrying its state: counts each write once, and still steers its target groups', async () => {
    fake = new FakeApi();
    const desired = study('carried', [targetGroup('p', { idLists: { RSID: LIST } })]);
    const handle = stack.env.client.workflow.getHandle(studyWorkflowId('1001', 'carried'));
    await apply(desired);
    const before = await until('carried', settled(desired.revision), 'converged');
    // Project, draft, ID list and launch by its own workflow.
    expect(before.writes).toBe(4);
    const firstRun = (await handle.describe()).runId;
    // As the webhook receiver sends them: an Update on the target group's workflow, keyed by the event id.
    const child = stack.env.client.workflow.getHandle(targetGroupWorkflowId('1001', 'carried', 'p'));
    const send = (event: WebhookEventSignal) => child.executeUpdate(targetGroupEventOnceUpdate, { args: [event], updateId: webhookEventUpdateId(event.id) });
    // Webhook events make the target group report progress until the study has continued as new.
    for (let n = 0; (await handle.describe()).runId === firstRun; n += 1) {
      if (n > 100) throw new Error('the study never continued as new');
      await send({ id: `e${n}`, type: 'target-group-updated', time: new Date().toISOString(), targetGroupId: before.targetGroups.p.targetGroupId });
      await new Promise((r) => setTimeout(r, 50));
    }
    // Its target group reports again after the continue-as-new: its writes are counted once.
    const received = (await status('carried')).targetGroups.p.events.received;
    await send({ id: 'after', type: 'target-group-updated', time: new Date().toISOString(), targetGroupId: before.targetGroups.p.targetGroupId });
    const after = await until('carried', (s) => s.targetGroups.p.events.received > received, 'the event after continue-as-new');
    expect(after.writes).toBe(4);
    expect(after).toMatchObject({ appliedRevision: desired.revision, projectId: before.projectId, phase: 'converged' });
    // The carried state still steers the target group (its workflow is known): paused by the operator's control,
    // it is drift from the file (fielding: live by default), which the next apply resumes; then nothing is written.
    await handle.executeUpdate(fieldingControlUpdate, { args: [{ targetGroup: 'p', action: 'pause' }] });
    const paused = await until('carried', (s) => s.targetGroups.p.phase === 'paused', 'paused');
    expect(paused.writes).toBe(5);
    const again = { ...desired, revision: study.nextRevision() };
    await apply(again);
    const reapplied = await until('carried', settled(again.revision), 're-applied');
    expect(reapplied).toMatchObject({ writes: 6, targetGroups: { p: { phase: 'live' } } });
    const once = { ...desired, revision: study.nextRevision() };
    await apply(once);
    expect((await until('carried', settled(once.revision), 're-applied once more')).writes).toBe(6);
  });

  describe('a launched target group converges from the file', () => {
    const live = (key: string, patch: Partial<DesiredTargetGroup> = {}) => targetGroup(key, patch);
    const withGoal = (key: string, goal: number, patch: Partial<DesiredTargetGroup> = {}) => live(key, { ...patch, draft: { ...targetGroup(key).draft, filling_goal: goal } });

    it('changes the goal in place after a feasibility check, and a re-apply writes nothing', async () => {
      fake = new FakeApi();
      const first = study('in-place', [live('a')]);
      await apply(first);
      const launched = await until('in-place', settled(first.revision), 'live');
      const raised = study('in-place', [withGoal('a', 300)]);
      await apply(raised);
      const s = await until('in-place', settled(raised.revision), 'the raise applied');
      expect(s).toMatchObject({ phase: 'converged', writes: launched.writes + 1 });
      expect(s.unapplied).toBeUndefined();
      expect(fake.callsOf('liveFeasibility').map((c) => c.keys)).toEqual([['a']]);
      expect(fake.callsOf('updateLiveFillingGoal').map((c) => c.keys)).toEqual([['a']]);
      expect(s.targetGroups.a.steps?.map((step) => step.kind)).toEqual(['check_live', 'update_live', 'read_state']);
      expect(fake.callsOf('ensureDraftTargetGroups').length + fake.callsOf('updateDraftTargetGroup').length).toBe(1); // the first draft only

      const again = { ...raised, revision: study.nextRevision() };
      await apply(again);
      const reapplied = await until('in-place', settled(again.revision), 're-applied');
      expect(reapplied.writes).toBe(s.writes);
      expect(fake.callsOf('updateLiveFillingGoal')).toHaveLength(1);
    });

    it('records a goal its gate refuses and a write the exchange refuses as unapplied, naming the field', async () => {
      fake = new FakeApi();
      const first = study('refused', [live('g'), live('w')]);
      await apply(first);
      const launched = await until('refused', settled(first.revision), 'live');
      fake.refusedLiveWrites.add('w');
      // 900 is infeasible (the fake's rule: up to 500); w's write is refused by the exchange.
      const next = study('refused', [withGoal('g', 900), withGoal('w', 200)]);
      await apply(next);
      const s = await until('refused', settled(next.revision), 'settled');
      expect(s.phase).toBe('converged');
      expect(s.writes).toBe(launched.writes);
      expect(s.unapplied).toEqual([
        { targetGroup: 'g', field: 'filling_goal', reason: 'gate_refused', detail: expect.stringMatching(/^raising filling_goal 100 -> 900: infeasible .*infeasible: at most 899 completes/) },
        { targetGroup: 'w', field: 'filling_goal', reason: 'operation_failed', detail: expect.stringContaining('injected refusal of the goal') },
      ]);
      expect(fake.callsOf('updateLiveFillingGoal').map((c) => c.keys)).toEqual([['w']]);
      expect(s.targetGroups.g).toMatchObject({ phase: 'live', message: expect.stringMatching(/^change held: infeasible/) });
    });

    it('holds the declared fielding state: pauses, resumes what the UI paused, completes, then relaunches', async () => {
      fake = new FakeApi();
      const first = study('fielding', [live('f')]);
      await apply(first);
      await until('fielding', settled(first.revision), 'live');
      const pause = study('fielding', [live('f', { fielding: 'paused' })]);
      await apply(pause);
      expect((await until('fielding', settled(pause.revision), 'paused')).targetGroups.f.phase).toBe('paused');
      const hold = { ...pause, revision: study.nextRevision() };
      await apply(hold);
      await until('fielding', settled(hold.revision), 'held');
      expect(fake.callsOf('pauseFieldingRun')).toHaveLength(1);

      const resume = study('fielding', [live('f')]);
      await apply(resume);
      expect((await until('fielding', settled(resume.revision), 'resumed')).targetGroups.f.phase).toBe('live');
      // Paused in the exchange's UI while the file says live: drift, and the next apply resumes it.
      fake.setStatus('f', 'paused');
      const drift = { ...resume, revision: study.nextRevision() };
      await apply(drift);
      expect((await until('fielding', settled(drift.revision), 'resumed again')).targetGroups.f.phase).toBe('live');
      expect(fake.callsOf('resumeFieldingRun')).toHaveLength(2);

      const complete = study('fielding', [live('f', { fielding: 'completed' })]);
      await apply(complete);
      const completed = await until('fielding', (s) => settled(complete.revision)(s) && s.targetGroups.f.phase === 'completed', 'completed');
      expect(completed.targetGroups.f.phase).toBe('completed');
      const relaunch = study('fielding', [live('f', { fielding: 'live' })]);
      await apply(relaunch);
      const relaunched = await until('fielding', (s) => settled(relaunch.revision)(s) && s.targetGroups.f.phase === 'live', 'relaunched');
      expect(relaunched.targetGroups.f.phase).toBe('live');
      expect(fake.callsOf('completeFieldingRun')).toHaveLength(1);
      expect(fake.callsOf('relaunchFieldingRun')).toHaveLength(1);
    });

    it('completes a target group the file drops under removed_target_groups: complete, and keeps one under keep', async () => {
      fake = new FakeApi();
      const first = study('removed', [live('stay'), live('keep'), live('drop')]);
      await apply(first);
      await until('removed', settled(first.revision), 'live');
      const keep = study('removed', [live('stay'), live('drop')], { removedTargetGroups: 'keep' });
      await apply(keep);
      const kept = await until('removed', settled(keep.revision), 'kept');
      expect(kept.plan?.find((a) => a.key === 'keep')?.reason).toMatch(/^removed from the file; live in the exchange.*kept fielding, no longer managed/);
      expect(fake.callsOf('completeFieldingRun')).toEqual([]);
      const drop = study('removed', [live('stay')], { removedTargetGroups: 'complete' });
      await apply(drop);
      await until('removed', settled(drop.revision), 'completed the removed ones');
      expect(fake.callsOf('completeFieldingRun').map((c) => c.keys).sort()).toEqual([['drop'], ['keep']]);
      expect(fake.statusOf('drop')).toBe('completed');
      expect(fake.statusOf('stay')).toBe('live');
    });

    it('checks drift at once on a target-group-updated event: paused in the UI shows paused before the next tick', async () => {
      fake = new FakeApi();
      const first = study('ui-pause', [live('u')]);
      await apply(first);
      const s = await until('ui-pause', settled(first.revision), 'live');
      fake.setStatus('u', 'paused');
      const child = stack.env.client.workflow.getHandle(targetGroupWorkflowId('1001', 'ui-pause', 'u'));
      // The watch interval is ten minutes: only the event can make the workflow look now.
      await child.executeUpdate(targetGroupEventOnceUpdate, { args: [{ id: 'ui-1', type: 'target-group-updated', time: new Date().toISOString(), targetGroupId: s.targetGroups.u.targetGroupId }], updateId: webhookEventUpdateId('ui-1') });
      expect((await until('ui-pause', (x) => x.targetGroups.u.phase === 'paused', 'paused from the event')).targetGroups.u.phase).toBe('paused');
    });

    it('completes its live target groups when cancelled under removed_target_groups: complete, and leaves them under keep', async () => {
      fake = new FakeApi();
      const kept = study('end-keep', [live('k')]);
      await apply(kept);
      await until('end-keep', settled(kept.revision), 'live');
      await stack.env.client.workflow.getHandle(studyWorkflowId('1001', 'end-keep')).cancel();
      const ended = study('end-complete', [live('c1'), live('c2', { fielding: 'paused' })], { removedTargetGroups: 'complete' });
      await apply(ended);
      await until('end-complete', settled(ended.revision), 'settled');
      const handle = stack.env.client.workflow.getHandle(studyWorkflowId('1001', 'end-complete'));
      await handle.cancel();
      await handle.result().catch(() => undefined);
      // The live one is completed; the draft held by `fielding: paused` is left as it is; the kept study's stays live.
      expect(fake.callsOf('completeFieldingRun').map((c) => c.keys)).toEqual([['c1']]);
      expect([fake.statusOf('c1'), fake.statusOf('c2'), fake.statusOf('k')]).toEqual(['completed', 'draft', 'live']);
    });
  });
});

describe('timed and staged launches', () => {
  const inSeconds = (s: number) => new Date(Date.now() + s * 1000).toISOString();
  const phases = (s: StudyStatus) => Object.fromEntries(Object.entries(s.targetGroups).map(([k, t]) => [k, t.phase]));

  it('schedule_launch: the exchange’s schedule-from-draft job holds the run; the revision settles scheduled, then it goes live', async () => {
    fake = new FakeApi();
    const at = inSeconds(10); // far enough ahead that a loaded machine settles the revision before it
    const desired = study('timed-exchange', [targetGroup('a', { launch: { mode: 'auto', requireFeasible: true, at } })]);
    await apply(desired);
    const s = await until('timed-exchange', settled(desired.revision), 'converged');
    expect(s.targetGroups.a).toMatchObject({ phase: 'scheduled', launchAt: at, settledRevision: desired.revision });
    expect(fake.statusOf('a')).toBe('scheduled');
    const [scheduled] = fake.callsOf('scheduleLaunchFromDraft');
    expect(scheduled.launchKeys).toEqual({ a: 'study/1001/timed-exchange/tg/a/schedule-launch/1' });
    // Never launched by a launch call: the exchange starts the run.
    expect(fake.callsOf('launchAndAwaitBatch')).toEqual([]);
    const live = await until('timed-exchange', (x) => x.targetGroups.a?.phase === 'live', 'live');
    expect(Date.now()).toBeGreaterThanOrEqual(Date.parse(at));
    expect(live.targetGroups.a.launchAt).toBeUndefined();
    expect(live.targetGroups.a.steps?.map((step) => step.kind)).toEqual(['read_gate', 'schedule_launch']);
    // Draft and schedule job: two writes.
    expect(live.writes).toBe(3);
  });

  it('wait_until: without schedule-from-draft (api_version 2025-05-27) a durable timer holds the launch, then gate and launch', async () => {
    fake = new FakeApi();
    const at = inSeconds(10); // far enough ahead that a loaded machine settles the revision before it
    const desired = study('timed-timer', [targetGroup('a', { launch: { mode: 'auto', requireFeasible: true, at } })], { apiVersion: '2025-05-27' });
    await apply(desired);
    const s = await until('timed-timer', settled(desired.revision), 'converged');
    expect(s.targetGroups.a).toMatchObject({ phase: 'scheduled', launchAt: at });
    expect(fake.statusOf('a')).toBe('draft');
    // The gate is read once the timer fired, near the launch.
    expect(fake.callsOf('checkLaunchGatesBatch')).toEqual([]);
    const live = await until('timed-timer', (x) => x.targetGroups.a?.phase === 'live', 'live');
    expect(Date.now()).toBeGreaterThanOrEqual(Date.parse(at));
    expect(fake.callsOf('scheduleLaunchFromDraft')).toEqual([]);
    expect(fake.callsOf('launchAndAwaitBatch').map((c) => c.launchKeys)).toEqual([{ a: 'study/1001/timed-timer/tg/a/launch/1' }]);
    expect(live.targetGroups.a.steps?.map((step) => step.kind)).toEqual(['wait_until', 'read_gate', 'launch']);
  });

  it('wait_for_completes: the study passes the upstream watch’s readings on; the launch waits until they reach N', async () => {
    fake = new FakeApi();
    const fast = { ...targetGroup('up').timing, watchIntervalMs: 200 };
    const desired = study('staged', [targetGroup('up', { timing: fast }), targetGroup('down', { launch: { mode: 'auto', requireFeasible: true, after: { targetGroup: 'up', completes: 3 } } })]);
    fake.completes.up = 1;
    await apply(desired);
    const waiting = await until('staged', (x) => settled(desired.revision)(x) && x.targetGroups.down?.launchAfter?.has === 1, 'waiting with a reading');
    expect(phases(waiting)).toEqual({ up: 'live', down: 'awaiting_completes' });
    expect(waiting.targetGroups.down.launchAfter).toEqual({ targetGroup: 'up', completes: 3, has: 1 });
    expect(waiting.targetGroups.down.message).toBe('launches after up has 3 completes (it has 1)');
    expect(fake.statusOf('down')).toBe('draft');
    fake.completes.up = 2;
    await until('staged', (x) => x.targetGroups.down?.launchAfter?.has === 2, 'the next reading passed on');
    expect(fake.statusOf('down')).toBe('draft');
    expect(fake.callsOf('checkLaunchGatesBatch').flatMap((c) => c.keys)).not.toContain('down');
    fake.completes.up = 3;
    const live = await until('staged', (x) => x.targetGroups.down?.phase === 'live', 'down live');
    expect(live.targetGroups.down.launchAfter).toBeUndefined();
    expect(live.targetGroups.down.steps?.map((step) => step.kind)).toEqual(['wait_for_completes', 'read_gate', 'launch']);
    // Nothing read the API for the wait: before its launch, down's only calls are its draft and its gate.
    const launchAt = fake.calls.findIndex((c) => c.activity === 'launchAndAwaitBatch' && c.keys.includes('down'));
    expect(new Set(fake.calls.slice(0, launchAt).filter((c) => c.keys.includes('down')).map((c) => c.activity))).toEqual(new Set(['ensureDraftTargetGroups', 'checkLaunchGatesBatch']));
  });
});

describe("the study's budget", () => {
  const USD = (value: string) => ({ value, currency_code: 'USD' });
  /** Launch calls of any launcher (a draft batch that launches names its launch keys). */
  const launchCalls = () => fake.calls.filter((c) => ['launchAndAwaitBatch', 'scheduleLaunchFromDraft'].includes(c.activity) || Object.keys(c.launchKeys ?? {}).length > 0);

  it('over budget launches nothing (drafts only, StudyOverBudget named); a raised budget launches them', async () => {
    fake = new FakeApi();
    // Two target groups of goal 100 at the fake's suggested 2.50: 500.00 predicted.
    const tgs = [targetGroup('bo'), targetGroup('bt', { idLists: { RSID: LIST } })];
    const over = study('budget-over', tgs, { budget: USD('499.99') });
    await apply(over);
    const refused = await until('budget-over', settled(over.revision), 'settled');
    expect(launchCalls()).toEqual([]);
    expect(Object.values(refused.targetGroups).map((t) => t.phase)).toEqual(['draft', 'draft']);
    expect(refused.budget).toMatchObject({ budget: USD('499.99'), refused: 'StudyOverBudget', prediction: 'predicted cost 500.00 USD of the budget 499.99 USD (100%): over budget; apply refuses to launch' });
    expect(refused.unapplied).toEqual([{ targetGroup: 'budget-over', field: 'budget', reason: 'blocked', detail: `StudyOverBudget: ${refused.budget?.prediction}` }]);
    expect(refused.plan?.filter((a) => a.resource === 'fielding').map((a) => a.kind)).toEqual(['none', 'none']);

    const within = study('budget-over', tgs, { budget: USD('500.00') });
    const before = fake.calls.length;
    await apply(within);
    const launched = await until('budget-over', settled(within.revision), 'launched');
    expect(Object.values(launched.targetGroups).map((t) => t.phase)).toEqual(['live', 'live']);
    expect(launched.budget).toMatchObject({ prediction: 'predicted cost 500.00 USD of the budget 500.00 USD (100%)' });
    expect(launched.budget?.refused).toBeUndefined();
    expect(launched.unapplied).toBeUndefined();
    // Their workflows run (they hold the drafts): each launches itself and reads its gate at its launch.
    expect(fake.calls.slice(before).filter((c) => c.activity === 'launchAndAwaitBatch').flatMap((c) => c.keys).sort()).toEqual(['bo', 'bt']);
  });

  it('within budget, the launch the study makes takes the gate read for the prediction: read once', async () => {
    fake = new FakeApi();
    const desired = study('budget-within', [targetGroup('bw')], { budget: USD('250.00') });
    await apply(desired);
    const s = await until('budget-within', settled(desired.revision), 'launched');
    expect(s.targetGroups.bw.phase).toBe('live');
    expect(s.budget?.prediction).toBe('predicted cost 250.00 USD of the budget 250.00 USD (100%)');
    expect(fake.callsOf('checkLaunchGatesBatch').map((c) => c.keys)).toEqual([['bw']]);
    expect(fake.calls.filter((c) => Object.keys(c.launchKeys ?? {}).length > 0 || c.activity === 'launchAndAwaitBatch').length).toBeGreaterThan(0);
  });

  it('at the budget pauses the live target groups once, resumes nothing, keeps the hold on a re-apply and lifts it with a raised budget', async () => {
    fake = new FakeApi();
    const tgs = [targetGroup('sa'), targetGroup('sb')];
    const first = study('budget-spend', tgs, { budget: USD('10000.00') });
    await apply(first);
    await until('budget-spend', (s) => settled(first.revision)(s) && Object.values(s.targetGroups).every((t) => t.phase === 'live'), 'live');
    const handle = stack.env.client.workflow.getHandle(studyWorkflowId('1001', 'budget-spend'));
    // What the children's watches report (the fake's performance answers the same, should a child read again).
    const report = async (key: string, cost: string) => {
      fake.costs[key] = cost;
      await handle.signal(targetGroupReportSignal, {
        key,
        expected: {},
        changes: [],
        performance: { readAt: new Date().toISOString(), entrants: 10, prescreens: 10, completes: 4, completesCost: USD(cost), respondents: [] },
      });
    };
    await report('sa', '6000.00');
    const below = await until('budget-spend', (s) => s.budget?.spent?.value === '6000.00', 'the spend');
    expect(below.budget?.reached).toBeUndefined();
    expect(fake.callsOf('pauseFieldingRun')).toEqual([]);

    await report('sb', '4000.00');
    const held = await until('budget-spend', (s) => s.targetGroups.sa.phase === 'paused' && s.targetGroups.sb.phase === 'paused', 'paused');
    expect(held.budget?.reached).toMatchObject({ spent: USD('10000.00'), paused: ['sa', 'sb'] });
    expect(held.budget?.spend).toBe('spent 10000.00 USD of the budget 10000.00 USD (100%): budget reached');
    expect((await handle.describe()).typedSearchAttributes.get(REASON)).toBe('budget_reached');

    // An operator resumes sa by hand: a later reading does not pause it again; nothing resumes sb.
    await handle.executeUpdate(fieldingControlUpdate, { args: [{ targetGroup: 'sa', action: 'resume' }] });
    await until('budget-spend', (s) => s.targetGroups.sa.phase === 'live', 'sa resumed by hand');
    await report('sb', '4100.00');
    await until('budget-spend', (s) => s.budget?.spent?.value === '10100.00', 'the new spend');
    expect(fake.callsOf('pauseFieldingRun').flatMap((c) => c.keys).sort()).toEqual(['sa', 'sb']);
    expect((await status('budget-spend')).targetGroups.sb.phase).toBe('paused');

    // A re-apply under the same budget keeps sb paused (its fielding: live is named as not made).
    const same = study('budget-spend', tgs, { budget: USD('10000.00') });
    await apply(same);
    const kept = await until('budget-spend', settled(same.revision), 're-applied');
    expect(kept.targetGroups.sb.phase).toBe('paused');
    expect(kept.unapplied).toEqual([{ targetGroup: 'sb', field: 'fielding', reason: 'blocked', detail: expect.stringContaining("held paused by the study's budget (spent 10100.00 USD") }]);
    expect(fake.callsOf('resumeFieldingRun').map((c) => c.keys)).toEqual([['sa']]);

    // A budget above the spend lifts the hold: the revision's plan resumes sb.
    const raised = study('budget-spend', tgs, { budget: USD('20000.00') });
    await apply(raised);
    const lifted = await until('budget-spend', (s) => settled(raised.revision)(s) && s.targetGroups.sb.phase === 'live', 'resumed');
    expect(lifted.budget?.reached).toBeUndefined();
    expect(lifted.unapplied).toBeUndefined();
    expect(fake.callsOf('resumeFieldingRun').map((c) => c.keys)).toEqual([['sa'], ['sb']]);
    expect((await handle.describe()).typedSearchAttributes.get(REASON)).toBeUndefined();
  }, 150_000);
});

describe('the watch: one list read per study, quiet target groups make no call of their own', () => {
  const performanceReads = (key: string) => fake.callsOf('getTargetGroupPerformance').filter((c) => c.keys.includes(key)).length;
  const stateReads = (key: string) => fake.callsOf('readTargetGroupState').filter((c) => c.keys.includes(key)).length;
  async function waitFor(done: () => boolean, what: string): Promise<void> {
    const deadline = Date.now() + 60_000;
    while (!done()) {
      if (Date.now() > deadline) throw new Error(`never: ${what}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  it('reads the project list each interval and wakes only the target group whose figures changed, which reads its performance for the report', async () => {
    fake = new FakeApi();
    const fast = { ...targetGroup('q').timing, watchIntervalMs: 300 };
    const desired = study('watch-batch', [targetGroup('q', { timing: fast }), targetGroup('m', { timing: fast })]);
    await apply(desired);
    await until('watch-batch', (s) => settled(desired.revision)(s) && s.targetGroups.q?.phase === 'live' && s.targetGroups.m?.phase === 'live', 'both live');
    // The first list read shows both (figures not seen before): each is woken once and reads its performance.
    await waitFor(() => performanceReads('q') > 0 && performanceReads('m') > 0, 'a first reading of each');
    const lists = fake.callsOf('listTargetGroupFigures').length;
    const quiet = { performance: performanceReads('q'), state: stateReads('q') };
    // Nothing changes for twelve list reads: q reads no performance, and its state only on its fallback timer
    // (twice the interval, then doubling), so fewer times than half the list reads.
    await waitFor(() => fake.callsOf('listTargetGroupFigures').length >= lists + 12, 'twelve more list reads');
    const listed = fake.callsOf('listTargetGroupFigures').length - lists;
    expect(performanceReads('q') - quiet.performance).toBe(0);
    expect(stateReads('q') - quiet.state).toBeLessThan(listed / 2);
    // m gets completes: the next list read wakes it, and its reading reaches the study's report.
    fake.completes.m = 4;
    const report = async () => (await stack.env.client.workflow.getHandle(studyWorkflowId('1001', 'watch-batch')).query(reportQuery)).targetGroups.m?.report?.performance?.completes;
    const deadline = Date.now() + 60_000;
    while ((await report()) !== 4) {
      if (Date.now() > deadline) throw new Error('m\'s completes never reached the report');
      await new Promise((r) => setTimeout(r, 100));
    }
    // Every list read was one call for the whole project (no key: not a read of one target group).
    expect(fake.callsOf('listTargetGroupFigures').every((c) => c.keys.length === 0)).toBe(true);
  });

  it("finds drift by the list's updated_at: a quiet target group reads its state only when updated_at moves, not on a timer", async () => {
    fake = new FakeApi();
    const fast = { ...targetGroup('u').timing, watchIntervalMs: 300 };
    const desired = study('watch-updated', [targetGroup('u', { timing: fast })]);
    await apply(desired);
    await until('watch-updated', (s) => settled(desired.revision)(s) && s.targetGroups.u?.phase === 'live', 'live');
    // The first figures: a performance reading and a drift check (nothing to baseline updated_at against yet).
    await waitFor(() => performanceReads('u') > 0 && stateReads('u') > 0, 'the first reading and drift check');
    const lists = fake.callsOf('listTargetGroupFigures').length;
    await waitFor(() => fake.callsOf('listTargetGroupFigures').length >= lists + 2, 'two more list reads');
    const quiet = stateReads('u');
    // Fifteen list reads (4.5 s) of an unchanged updated_at: no state read. (Without updated_at the fallback timer
    // would check at twice the interval and then doubling: 0.6 s, 1.2 s, 2.4 s, … A known updated_at makes it 6 hours.)
    const from = fake.callsOf('listTargetGroupFigures').length;
    await waitFor(() => fake.callsOf('listTargetGroupFigures').length >= from + 15, 'fifteen more list reads');
    expect(stateReads('u')).toBe(quiet);
    // Renamed in the exchange's UI, with no webhook event: the list's updated_at moves and the next read finds the drift.
    fake.setField('u', 'name', 'renamed in the exchange');
    const drifted = await until('watch-updated', (s) => s.targetGroups.u?.drift?.[0]?.field === 'name', 'the drift found');
    expect(drifted.targetGroups.u.events.received).toBe(0);
    expect(stateReads('u')).toBe(quiet + 1);
  });
});
