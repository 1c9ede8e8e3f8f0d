import { describe, expect, it } from 'vitest';
import { desiredStudy } from '../fixtures/desired-study';
import { BATCH_MAX } from '../../activities/batch';
import { planStudy } from '../../plan/plan-study';
import type { DesiredStudy, DesiredTargetGroup, ObservedStudy, PlannedAction } from '../../plan/types';
import { BATCH_SIZE, inBatches } from '../../plan/batches';
import { launchesAtOnce, launchesWithDraft, scheduleStudy, type StudySchedule } from '../../plan/schedule';

describe('inBatches', () => {
  it('splits in order into groups of at most the size, the last one shorter', () => {
    expect(inBatches([1, 2, 3, 4, 5], 2)).toEqual([[1, 2], [3, 4], [5]]);
    expect(inBatches([1, 2, 3, 4], 2)).toEqual([[1, 2], [3, 4]]);
    expect(inBatches([], 3)).toEqual([]);
  });

  it('uses BATCH_SIZE by default, which the batch activity accepts', () => {
    const keys = Array.from({ length: 2 * BATCH_SIZE + 1 }, (_, i) => `tg${i}`);
    expect(inBatches(keys).map((b) => b.length)).toEqual([BATCH_SIZE, BATCH_SIZE, 1]);
    expect(BATCH_SIZE).toBeLessThanOrEqual(BATCH_MAX);
  });

  it('refuses a size that is not a positive integer', () => {
    expect(() => inBatches([1], 0)).toThrow(RangeError);
    expect(() => inBatches([1], 1.5)).toThrow(/positive integer/);
  });
});

describe('launchesAtOnce', () => {
  const tg = (mode: 'auto' | 'manual') => ({ key: 'us', launch: { mode } }) as unknown as DesiredTargetGroup;
  const action = (kind: PlannedAction['kind'], resource: PlannedAction['resource']): PlannedAction => ({ kind, resource, key: 'us', reason: 'test' }) as PlannedAction;
  const launch = action('launch', 'fielding');

  it('is true for an automatic launch after nothing but the study’s own writes', () => {
    expect(launchesAtOnce(tg('auto'), [action('create', 'target_group'), action('add_to_group', 'exclusion_group'), launch])).toBe(true);
    expect(launchesAtOnce(tg('auto'), [action('none', 'profiles'), launch])).toBe(true);
  });

  it('is false without a launch, for a manual launch, or with work of the target group’s own before it', () => {
    expect(launchesAtOnce(tg('auto'), [action('create', 'target_group')])).toBe(false);
    expect(launchesAtOnce(tg('manual'), [action('create', 'target_group'), launch])).toBe(false);
    expect(launchesAtOnce(tg('auto'), [action('update', 'profiles'), launch])).toBe(false);
    expect(launchesAtOnce(tg('auto'), [action('upload', 'id_list'), launch])).toBe(false);
    expect(launchesAtOnce(tg('auto'), [action('upload', 'recontact_list'), launch])).toBe(false);
    expect(launchesAtOnce(tg('auto'), [action('blocked', 'target_group'), launch])).toBe(false);
  });
});

describe('launchesWithDraft', () => {
  const tg = (mode: 'auto' | 'manual') => ({ key: 'us', launch: { mode } }) as unknown as DesiredTargetGroup;
  const action = (kind: PlannedAction['kind'], resource: PlannedAction['resource']): PlannedAction => ({ kind, resource, key: 'us', reason: 'test' }) as PlannedAction;
  const launch = action('launch', 'fielding');

  it('is true for a new draft launched automatically with nothing the study writes between its draft and its launch', () => {
    expect(launchesWithDraft(tg('auto'), [action('create', 'target_group'), launch])).toBe(true);
    expect(launchesWithDraft(tg('auto'), [action('create', 'target_group'), action('create', 'activity_exclusions'), action('none', 'profiles'), launch])).toBe(true);
  });

  it('is false when the study writes a membership or an update between them, or when it does not launch at once', () => {
    expect(launchesWithDraft(tg('auto'), [action('create', 'target_group'), action('add_to_group', 'exclusion_group'), launch])).toBe(false);
    expect(launchesWithDraft(tg('auto'), [action('update', 'target_group'), launch])).toBe(false);
    expect(launchesWithDraft(tg('manual'), [action('create', 'target_group'), launch])).toBe(false);
    expect(launchesWithDraft(tg('auto'), [action('create', 'target_group'), action('upload', 'id_list'), launch])).toBe(false);
  });
});

