// Plans for launched target groups: each change kind as an in-place update through its operation, the declared
// fielding state, removed target groups, timed and staged launches, blocked fields, and the plan's exit code.
// Each kind's human plan is a golden file (test/cli/golden/plan-live/<kind>.txt; UPDATE_GOLDEN=1 rewrites them).
import { describe, expect, it } from 'vitest';
import { renderPlanHuman } from '../../cli/plan-view';
import { Output } from '../../cli/output';
import { planStudy } from '../../plan';
import { canonicalJson } from '../../plan/compare';
import { planExitCode } from '../../plan/exit-code';
import { judgeLiveGate, liveGateHold, liveGateHoldText, liveGateLine, liveGateReading } from '../../plan/live-gates';
import type { DesiredStudy, DesiredTargetGroup, ObservedStudy, ObservedTargetGroup, PlannedAction, StudyPlan } from '../../plan/types';
import { expectGolden } from '../cli/golden';

const timing = { jobPollInitialMs: 100, jobPollMaxMs: 1000, jobTimeoutMs: 60_000, launchRetries: 3, watchIntervalMs: 60_000 };
const PM = '6f1c2a4e-3001-4c8e-9d2b-000000003001';
const END = '2026-12-01T00:00:00.000Z';
const allocations = { open_exchange_allocations: { exchange_min_percentage: 0, exchange_max_percentage: 100, blocked_supplier_ids: [], groups: [] } };
const quotaProfile = (men: number, women: number) => ({
  object: 'regular',
  name: 'gender',
  quotas_enabled: true,
  targets: [
    { conditions: [{ object: 'selection', question_id: 43, option: '1' }], quota: { name: 'men', completes_goal: men } },
    { conditions: [{ object: 'selection', question_id: 43, option: '2' }], quota: { name: 'women', completes_goal: women } },
  ],
});

function tg(key: string, patch: Partial<DesiredTargetGroup> = {}, draft: Record<string, unknown> = {}): DesiredTargetGroup {
  return {
    key,
    draft: {
      name: `Tracker ${key}`,
      locale: 'en_US',
      live_url: `https://s.example.com/${key}?rid=[%RID%]`,
      expected_incidence_rate: 0.4,
      expected_length_of_interview_minutes: 10,
      filling_goal: 200,
      project_manager_id: PM,
      collects_pii: false,
      target_group_customer_reference_number: `tracker_${key}`,
      allocations,
      ...draft,
    },
    idLists: {},
    exclusionGroups: [],
    launch: { mode: 'manual', requireFeasible: true, maxCpi: { value: '6.00', currency_code: 'USD' }, endFieldingAt: END },
    timing,
    ...patch,
  };
}

function study(targetGroups: DesiredTargetGroup[], patch: Partial<DesiredStudy> = {}): DesiredStudy {
  return {
    studyId: 'tracker',
    accountId: '1001',
    businessUnitId: '2001',
    apiVersion: '2025-12-18',
    revision: 'r1',
    project: { name: 'Tracker project', project_manager_id: PM, project_customer_reference_number: 'PO-1' },
    targetGroups,
    exclusionGroups: [],
    webhooks: [],
    ...patch,
  };
}

/** What the exchange holds for a launched target group that matches `desired`, then `patch`. */
function liveTg(desired: DesiredTargetGroup, patch: Partial<ObservedTargetGroup> = {}): ObservedTargetGroup {
  const d = desired.draft;
  return {
    id: `tg-${desired.key}`,
    status: 'live',
    fields: { ...d },
    idLists: {},
    fieldingRunId: `fr-${desired.key}`,
    fieldingRun: { id: `fr-${desired.key}`, status: 'live', startFieldingAt: '2026-11-01T00:00:00.000Z', endFieldingAt: END, etag: '"3"' },
    fillingGoal: { completesGoal: d.filling_goal as number },
    details: {
      name: d.name as string,
      project_manager_id: PM,
      expected_length_of_interview_minutes: d.expected_length_of_interview_minutes as number,
      expected_incidence_rate: d.expected_incidence_rate as number,
      live_url: d.live_url as string,
      test_url: null,
      target_group_customer_reference_number: d.target_group_customer_reference_number as string,
      industry_lockout_code: 'no_lockout',
    },
    costPerInterview: { value: '3.10', currency_code: 'USD' },
    allocations: structuredClone(allocations),
    fieldingAssistant: { assignment: {}, etag: '"1"' },
    completes: 40,
    ...patch,
  };
}

