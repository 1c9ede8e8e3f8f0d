// The program (plan/program.ts): every step apply runs, per target group and for the study, from desired and observed.
import { describe, expect, it } from 'vitest';
import { desiredStudy, desiredTargetGroup, TIMING } from '../fixtures/desired-study';
import { planStudy } from '../../plan/plan-study';
import { disagreesWithExchange, programStudy, revisesChild, runningFromStatus, specDigest, stepsAfterHandOver, type StudyStep } from '../../plan/program';
import type { DesiredStudy, DesiredTargetGroup, ObservedStudy } from '../../plan/types';

const timing = TIMING;
const LIST = { ref: 'sha256:ab', sha256: 'ab'.repeat(32), count: 3 };
const tg = (key: string, patch: Partial<DesiredTargetGroup> = {}): DesiredTargetGroup => desiredTargetGroup(key, patch, (k) => `demo_${k}`);
const study = desiredStudy;

const empty: ObservedStudy = { targetGroups: {}, exclusionGroups: {} };
const stepsOf = (desired: DesiredStudy, observed: ObservedStudy = empty, running = new Map()) =>
  Object.fromEntries(programStudy(desired, observed, { running }).targetGroups.map((t) => [t.key, t.steps]));

describe('programStudy', () => {
  const desired = study(
    [
      tg('fast'),
      tg('grouped', { exclusionGroups: ['waves'] }),
      tg('listed', { idLists: { RSID: LIST } }),
      tg('manual', { launch: { mode: 'manual', requireFeasible: false } }),
    ],
    { exclusionGroups: [{ name: 'waves', title: 'Waves', targetGroups: ['grouped'] }] },
  );

  it('gives each target group its steps in the order apply runs them, with their payloads', () => {
    const steps = stepsOf(desired);
    expect(steps.fast).toEqual([
      { kind: 'read_gate', by: 'study' },
      {
        kind: 'draft',
        mode: 'create',
        batch: 0,
        idempotencyKey: 'study/1001/demo/target-group/fast',
        launch: { idempotencyKey: 'study/1001/demo/launch/fast/{target group id}' },
      },
      { kind: 'await_job', job: 'launch' },
      { kind: 'hand_over', when: 'settled' },
    ]);
    expect(steps.grouped).toEqual([
      { kind: 'read_gate', by: 'study' },
      { kind: 'draft', mode: 'create', batch: 0, idempotencyKey: 'study/1001/demo/target-group/grouped' },
      { kind: 'membership', group: 'waves', change: 'add' },
      { kind: 'launch', by: 'study', idempotencyKey: 'study/1001/demo/launch/grouped/{target group id}' },
      { kind: 'hand_over', when: 'now' },
    ]);
    expect(steps.listed).toEqual([
      { kind: 'draft', mode: 'create', batch: 0, idempotencyKey: 'study/1001/demo/target-group/listed' },
      { kind: 'hand_over', when: 'now' },
      { kind: 'upload', list: 'id_list', entityType: 'RSID', replace: false, ref: LIST, reason: expect.stringMatching(/upload 3 IDs/) },
      { kind: 'read_gate', by: 'target_group' },
      { kind: 'launch', by: 'target_group', idempotencyKey: 'study/1001/demo/tg/listed/launch/{attempt}' },
    ]);
    expect(steps.manual.slice(-3)).toEqual([
      { kind: 'read_gate', by: 'target_group' },
      { kind: 'approve' },
      { kind: 'launch', by: 'target_group', idempotencyKey: 'study/1001/demo/tg/manual/launch/{attempt}' },
    ]);
    // What the target group's workflow takes over when the study cannot finish a launch it was to make; none for its own launches.
    const byKey = Object.fromEntries(programStudy(desired, empty).targetGroups.map((t) => [t.key, t.fallback]));
    expect(byKey.fast).toEqual([{ kind: 'read_gate', by: 'target_group' }, { kind: 'launch', by: 'target_group', idempotencyKey: 'study/1001/demo/tg/fast/launch/{attempt}' }]);
    expect(byKey.grouped?.map((s) => s.kind)).toEqual(['read_gate', 'launch']);
    expect(byKey.listed).toBeUndefined();
    // The hand-over passes the rest to the target group's workflow.
    expect(stepsAfterHandOver(steps.listed).map((s) => s.kind)).toEqual(['upload', 'read_gate', 'launch']);
    expect(stepsAfterHandOver(steps.fast)).toEqual([]);
  });

  it('gives the study its writes beside the gate reads, the drafts, then launches and hand-overs side by side', () => {
    const program = programStudy(desired, empty);
    const kinds = (steps: StudyStep[]): unknown[] => steps.map((s) => (s.kind === 'together' ? s.lanes.map(kinds) : s.kind));
    expect(kinds(program.study)).toEqual([
      [['read_gates'], ['project', 'exclusion_group']],
      'checkpoint',
      'drafts',
      'checkpoint',
      [['await_launches', 'hand_over'], ['second_pass', 'memberships', [['hand_over'], ['launch_batch', 'hand_over']]]],
      'settle',
      'checkpoint',
      'conclude',
      'hand_over',
    ]);
    expect(program.study[0]).toMatchObject({ lanes: [[{ kind: 'read_gates', keys: ['fast', 'grouped'] }], [{ kind: 'project', mode: 'create', idempotencyKey: 'study/1001/demo/project' }, { kind: 'exclusion_group', name: 'waves' }]] });
    expect(program.study[2]).toEqual({ kind: 'drafts', batches: [['fast', 'grouped', 'listed', 'manual']], updates: [] });
  });

  it('names the id of a target group that exists in its launch key, and reads the state of one with nothing to launch', () => {
    const one = study([tg('us')]);
    const observed: ObservedStudy = {
      project: { id: 'p-1', fields: { ...one.project } },
      targetGroups: { us: { id: 'tg-9', status: 'draft', fields: { ...one.targetGroups[0].draft }, idLists: {} } },
      exclusionGroups: {},
    };
    expect(stepsOf(one, observed).us).toEqual([
      { kind: 'read_gate', by: 'study' },
      { kind: 'launch', by: 'study', idempotencyKey: 'study/1001/demo/launch/us/tg-9' },
      { kind: 'hand_over', when: 'now' },
    ]);
    const live: ObservedStudy = { ...observed, targetGroups: { us: { ...observed.targetGroups.us, status: 'live' } } };
    expect(stepsOf(one, live).us).toEqual([{ kind: 'hand_over', when: 'now' }, { kind: 'read_state' }]);
  });

  it('leaves a running workflow whose part is unchanged alone, and hands a changed or failed one the revision', () => {
    const one = study([tg('us')]);
    const live: ObservedStudy = {
      project: { id: 'p-1', fields: { ...one.project } },
      targetGroups: { us: { id: 'tg-9', status: 'live', fields: { ...one.targetGroups[0].draft }, idLists: {} } },
      exclusionGroups: {},
    };
    const digest = specDigest(one.targetGroups[0]);
    expect(stepsOf(one, live, new Map([['us', { specDigest: digest, phase: 'live' }]])).us).toEqual([]);
    expect(stepsOf(one, live, new Map([['us', { specDigest: digest, phase: 'failed' }]])).us).toEqual([{ kind: 'hand_over', when: 'now' }, { kind: 'read_state' }]);
    const changed = study([tg('us', { timing: { ...timing, watchIntervalMs: 5_000 } })]);
    expect(stepsOf(changed, live, new Map([['us', { specDigest: digest, phase: 'live' }]])).us).toEqual([{ kind: 'hand_over', when: 'now' }, { kind: 'read_state' }]);
    expect(revisesChild(one.targetGroups[0], planStudy(one, live).actions, { specDigest: digest, phase: 'live' })).toBe(false);
    expect(runningFromStatus({ managedTargetGroups: ['us'], childSpecDigests: { us: digest }, targetGroups: { us: { phase: 'live' } } })).toEqual(new Map([['us', { specDigest: digest, phase: 'live' }]]));
  });

  it('hands the revision to a workflow whose phase disagrees with the exchange, so it reads where it is at once (issue 35)', () => {
    const one = study([tg('us')]);
    const digest = specDigest(one.targetGroups[0]);
    const observedAs = (status: string): ObservedStudy => ({
      project: { id: 'p-1', fields: { ...one.project } },
      targetGroups: { us: { id: 'tg-9', status, fields: { ...one.targetGroups[0].draft }, idLists: {} } },
      exclusionGroups: {},
    });
    // The exchange completed it at its goal (completed is final without `fielding: live`): nothing to write, but a
    // workflow still saying live reads its state now.
    expect(stepsOf(one, observedAs('completed'), new Map([['us', { specDigest: digest, phase: 'live' }]])).us).toEqual([{ kind: 'hand_over', when: 'now' }, { kind: 'read_state' }]);
    expect(stepsOf(one, observedAs('completed'), new Map([['us', { specDigest: digest, phase: 'completed' }]])).us).toEqual([]);
    expect(disagreesWithExchange('live', 'paused')).toBe(true);
    expect(disagreesWithExchange('scheduled', 'live')).toBe(true);
    // A draft in the exchange says nothing against a workflow that waits before its launch.
    for (const phase of ['awaiting_completes', 'awaiting_approval', 'gate_blocked', 'scheduled', 'draft']) expect(disagreesWithExchange(phase, 'draft')).toBe(false);
  });

  it('gives a launched target group its live steps: resume first, the check, one update per operation, pause last', () => {
    const run = { id: 'run-1', status: 'live' as const, startFieldingAt: '2027-01-01T00:00:00Z', endFieldingAt: '2027-03-01T00:00:00Z', etag: '"3"' };
    const observedOf = (desired: DesiredStudy, status: 'live' | 'paused', extra: Partial<ObservedStudy['targetGroups'][string]> = {}): ObservedStudy => ({
      project: { id: 'p-1', fields: { ...desired.project } },
      targetGroups: { us: { id: 'tg-9', status, fields: { ...tg('us').draft }, idLists: {}, fieldingRun: { ...run, status }, fillingGoal: { completesGoal: 200 }, ...extra } },
      exclusionGroups: {},
    });
    const running = new Map([['us', { specDigest: 'old', phase: 'live' }]]);
    // Raised goal, a later end and a new name: the check, then one update per operation, in the table's order.
    const changed = study([tg('us', { draft: { ...tg('us').draft, filling_goal: 300, name: 'US renamed' }, launch: { mode: 'auto', requireFeasible: true, endFieldingAt: '2027-03-08T00:00:00Z' } })]);
    const steps = stepsOf(changed, observedOf(changed, 'live'), running).us;
    expect(steps.map((s) => s.kind)).toEqual(['hand_over', 'check_live', 'update_live', 'update_live', 'update_live', 'read_state']);
    expect(steps[1]).toMatchObject({ kind: 'check_live', gate: { requireFeasible: true, approval: false, because: ['raising filling_goal 200 -> 300'], request: { completes_goal: 300 } } });
    // The order of plan/live-changes.ts: the details, the goal, the fielding run.
    expect(steps.slice(2)).toEqual([
      // Each with exactly the request its activity sends, and the fields it changes (before and after) for the views.
      {
        kind: 'update_live',
        request: { operation: 'update_launched_target_group_details', details: { name: 'US renamed' } },
        changes: [{ field: 'name', from: tg('us').draft.name, to: 'US renamed' }],
      },
      { kind: 'update_live', request: { operation: 'update_profile_filling_goal', completesGoal: 300 }, changes: [{ field: 'filling_goal', from: 200, to: 300 }] },
      {
        kind: 'update_live',
        request: { operation: 'update_fielding_run', endFieldingAt: '2027-03-08T00:00:00Z' },
        changes: [{ field: 'end_fielding_at', from: '2027-03-01T00:00:00Z', to: '2027-03-08T00:00:00Z' }],
      },
      { kind: 'read_state' },
    ]);
    // Paused in the exchange while the file says live (drift): resumed before anything else; declared paused: paused last.
    const same = study([tg('us')]);
    expect(stepsOf(same, observedOf(same, 'paused'), running).us).toEqual([{ kind: 'hand_over', when: 'now' }, { kind: 'fielding', action: 'resume' }, { kind: 'read_state' }]);
    const paused = study([tg('us', { fielding: 'paused', draft: { ...tg('us').draft, filling_goal: 150 } })]);
    expect(stepsOf(paused, observedOf(paused, 'live'), running).us).toEqual([
      { kind: 'hand_over', when: 'now' },
      { kind: 'update_live', request: { operation: 'update_profile_filling_goal', completesGoal: 150 }, changes: [{ field: 'filling_goal', from: 200, to: 150 }] },
      { kind: 'fielding', action: 'pause' },
      { kind: 'read_state' },
    ]);
    // Nothing differs and the workflow has this spec: no steps at all (a re-apply writes nothing).
    expect(stepsOf(same, observedOf(same, 'live'), new Map([['us', { specDigest: specDigest(same.targetGroups[0]), phase: 'live' }]])).us).toEqual([]);
  });

  it('gives the study complete_removed for target groups the file dropped under removed_target_groups: complete, none under keep', () => {
    const one = study([tg('us')], { removedTargetGroups: 'complete' });
    const observed: ObservedStudy = {
      project: { id: 'p-1', fields: { ...one.project } },
      targetGroups: {
        us: { id: 'tg-9', status: 'live', fields: { ...one.targetGroups[0].draft }, idLists: {} },
        uk: { id: 'tg-8', status: 'live', fields: {}, idLists: {}, fieldingRunId: 'run-8' },
        de: { id: 'tg-7', status: 'draft', fields: {}, idLists: {} },
      },
      exclusionGroups: {},
    };
    const removed = (d: DesiredStudy) => programStudy(d, observed).study.filter((s) => s.kind === 'complete_removed');
    expect(removed(one)).toEqual([{ kind: 'complete_removed', keys: ['uk'] }]);
    expect(removed({ ...one, removedTargetGroups: 'keep' })).toEqual([]);
    expect(removed({ ...one, removedTargetGroups: undefined })).toEqual([]);
  });

  it('digests a spec by its content, not its key order', () => {
    const a = tg('us');
    const b = { ...tg('us'), draft: Object.fromEntries(Object.entries(a.draft).reverse()) } as DesiredTargetGroup;
    expect(specDigest(a)).toBe(specDigest(b));
    expect(specDigest(a)).not.toBe(specDigest(tg('us', { launch: { mode: 'manual', requireFeasible: true } })));
  });
});