describe('scheduleStudy', () => {
  const timing = { jobPollInitialMs: 100, jobPollMaxMs: 1000, jobTimeoutMs: 60_000, launchRetries: 3, watchIntervalMs: 60_000 };
  const tgOf = (key: string, patch: Partial<DesiredTargetGroup> = {}): DesiredTargetGroup => ({
    key,
    draft: { name: key, locale: 'en_US', expected_incidence_rate: 0.4, expected_length_of_interview_minutes: 10, filling_goal: 200, project_manager_id: '6f1c2a4e-3001-4c8e-9d2b-000000003001', collects_pii: false },
    idLists: {},
    exclusionGroups: [],
    launch: { mode: 'auto', requireFeasible: true },
    timing,
    ...patch,
  });
  const studyOf = desiredStudy;
  const empty: ObservedStudy = { targetGroups: {}, exclusionGroups: {} };
  const schedule = (desired: DesiredStudy, observed: ObservedStudy = empty, running: string[] = []) => scheduleStudy(desired, planStudy(desired, observed), observed, new Set(running));
  const launcher = (s: StudySchedule) => Object.fromEntries(s.targetGroups.map((t) => [t.key, t.launch.by]));

  it('gives a new automatic target group with nothing between draft and launch to its draft batch, and reads its gate beside the project', () => {
    const s = schedule(studyOf([tgOf('us')]));
    expect(s.project).toBe('create');
    expect(s.draftBatches).toEqual([['us']]);
    expect(launcher(s)).toEqual({ us: 'draft_batch' });
    expect(s.gateReads).toEqual(['us']);
    expect(s.targetGroups[0].launch.reason).toMatch(/new draft with nothing to write before its launch/);
  });

  it('gives the study a target group that joins an exclusion group, and its own workflow one with lists or a manual launch; profiles travel in the draft', () => {
    const desired = studyOf(
      [
        tgOf('grouped', { exclusionGroups: ['waves'] }),
        tgOf('listed', { idLists: { RSID: { ref: 'sha256:ab', sha256: 'ab', count: 3 } } }),
        tgOf('profiled', { profiles: [{ question_id: 42 }] }),
        tgOf('manual', { launch: { mode: 'manual', requireFeasible: false } }),
      ],
      { exclusionGroups: [{ name: 'waves', title: 'Waves', targetGroups: ['grouped'] }] },
    );
    const s = schedule(desired);
    expect(launcher(s)).toEqual({ grouped: 'study', listed: 'target_group', profiled: 'draft_batch', manual: 'target_group' });
    expect(s.memberships).toEqual([{ group: 'waves', add: ['grouped'], remove: [] }]);
    expect(s.exclusionGroups).toEqual(['waves']);
    expect(s.gateReads).toEqual(['grouped', 'profiled']);
    expect(s.targetGroups.find((t) => t.key === 'listed')?.launch.reason).toMatch(/first has to upload 3 IDs to the RSID exclusion list/);
    expect(s.targetGroups.find((t) => t.key === 'manual')?.launch.reason).toMatch(/approve/);
  });

  it('needs a second pass for activity exclusions that name a target group created in the same apply, and the study launches it after', () => {
    const desired = studyOf([tgOf('a'), tgOf('b', { activityExclusions: { items: [{ ref: { type: 'target_group', key: 'a' } }] } })]);
    const s = schedule(desired);
    expect(s.secondPass).toEqual(['b']);
    expect(launcher(s)).toEqual({ a: 'draft_batch', b: 'study' });
    // Once `a` exists, the reference resolves at once: no second pass, the draft batch launches `b`.
    const observed: ObservedStudy = { project: { id: 'p1', fields: desired.project }, targetGroups: { a: { id: 'tg-a', status: 'live', fields: desired.targetGroups[0].draft, idLists: {} } }, exclusionGroups: {} };
    const again = schedule(desired, observed);
    expect(again.secondPass).toEqual([]);
    expect(launcher(again)).toEqual({ a: 'none', b: 'draft_batch' });
  });

  it('leaves a target group whose workflow runs to that workflow, and launches nothing that is live', () => {
    const desired = studyOf([tgOf('us'), tgOf('uk')]);
    const observed: ObservedStudy = {
      project: { id: 'p1', fields: desired.project },
      targetGroups: {
        us: { id: 'tg-us', status: 'draft', fields: desired.targetGroups[0].draft, idLists: {} },
        uk: { id: 'tg-uk', status: 'live', fields: desired.targetGroups[1].draft, idLists: {} },
      },
      exclusionGroups: {},
    };
    expect(launcher(schedule(desired, observed, ['us']))).toEqual({ us: 'target_group', uk: 'none' });
    // A draft without a running workflow (its earlier revision was superseded) is launched by the study.
    expect(launcher(schedule(desired, observed))).toEqual({ us: 'study', uk: 'none' });
  });

  it('puts new drafts in batches of BATCH_SIZE in the study’s order', () => {
    const tgs = Array.from({ length: BATCH_SIZE + 3 }, (_, i) => tgOf(`tg${String(i).padStart(3, '0')}`));
    const s = schedule(studyOf(tgs));
    expect(s.draftBatches.map((b) => b.length)).toEqual([BATCH_SIZE, 3]);
    expect(s.draftBatches.flat()).toEqual(tgs.map((t) => t.key));
    expect(s.targetGroups.find((t) => t.key === tgs[BATCH_SIZE].key)?.batch).toBe(1);
  });
});