function observedOf(groups: Record<string, ObservedTargetGroup>): ObservedStudy {
  return {
    project: { id: 'p1', fields: { ...study([]).project } },
    targetGroups: groups,
    exclusionGroups: {},
    observedAt: '2026-11-20T12:00:00.000Z',
  };
}

const out = new Output({ stdout: process.stdout, stderr: process.stderr }, { NO_COLOR: '1' });
const render = (plan: StudyPlan) => `${renderPlanHuman(out, 'study tracker', plan)}\n--- plan --detailed-exitcode: ${planExitCode([plan])}\n`;
const of = (plan: StudyPlan, key = 'us') => plan.actions.filter((a) => a.key === key && a.resource !== 'project');
const writes = (actions: PlannedAction[]) => actions.filter((a) => !['none', 'check', 'blocked'].includes(a.kind));

describe('live target groups: in-place changes', () => {
  it('goal raise: a feasibility check of the live group, then update_profile_filling_goal', () => {
    const base = tg('us');
    const plan = planStudy(study([tg('us', {}, { filling_goal: 300 })]), observedOf({ us: liveTg(base) }));
    const [check, update] = of(plan).filter((a) => a.kind !== 'none');
    expect(check).toMatchObject({
      kind: 'check',
      resource: 'feasibility',
      operation: 'calculate_target_group_feasibility_by_id',
      gate: { requireFeasible: true, maxCpi: { value: '6.00' }, approval: true, because: ['raising filling_goal 200 -> 300'], request: { completes_goal: 300 } },
    });
    expect(update).toMatchObject({ kind: 'update', resource: 'live_target_group', operation: 'update_profile_filling_goal', changes: [{ field: 'filling_goal', from: 200, to: 300 }] });
    expect(planExitCode([plan])).toBe(2);
    expectGolden('plan-live/goal-raise', render(plan));
  });

  it('quota goal: update_profile_filling_goal carries the nominal quota goals, not a replacement of the profiles', () => {
    const before = tg('us', { profiles: [quotaProfile(100, 100)] });
    const after = tg('us', { profiles: [quotaProfile(80, 120)] });
    const quotas = [
      { profileId: 'pr-1', profileName: 'gender', quotaId: '01HQ0000000000000000000001', quotaName: 'men', completesGoal: 100 },
      { profileId: 'pr-1', profileName: 'gender', quotaId: '01HQ0000000000000000000002', quotaName: 'women', completesGoal: 100 },
    ];
    const plan = planStudy(study([after]), observedOf({ us: liveTg(before, { fillingGoal: { completesGoal: 200, quotas } }) }));
    expect(writes(of(plan))).toEqual([
      expect.objectContaining({
        operation: 'update_profile_filling_goal',
        changes: [
          { field: 'profiles.gender.men.completes_goal', from: 100, to: 80 },
          { field: 'profiles.gender.women.completes_goal', from: 100, to: 120 },
        ],
      }),
    ]);
    expectGolden('plan-live/quota-goal', render(plan));
  });

  it('window move: a later end is update_fielding_run with no check; an earlier end is checked first', () => {
    const later = planStudy(study([tg('us', { launch: { ...tg('us').launch, endFieldingAt: '2026-12-08T00:00:00.000Z' } })]), observedOf({ us: liveTg(tg('us')) }));
    expect(of(later).some((a) => a.kind === 'check')).toBe(false);
    expect(writes(of(later))).toEqual([
      expect.objectContaining({ operation: 'update_fielding_run', changes: [{ field: 'end_fielding_at', from: END, to: '2026-12-08T00:00:00.000Z' }] }),
    ]);
    expectGolden('plan-live/window-move', render(later));
    const earlier = planStudy(study([tg('us', { launch: { ...tg('us').launch, endFieldingAt: '2026-11-25T00:00:00.000Z' } })]), observedOf({ us: liveTg(tg('us')) }));
    expect(of(earlier).find((a) => a.kind === 'check')).toMatchObject({
      gate: { because: ['shortening the window to end 2026-11-25T00:00:00.000Z'], request: { completes_goal: 200, start_at: '2026-11-01T00:00:00.000Z', end_at: '2026-11-25T00:00:00.000Z' } },
    });
  });

  it('a scheduled run moves its start too (the launch time), a started run only its end', () => {
    const desired = tg('us', { launch: { ...tg('us').launch, at: '2026-11-23T13:00:00Z' } });
    const scheduled = liveTg(tg('us'), { status: 'scheduled', fieldingRun: { id: 'fr-us', status: 'scheduled', startFieldingAt: '2026-11-22T13:00:00.000Z', endFieldingAt: END } });
    expect(writes(of(planStudy(study([desired]), observedOf({ us: scheduled }))))).toEqual([
      expect.objectContaining({ operation: 'update_fielding_run', changes: [{ field: 'start_fielding_at', from: '2026-11-22T13:00:00.000Z', to: '2026-11-23T13:00:00Z' }] }),
    ]);
    expect(writes(of(planStudy(study([desired]), observedOf({ us: liveTg(tg('us')) }))))).toEqual([]);
  });

  it('details: name, live URL and the rest in one update_launched_target_group_details', () => {
    const plan = planStudy(study([tg('us', {}, { name: 'Tracker us (wave 2)', live_url: 'https://s.example.com/us2?rid=[%RID%]', expected_length_of_interview_minutes: 12 })]), observedOf({ us: liveTg(tg('us')) }));
    const [update] = writes(of(plan));
    expect(update).toMatchObject({ operation: 'update_launched_target_group_details' });
    expect(update.changes?.map((c) => c.field)).toEqual(['name', 'live_url', 'expected_length_of_interview_minutes']);
    expectGolden('plan-live/details', render(plan));
  });

  it('allocations: a recontact draft\'s template is not compared once launched (the specification neither shows nor takes it)', () => {
    const recontact = tg('us', {}, { allocations: { ...allocations, template_id: 'recontact-global' } });
    expect(writes(of(planStudy(study([recontact]), observedOf({ us: liveTg(tg('us')) }))))).toEqual([]);
    const blocked = tg('us', {}, { allocations: { open_exchange_allocations: { ...allocations.open_exchange_allocations, blocked_supplier_ids: ['7'] }, template_id: 'recontact-global' } });
    const [update] = writes(of(planStudy(study([blocked]), observedOf({ us: liveTg(tg('us')) }))));
    expect(update).toMatchObject({ operation: 'update_target_group_allocation_specification', changes: [{ field: 'allocations', to: { open_exchange_allocations: { blocked_supplier_ids: ['7'] } } }] });
    expect(update.changes?.[0].to).not.toHaveProperty('template_id');
  });

  it('CPI: update_cost_per_interview when the amount differs (3.1 and 3.10 are equal)', () => {
    const plan = planStudy(study([tg('us', { costPerInterview: { value: '3.50', currency_code: 'USD' } })]), observedOf({ us: liveTg(tg('us')) }));
    expect(writes(of(plan))).toEqual([expect.objectContaining({ operation: 'update_cost_per_interview', changes: [{ field: 'cost_per_interview', from: { value: '3.10', currency_code: 'USD' }, to: { value: '3.50', currency_code: 'USD' } }] })]);
    expectGolden('plan-live/cpi', render(plan));
    const same = planStudy(study([tg('us', { costPerInterview: { value: '3.1', currency_code: 'USD' } })]), observedOf({ us: liveTg(tg('us')) }));
    expect(same.hasChanges).toBe(false);
  });

  it('allocation: update_target_group_allocation_specification', () => {
    const narrower = { open_exchange_allocations: { ...allocations.open_exchange_allocations, exchange_max_percentage: 90, blocked_supplier_ids: ['421'] } };
    const plan = planStudy(study([tg('us', {}, { allocations: narrower })]), observedOf({ us: liveTg(tg('us')) }));
    expect(writes(of(plan))).toEqual([expect.objectContaining({ operation: 'update_target_group_allocation_specification' })]);
    expectGolden('plan-live/allocation', render(plan));
  });

  it('fielding assistant: create_or_update_fielding_assistant_assignment', () => {
    const plan = planStudy(
      study([tg('us', {}, { fielding_assistant_assignment: { quota_overlay: { prevent_overfill: true, balance_fill: false } } })]),
      observedOf({ us: liveTg(tg('us')) }),
    );
    expect(writes(of(plan))).toEqual([expect.objectContaining({ operation: 'create_or_update_fielding_assistant_assignment' })]);
    expectGolden('plan-live/fielding-assistant', render(plan));
  });

  it('blocked field: a new locale cannot be applied; the plan says why and exits 3', () => {
    const plan = planStudy(study([tg('us', {}, { locale: 'en_GB', filling_goal: 150 })]), observedOf({ us: liveTg(tg('us')) }));
    expect(of(plan).find((a) => a.kind === 'blocked')).toMatchObject({
      resource: 'live_target_group',
      changes: [{ field: 'locale', from: 'en_US', to: 'en_GB' }],
      reason: expect.stringMatching(/^locale cannot change after the launch: the country and language/),
    });
    // What can change still does.
    expect(writes(of(plan))).toEqual([expect.objectContaining({ operation: 'update_profile_filling_goal' })]);
    expect(planExitCode([plan])).toBe(3);
    expectGolden('plan-live/blocked-field', render(plan));
  });

  it('a field the read does not carry is not compared; re-plan of the exchange\'s own state writes nothing', () => {
    const plan = planStudy(study([tg('us')]), observedOf({ us: liveTg(tg('us'), { allocations: undefined, fieldsRead: ['name'] }) }));
    expect(plan.hasChanges).toBe(false);
    expect(planExitCode([plan])).toBe(0);
  });
});