describe('timed and staged launches in the program', () => {
  const AT = '2026-12-07T08:00:00-05:00';
  const observedBefore: ObservedStudy = { ...empty, observedAt: '2026-12-01T00:00:00Z' };

  it('a timed launch ahead is its own workflow’s: gate, then the exchange’s schedule-from-draft job with its key', () => {
    const desired = study([tg('us', { launch: { mode: 'auto', requireFeasible: true, at: AT } })]);
    const program = programStudy(desired, observedBefore);
    expect(program.targetGroups[0].launch).toEqual({ by: 'target_group', reason: `timed launch: its workflow schedules it for ${AT}` });
    expect(stepsAfterHandOver(program.targetGroups[0].steps)).toEqual([
      { kind: 'read_gate', by: 'target_group' },
      { kind: 'schedule_launch', at: AT, idempotencyKey: 'study/1001/demo/tg/us/schedule-launch/{attempt}' },
    ]);
  });

  it('a timed launch on an api_version without schedule-from-draft waits on a durable timer, then reads the gate and launches', () => {
    const desired = study([tg('us', { launch: { mode: 'manual', requireFeasible: true, at: AT } })], { apiVersion: '2025-05-27' });
    const steps = stepsAfterHandOver(programStudy(desired, observedBefore).targetGroups[0].steps);
    expect(steps).toEqual([
      { kind: 'wait_until', at: AT },
      { kind: 'read_gate', by: 'target_group' },
      { kind: 'approve' },
      { kind: 'launch', by: 'target_group', idempotencyKey: 'study/1001/demo/tg/us/launch/{attempt}' },
    ]);
  });

  it('a timed launch whose moment has passed launches at once, as any automatic launch (by its draft batch)', () => {
    const desired = study([tg('us', { launch: { mode: 'auto', requireFeasible: true, at: AT } })]);
    const program = programStudy(desired, { ...empty, observedAt: '2026-12-08T00:00:00Z' });
    expect(program.targetGroups[0].launch.by).toBe('draft_batch');
    expect(programStudy(desired, { ...empty, observedAt: '2026-12-08T00:00:00Z' }).targetGroups[0].steps.some((s) => s.kind === 'schedule_launch' || s.kind === 'wait_until')).toBe(false);
  });

  it('a staged launch waits for the other target group’s completes first, then gate and launch', () => {
    const desired = study([tg('us'), tg('de', { launch: { mode: 'auto', requireFeasible: true, after: { targetGroup: 'us', completes: 50 } } })]);
    const program = programStudy(desired, observedBefore);
    const de = program.targetGroups.find((t) => t.key === 'de')!;
    expect(de.launch).toEqual({ by: 'target_group', reason: 'staged launch: its workflow holds it until us has 50 completes' });
    expect(stepsAfterHandOver(de.steps)).toEqual([
      { kind: 'wait_for_completes', targetGroup: 'us', completes: 50 },
      { kind: 'read_gate', by: 'target_group' },
      { kind: 'launch', by: 'target_group', idempotencyKey: 'study/1001/demo/tg/de/launch/{attempt}' },
    ]);
    // The target group it waits for launches as it would without it.
    expect(program.targetGroups.find((t) => t.key === 'us')!.launch.by).toBe('draft_batch');
  });

  it('a target group scheduled in the exchange is not launched again, and a running workflow with the same spec gets nothing', () => {
    const desired = study([tg('us', { launch: { mode: 'auto', requireFeasible: true, at: AT } })]);
    const scheduled: ObservedStudy = {
      ...observedBefore,
      project: { id: 'p-1', fields: { ...desired.project } },
      targetGroups: { us: { id: 'tg-1', status: 'scheduled', fields: { ...desired.targetGroups[0].draft }, idLists: {}, fieldingRun: { id: 'run-1', status: 'scheduled', startFieldingAt: AT } as never } },
    };
    const plan = planStudy(desired, scheduled);
    expect(plan.actions.filter((a) => a.key === 'us').map((a) => a.kind)).toEqual(['none', 'none']);
    expect(plan.actions).toContainEqual(expect.objectContaining({ key: 'us', resource: 'fielding', reason: `scheduled: goes live at ${AT}` }));
    const running = new Map([['us', { specDigest: specDigest(desired.targetGroups[0]), phase: 'scheduled' }]]);
    expect(stepsOf(desired, scheduled, running)).toEqual({ us: [] });
  });

  it('a changed launch.at while the run is scheduled is an in-place update_fielding_run of its start, not a second launch', () => {
    const moved = '2026-12-08T08:00:00-05:00';
    const desired = study([tg('us', { launch: { mode: 'auto', requireFeasible: true, at: moved } })]);
    const scheduled: ObservedStudy = {
      ...observedBefore,
      project: { id: 'p-1', fields: { ...desired.project } },
      targetGroups: { us: { id: 'tg-1', status: 'scheduled', fields: { ...desired.targetGroups[0].draft }, idLists: {}, fieldingRun: { id: 'run-1', status: 'scheduled', startFieldingAt: '2026-12-07T13:00:00.000Z' } as never } },
    };
    const writes = planStudy(desired, scheduled).actions.filter((a) => a.key === 'us' && a.kind !== 'none');
    expect(writes).toEqual([expect.objectContaining({ kind: 'update', operation: 'update_fielding_run', changes: [{ field: 'start_fielding_at', from: '2026-12-07T13:00:00.000Z', to: moved }] })]);
    // The same instant written another way is no change.
    const same = study([tg('us', { launch: { mode: 'auto', requireFeasible: true, at: AT } })]);
    expect(planStudy(same, { ...scheduled, targetGroups: { us: { ...scheduled.targetGroups.us, fields: { ...same.targetGroups[0].draft } } } }).hasChanges).toBe(false);
  });
});