describe('live target groups: the declared fielding state', () => {
  const run = (status: 'live' | 'paused' | 'completed' | 'scheduled', patch: Partial<ObservedTargetGroup> = {}) =>
    liveTg(tg('us'), { status, fieldingRun: { id: 'fr-us', status, startFieldingAt: '2026-11-01T00:00:00.000Z', endFieldingAt: END, etag: '"3"' }, ...patch });

  it('pause: a live run the file declares paused', () => {
    const plan = planStudy(study([tg('us', { fielding: 'paused' })]), observedOf({ us: run('live') }));
    expect(writes(of(plan))).toEqual([expect.objectContaining({ kind: 'pause', resource: 'fielding', operation: 'pause_fielding_run', drift: true })]);
    expectGolden('plan-live/pause', render(plan));
    // Re-apply after the pause: nothing to write.
    expect(planStudy(study([tg('us', { fielding: 'paused' })]), observedOf({ us: run('paused') })).hasChanges).toBe(false);
  });

  it('resume: paused in the exchange while the file says live is drift, resumed first', () => {
    const plan = planStudy(study([tg('us', {}, { filling_goal: 180 })]), observedOf({ us: run('paused') }));
    const kinds = of(plan).filter((a) => a.kind !== 'none').map((a) => a.kind);
    expect(kinds).toEqual(['resume', 'update']);
    expect(of(plan)[0]).toMatchObject({ operation: 'resume_fielding_run', drift: true, reason: expect.stringContaining('paused in the exchange, `fielding: live` in the file') });
    expectGolden('plan-live/resume', render(plan));
    // The exchange resumes no run whose goal is reached: blocked, saying so.
    const full = planStudy(study([tg('us')]), observedOf({ us: run('paused', { completes: 200 }) }));
    expect(of(full).find((a) => a.kind === 'blocked')?.reason).toMatch(/goal is reached \(200 of 200\)/);
  });

  it('a guard\'s hold: paused by a guard, `fielding: live` plans no resume until the guard changes (then it resumes, not as drift)', () => {
    const guard = { name: 'low_incidence', kind: 'incidence_below' as const, fraction: 0.5, expectedIncidenceRate: 0.35, minEntrants: 200, action: 'pause' as const };
    const evidence = { guard: 'low_incidence', kind: 'incidence_below' as const, definition: canonicalJson(guard), at: '2026-11-20T11:00:00.000Z', text: 'incidence 0.1 is below 0.175 (0.5 of the expected 0.35) after 240 entrants' };
    const held = run('paused', { guardHold: { guards: [evidence] } });
    const plan = planStudy(study([tg('us', { fielding: 'live', guards: [guard] })]), observedOf({ us: held }));
    expect(plan.hasChanges).toBe(false);
    expect(writes(of(plan))).toEqual([]);
    expect(of(plan).find((a) => a.resource === 'fielding')?.reason).toBe(`paused, held by guard low_incidence (tripped at ${evidence.at}: ${evidence.text}); \`fielding: live\` in the file does not resume it: \`studyflow approve --resume\`, or change the guard`);
    // A revision that changes the guard (here its fraction) re-arms it: the run is resumed, and that is no drift.
    const changed = planStudy(study([tg('us', { guards: [{ ...guard, fraction: 0.25 }] })]), observedOf({ us: held }));
    expect(writes(of(changed))).toEqual([expect.objectContaining({ kind: 'resume', operation: 'resume_fielding_run', reason: 'guard low_incidence changed in the file: re-armed; resume the fielding run it paused' })]);
    expect(writes(of(changed))[0].drift).toBeUndefined();
    // Dropping the guard releases it too; the exchange's own refusal still holds (a goal reached).
    expect(writes(of(planStudy(study([tg('us')]), observedOf({ us: held }))))).toEqual([expect.objectContaining({ kind: 'resume' })]);
    const full = planStudy(study([tg('us')]), observedOf({ us: run('paused', { completes: 200, guardHold: { guards: [evidence] } }) }));
    expect(of(full).find((a) => a.kind === 'blocked')?.reason).toMatch(/^guard low_incidence changed: re-armed, but .*goal is reached \(200 of 200\)/);
    // `fielding: paused` with a hold is what the file says: nothing to do.
    expect(planStudy(study([tg('us', { fielding: 'paused', guards: [guard] })]), observedOf({ us: held })).hasChanges).toBe(false);
  });

  it('a soft launch\'s hold: paused by its soft launch (judged, aborted, or the module\'s end), `fielding: live` plans no resume; promoted, the file rules again', () => {
    for (const state of ['awaiting_decision', 'paused', 'running', 'starting', 'aborted'] as const) {
      const plan = planStudy(study([tg('us')]), observedOf({ us: run('paused', { softLaunch: state }) }));
      expect(plan.hasChanges, state).toBe(false);
      expect(of(plan).find((a) => a.resource === 'fielding')?.reason).toBe(
        `paused by its soft launch (${state.replace('_', ' ')}); \`fielding: live\` in the file does not resume it: \`studyflow approve --promote\` or \`--abort\``,
      );
    }
    // Promoted (or only analysed), a paused run is the file's again: `fielding: live` resumes it (as drift).
    for (const state of ['promoted', 'analysed'] as const) {
      expect(writes(of(planStudy(study([tg('us')]), observedOf({ us: run('paused', { softLaunch: state }) })))), state).toEqual([expect.objectContaining({ kind: 'resume', drift: true })]);
    }
    // `fielding: paused` or `completed` in the file is not held back by a soft launch.
    expect(planStudy(study([tg('us', { fielding: 'paused' })]), observedOf({ us: run('paused', { softLaunch: 'awaiting_decision' }) })).hasChanges).toBe(false);
    expect(writes(of(planStudy(study([tg('us', { fielding: 'paused' })]), observedOf({ us: run('live', { softLaunch: 'running' }) }))))).toEqual([expect.objectContaining({ kind: 'pause' })]);
  });

  it('complete: a live run the file declares completed; its other changes wait', () => {
    const plan = planStudy(study([tg('us', { fielding: 'completed' }, { filling_goal: 250 })]), observedOf({ us: run('live') }));
    expect(writes(of(plan))).toEqual([expect.objectContaining({ kind: 'complete', operation: 'complete_fielding_run' })]);
    expectGolden('plan-live/complete', render(plan));
  });

  it('completed is final: left alone when the file says nothing, relaunched when it writes fielding: live', () => {
    const quiet = planStudy(study([tg('us')]), observedOf({ us: run('completed') }));
    expect(quiet.hasChanges).toBe(false);
    expect(of(quiet).find((a) => a.resource === 'fielding')?.reason).toMatch(/final \(write `fielding: live` to relaunch it\)/);
    const plan = planStudy(study([tg('us', { fielding: 'live' })]), observedOf({ us: run('completed') }));
    expect(writes(of(plan))).toEqual([expect.objectContaining({ kind: 'relaunch', operation: 'relaunch_fielding_run' })]);
    expectGolden('plan-live/relaunch', render(plan));
    // Completed by its end date or its goal, `fielding: live` is met: no relaunch, no blocked change, plan exit 0 (issue
    // 35: a routine CI re-apply of examples/lifecycle-tracker relaunched a group the exchange completed at its goal).
    const ended = planStudy(study([tg('us', { fielding: 'live' })]), { ...observedOf({ us: run('completed') }), observedAt: '2026-12-02T00:00:00.000Z' });
    expect(of(ended).find((a) => a.resource === 'fielding')).toMatchObject({ kind: 'none', reason: expect.stringMatching(/window ended at 2026-12-01.*relaunches it once the file raises filling_goal or moves end_fielding_at later/) });
    expect(planExitCode([ended])).toBe(0);
    const atGoal = planStudy(study([tg('us', { fielding: 'live' })]), observedOf({ us: run('completed', { completes: 200 }) }));
    expect(of(atGoal).find((a) => a.resource === 'fielding')).toMatchObject({ kind: 'none', reason: expect.stringMatching(/completes goal is reached \(200 of 200\)/) });
    expect(atGoal.hasChanges).toBe(false);
  });

  it('a completed target group is not changed in place unless relaunched: the change is blocked', () => {
    const plan = planStudy(study([tg('us', {}, { filling_goal: 300 })]), observedOf({ us: run('completed') }));
    expect(of(plan).find((a) => a.kind === 'blocked')).toMatchObject({ operation: 'update_profile_filling_goal', reason: expect.stringMatching(/completed/) });
    expect(planExitCode([plan])).toBe(3);
  });

  it('a draft declared paused or completed is not launched', () => {
    const draft = liveTg(tg('us'), { status: 'draft', fieldingRun: undefined });
    for (const fielding of ['paused', 'completed'] as const) {
      const plan = planStudy(study([tg('us', { fielding })]), observedOf({ us: draft }));
      expect(of(plan).find((a) => a.resource === 'fielding')).toMatchObject({ kind: 'none', reason: expect.stringMatching(/^not launched/) });
    }
  });
});

describe('removed target groups', () => {
  it('keep (implicit): named with its state, left fielding, and a warning note', () => {
    const plan = planStudy(study([tg('us')]), observedOf({ us: liveTg(tg('us')), uk: liveTg(tg('uk')) }));
    expect(of(plan, 'uk')).toEqual([expect.objectContaining({ kind: 'none', resource: 'fielding', reason: expect.stringMatching(/^removed from the file; live in the exchange, 40 completes: kept fielding/) })]);
    expect(plan.notes).toEqual([expect.objectContaining({ severity: 'warning', key: 'uk' })]);
    expectGolden('plan-live/removed-keep', render(plan));
    expect(planStudy(study([tg('us')], { removedTargetGroups: 'keep' }), observedOf({ us: liveTg(tg('us')), uk: liveTg(tg('uk')) })).notes).toBeUndefined();
  });

  it('complete: a removed live target group is completed', () => {
    const plan = planStudy(study([tg('us')], { removedTargetGroups: 'complete' }), observedOf({ us: liveTg(tg('us')), uk: liveTg(tg('uk')) }));
    expect(of(plan, 'uk')).toEqual([expect.objectContaining({ kind: 'complete', operation: 'complete_fielding_run' })]);
    expectGolden('plan-live/removed-complete', render(plan));
  });

  it('a renamed target group (moved_from) is not removed', () => {
    const plan = planStudy(study([tg('us_gen_pop', { movedFrom: 'us' }, { name: 'Tracker us', live_url: 'https://s.example.com/us?rid=[%RID%]', target_group_customer_reference_number: 'tracker_us_gen_pop' })]), observedOf({ us: liveTg(tg('us')) }));
    expect(plan.actions.filter((a) => a.key === 'us')).toEqual([]);
    expect(writes(of(plan, 'us_gen_pop'))).toEqual([expect.objectContaining({ operation: 'update_launched_target_group_details', changes: [expect.objectContaining({ field: 'target_group_customer_reference_number' })] })]);
  });
});

describe('timed and staged launches', () => {
  it('launch at: the launch action carries the time and the schedule-from-draft operation', () => {
    const plan = planStudy(study([tg('us', { launch: { ...tg('us').launch, at: '2026-12-07T08:00:00-05:00' } })]), observedOf({}));
    const launch = of(plan).find((a) => a.kind === 'launch');
    expect(launch).toMatchObject({ launchAt: '2026-12-07T08:00:00-05:00', operation: 'create_schedule_fielding_run_from_draft_job', reason: expect.stringContaining('launches at 2026-12-07T08:00:00-05:00') });
    expectGolden('plan-live/launch-at', render(plan));
  });

  it('launch after: held until another target group has N completes, showing how many it has', () => {
    const de = tg('de', { launch: { ...tg('de').launch, after: { targetGroup: 'us', completes: 50 } } });
    const plan = planStudy(study([de, tg('us')]), observedOf({ us: liveTg(tg('us')) }));
    expect(of(plan, 'de').find((a) => a.kind === 'launch')).toMatchObject({ launchAfter: { targetGroup: 'us', completes: 50 }, reason: expect.stringContaining('launches after us has 50 completes (it has 40)') });
    expectGolden('plan-live/launch-after', render(plan));
  });
});

describe('planExitCode', () => {
  const plan = (actions: PlannedAction[], hasChanges: boolean): StudyPlan => ({ studyId: 's', revision: 'r', actions, hasChanges });
  it('0 nothing, 2 pending, 3 when some change cannot be applied (even beside pending ones)', () => {
    const none = plan([{ kind: 'none', resource: 'project', key: 's', reason: 'match' }], false);
    const pending = plan([{ kind: 'update', resource: 'project', key: 's', reason: 'x' }], true);
    const blocked = plan([{ kind: 'blocked', resource: 'live_target_group', key: 'us', reason: 'locale' }], false);
    expect(planExitCode([none])).toBe(0);
    expect(planExitCode([none, pending])).toBe(2);
    expect(planExitCode([pending, blocked])).toBe(3);
  });
});

describe('judgeLiveGate', () => {
  const desired = tg('us', {}, { filling_goal: 300 });
  const gate = planStudy(study([desired]), observedOf({ us: liveTg(tg('us')) })).actions.find((a) => a.kind === 'check')!.gate!;
  const answer = (max: number, price: string) => ({ suggested_completes_goal_range: { min: 10, max }, suggested_price: { value: price, currency_code: 'USD' } });

  it('judges as data: a feasible raise under max_cpi waits for approval (launch.mode manual) until it is approved', () => {
    const judged = judgeLiveGate(desired, gate, answer(420, '4.10'));
    expect(judged).toMatchObject({ because: ['raising filling_goal 200 -> 300'], failures: [], waitsForApproval: true, verdict: { feasible: true, feasibleCompletes: 420 } });
    expect(liveGateHold(judged, false)).toEqual({ held: 'waits_for_approval' });
    expect(liveGateHold(judged, true)).toBeUndefined();
    // The lines are rendered from the judgement: the reading alone (the unapplied detail), and with its outcome (the plan).
    expect(liveGateReading(judged)).toBe('raising filling_goal 200 -> 300: feasible (up to 420 completes), suggested price 4.10 USD');
    expect(liveGateLine(judged)).toBe('raising filling_goal 200 -> 300: feasible (up to 420 completes), suggested price 4.10 USD; waits for approval');
  });

  it('an infeasible raise, or one priced above max_cpi, is refused with the gate\'s reasons, approved or not', () => {
    const infeasible = judgeLiveGate(desired, gate, answer(250, '4.10'));
    expect(infeasible.failures).toEqual(['infeasible: at most 250 completes in the fielding window for a filling_goal of 300']);
    expect(infeasible.waitsForApproval).toBe(false);
    expect(liveGateHold(infeasible, true)).toEqual({ held: 'refused', failures: infeasible.failures });
    const dear = judgeLiveGate(desired, gate, answer(420, '7.00'));
    expect(liveGateHoldText(liveGateHold(dear, false)!)).toBe('suggested price 7.00 USD is above max_cpi 6.00');
    expect(liveGateReading(dear)).toBe('raising filling_goal 200 -> 300: feasible (up to 420 completes), suggested price 7.00 USD');
    expect(liveGateLine(dear)).toBe('raising filling_goal 200 -> 300: feasible (up to 420 completes), suggested price 7.00 USD; held: suggested price 7.00 USD is above max_cpi 6.00');
    const free = judgeLiveGate(desired, { ...gate, requireFeasible: false, maxCpi: undefined, approval: false }, answer(250, '7.00'));
    expect(liveGateHold(free, false)).toBeUndefined();
    expect(liveGateLine(free)).toMatch(/infeasible .*; may be written$/);
  });
});
