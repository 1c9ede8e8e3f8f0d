import { describe, expect, it } from 'vitest';
import { desiredStudy, desiredTargetGroup } from '../fixtures/desired-study';
import { planStudy, isWrite } from '../../plan';
import { holdsDesired, canonicalJson } from '../../plan/compare';
import { profilingOf } from '../../plan/profiling';
import type { DesiredTargetGroup, ObservedStudy, ObservedTargetGroup } from '../../plan/types';

const tg = (key: string, patch: Partial<DesiredTargetGroup> = {}): DesiredTargetGroup => desiredTargetGroup(key, patch);
const study = desiredStudy;

function observedTg(desired: DesiredTargetGroup, patch: Partial<ObservedTargetGroup> = {}): ObservedTargetGroup {
  return {
    id: `tg-${desired.key}`,
    status: 'draft',
    fields: { ...desired.draft, id: `tg-${desired.key}`, created_at: '2026-11-01T00:00:00Z' },
    idLists: {},
    ...patch,
  };
}

const empty: ObservedStudy = { targetGroups: {}, exclusionGroups: {} };

describe('planStudy', () => {
  it('plans a new project, draft and launch for an empty remote, in dependency order', () => {
    const plan = planStudy(study([tg('us')]), empty);
    expect(plan.actions.map((a) => `${a.kind}:${a.resource}:${a.key}`)).toEqual([
      'create:project:demo',
      'create:target_group:us',
      'launch:fielding:us',
    ]);
    expect(plan.hasChanges).toBe(true);
    expect(plan.actions[2].reason).toBe('launch automatically once the gate passes (feasible)');
  });

  it('plans nothing that writes when the remote already holds the study', () => {
    const desired = tg('us');
    const observed: ObservedStudy = {
      project: { id: 'p1', fields: { ...study([]).project, id: 'p1' } },
      targetGroups: { us: observedTg(desired, { status: 'live' }) },
      exclusionGroups: {},
    };
    const plan = planStudy(study([desired]), observed);
    expect(plan.hasChanges).toBe(false);
    expect(plan.actions.filter(isWrite)).toEqual([]);
  });

  it('updates only the draft fields that differ, naming them', () => {
    const desired = tg('us', { draft: { ...tg('us').draft, filling_goal: 150 } });
    const observed: ObservedStudy = {
      project: { id: 'p1', fields: { ...study([]).project } },
      targetGroups: { us: observedTg(tg('us')) },
      exclusionGroups: {},
    };
    const plan = planStudy(study([desired]), observed);
    const update = plan.actions.find((a) => a.resource === 'target_group');
    expect(update?.kind).toBe('update');
    expect(update?.changes).toEqual([{ field: 'filling_goal', from: 200, to: 150 }]);
  });

  it('changes a live target group in place through the operation that carries the field, never as a draft', () => {
    const desired = tg('us', { draft: { ...tg('us').draft, filling_goal: 150 } });
    const observed: ObservedStudy = {
      project: { id: 'p1', fields: { ...study([]).project } },
      targetGroups: { us: observedTg(tg('us'), { status: 'live' }) },
      exclusionGroups: {},
    };
    const actions = planStudy(study([desired]), observed).actions;
    expect(actions.find((a) => a.resource === 'target_group')).toBeUndefined();
    expect(actions.find((a) => a.resource === 'live_target_group')).toMatchObject({
      kind: 'update',
      operation: 'update_profile_filling_goal',
      changes: [{ field: 'filling_goal', from: 200, to: 150 }],
    });
    // A lower goal needs no feasibility check.
    expect(actions.some((a) => a.kind === 'check')).toBe(false);
  });

  it('compares a launched group only on the fields its read carries (TG/details lacks allocations, profiles, …)', () => {
    const allocations = { open_exchange_allocations: { exchange_min_percentage: 0, exchange_max_percentage: 100, blocked_supplier_ids: [], groups: [] } };
    const desired = tg('us', { draft: { ...tg('us').draft, allocations }, profiles: [{ object: 'regular', name: 'Gender', targets: [] }] });
    const { allocations: _a, ...details } = desired.draft;
    const read = Object.keys(details);
    const observed = (fields: Record<string, unknown>): ObservedStudy => ({
      project: { id: 'p1', fields: { ...study([]).project } },
      targetGroups: { us: observedTg(desired, { status: 'live', fields, fieldsRead: read }) },
      exclusionGroups: {},
    });
    // Nothing the details cannot show is a difference: no blocked draft fields, no blocked profiles.
    const quiet = planStudy(study([desired]), observed(details));
    expect(quiet.actions.filter((a) => a.kind === 'blocked')).toEqual([]);
    expect(quiet.hasChanges).toBe(false);
    // A field the details carry and that differs still shows.
    const changed = planStudy(study([desired]), observed({ ...details, filling_goal: 300 })).actions.find((a) => a.resource === 'live_target_group');
    expect(changed).toMatchObject({ kind: 'update', operation: 'update_profile_filling_goal', changes: [{ field: 'filling_goal', from: 300, to: 200 }] });
    // Without the list (every field read), the missing allocations are a difference.
    const all = planStudy(study([desired]), { ...observed(details), targetGroups: { us: observedTg(desired, { status: 'live', fields: details }) } });
    expect(all.actions.find((a) => a.resource === 'live_target_group')).toMatchObject({
      kind: 'update',
      operation: 'update_target_group_allocation_specification',
      changes: [{ field: 'allocations' }],
    });
  });

  it('removes the profiles a draft still holds when the study declares none (profiling null), and writes nothing when it holds none', () => {
    const desired = tg('us', { draft: { ...tg('us').draft, profiling: null } });
    const held = { profile_adjustment_type: 'percentage', profiles: [{ id: 'p1', object: 'regular', name: 'Gender', quotas_enabled: false, targets: [] }] };
    const observedWith = (profiling: unknown) => ({
      project: { id: 'p1', fields: { ...study([]).project } },
      targetGroups: { us: observedTg(desired, { fields: { ...tg('us').draft, id: 'tg-us', ...(profiling === undefined ? {} : { profiling }) } }) },
      exclusionGroups: {},
    });
    const update = planStudy(study([desired]), observedWith(held)).actions.find((a) => a.resource === 'target_group');
    expect(update).toMatchObject({ kind: 'update', changes: [{ field: 'profiling', from: held, to: null }] });
    expect(planStudy(study([desired]), observedWith(undefined)).actions.find((a) => a.resource === 'target_group')?.kind).toBe('none');
  });

  it('checks the pricing model the API sets against the study file: reported where it differs, never written', () => {
    const desired = tg('us', { expected: { pricing_model: 'rate_card' } });
    const observedWith = (pricing_model: string | undefined) => ({
      project: { id: 'p1', fields: { ...study([]).project } },
      targetGroups: { us: observedTg(desired, { fields: { ...desired.draft, id: 'tg-us', ...(pricing_model ? { pricing_model } : {}) } }) },
      exclusionGroups: {},
    });
    const same = planStudy(study([desired]), observedWith('rate_card'));
    expect(same.actions.filter((a) => a.resource === 'target_group').map((a) => a.kind)).toEqual(['none']);
    // A read that does not carry the field says nothing about it.
    expect(planStudy(study([desired]), observedWith(undefined)).actions.filter((a) => a.resource === 'target_group').map((a) => a.kind)).toEqual(['none']);
    const other = planStudy(study([desired]), observedWith('dynamic'));
    const blocked = other.actions.find((a) => a.kind === 'blocked');
    expect(blocked).toMatchObject({ resource: 'target_group', key: 'us', changes: [{ field: 'pricing_model', from: 'dynamic', to: 'rate_card' }] });
    expect(blocked?.reason).toContain('pricing_model is "dynamic" in the API, "rate_card" in the study file');
    expect(other.actions.filter((a) => isWrite(a) && a.resource === 'target_group')).toEqual([]);
    // Never in the draft body.
    expect(desired.draft).not.toHaveProperty('pricing_model');
  });

  it('updates a renamed target group in place through moved_from', () => {
    const renamed = tg('us_main', { movedFrom: 'us' });
    const observed: ObservedStudy = {
      project: { id: 'p1', fields: { ...study([]).project } },
      targetGroups: { us: observedTg(tg('us')) },
      exclusionGroups: {},
    };
    const plan = planStudy(study([renamed]), observed);
    expect(plan.actions.some((a) => a.kind === 'create' && a.resource === 'target_group')).toBe(false);
    const update = plan.actions.find((a) => a.resource === 'target_group');
    expect(update?.reason).toContain('renamed from us');
  });

  it('uploads a new ID list, skips an identical one and replaces a different one', () => {
    const list = { ref: 'sha256:aa', sha256: 'aa', count: 3 };
    const desired = tg('us', { idLists: { RSID: list, ACCESS_RESPONDENT_GUID: { ref: 'sha256:bb', sha256: 'bb', count: 2 } } });
    const observed: ObservedStudy = {
      project: { id: 'p1', fields: { ...study([]).project } },
      targetGroups: {
        us: observedTg(desired, { idLists: { RSID: { count: 3, sha256: 'aa' }, ACCESS_RESPONDENT_GUID: { count: 5, sha256: 'cc' } } }),
      },
      exclusionGroups: {},
    };
    const lists = planStudy(study([desired]), observed).actions.filter((a) => a.resource === 'id_list');
    expect(lists.map((a) => [a.entityType, a.kind])).toEqual([
      ['RSID', 'none'],
      ['ACCESS_RESPONDENT_GUID', 'replace_list'],
    ]);
    const fresh = planStudy(study([desired]), empty).actions.filter((a) => a.resource === 'id_list');
    expect(fresh.map((a) => a.kind)).toEqual(['upload', 'upload']);
  });

  it('creates declared exclusion groups and adds and removes memberships', () => {
    const a = tg('a', { exclusionGroups: ['waves'] });
    const b = tg('b');
    const desired = study([a, b], { exclusionGroups: [{ name: 'waves', title: 'Waves', targetGroups: ['a'] }] });
    const first = planStudy(desired, empty);
    expect(first.actions.find((x) => x.resource === 'exclusion_group' && x.kind === 'create')?.key).toBe('waves');
    expect(first.actions.find((x) => x.kind === 'add_to_group')?.key).toBe('a');

    const observed: ObservedStudy = {
      project: { id: 'p1', fields: { ...study([]).project } },
      targetGroups: { a: observedTg(a), b: observedTg(b) },
      exclusionGroups: { waves: { id: 'g1', targetGroupIds: ['tg-b'] } },
    };
    const second = planStudy(desired, observed);
    expect(second.actions.filter((x) => x.resource === 'exclusion_group').map((x) => `${x.kind}:${x.key}`)).toEqual([
      'add_to_group:a',
      'remove_from_group:b',
    ]);
  });

  it('compares activity exclusions after resolving references to other target groups', () => {
    const other = tg('uk');
    const us = tg('us', { activityExclusions: { items: [{ ref: { type: 'target_group', key: 'uk' }, duration: 'P30D' }] } });
    const observed: ObservedStudy = {
      project: { id: 'p1', fields: { ...study([]).project } },
      targetGroups: {
        uk: observedTg(other),
        us: observedTg(us, { activityExclusions: { items: [{ type: 'target_group', id: 'tg-uk', duration: 'P30D', respondent_statuses: ['Complete'] }] } }),
      },
      exclusionGroups: {},
    };
    expect(planStudy(study([other, us]), observed).actions.some((a) => a.resource === 'activity_exclusions')).toBe(false);
    const changed = tg('us', { activityExclusions: { items: [{ ref: { type: 'target_group', key: 'uk' }, duration: 'P60D' }] } });
    const action = planStudy(study([other, changed]), observed).actions.find((a) => a.resource === 'activity_exclusions');
    expect(action?.kind).toBe('update');
  });

  it('creates a declared webhook, updates one whose events or compression differ, and leaves a matching one', () => {
    const hooks = [
      { url: 'https://h.example.com/a', events: ['target-group-updated'], compression: 'gzip' as const },
      { url: 'https://h.example.com/b', events: ['com.svc.session.updated'], compression: null },
      { url: 'https://h.example.com/c', events: ['target-group-updated', 'com.svc.session.updated'], compression: null },
    ];
    const observed: ObservedStudy = {
      ...empty,
      webhooks: {
        'https://h.example.com/b': { id: 'w2', events: ['com.svc.session.updated'], compression: 'gzip' },
        'https://h.example.com/c': { id: 'w3', events: ['com.svc.session.updated', 'target-group-updated'], compression: null },
      },
    };
    const actions = planStudy(study([], { webhooks: hooks }), observed).actions.filter((a) => a.resource === 'webhook');
    expect(actions.map((a) => `${a.kind}:${a.key}`)).toEqual(['create:https://h.example.com/a', 'update:https://h.example.com/b', 'none:https://h.example.com/c']);
    expect(actions[1].changes).toEqual([{ field: 'compression', from: 'gzip', to: null }]);
  });

  describe('profiles, in the draft\'s profiling', () => {
    const gender = (goal: number) => ({
      object: 'regular', name: 'Gender', quotas_enabled: true,
      targets: [
        { text: 'Men', conditions: [{ object: 'selection', question_id: 43, option: '1' }], quota: { name: 'men', completes_goal: goal } },
        { text: 'Women', conditions: [{ object: 'selection', question_id: 43, option: '2' }], quota: { name: 'women', completes_goal: 200 - goal } },
      ],
    });
    const zip = { object: 'regular', name: 'Metro', quotas_enabled: false, targets: [{ conditions: [{ object: 'open_ended', question_id: 45, allow_all_values: false, open_ended_values: ['10001'] }] }] };
    const profiled = (profiles: unknown[], templates: string[] = []) => {
      const base = tg('us');
      return tg('us', { profiles, draft: { ...base.draft, profiling: profilingOf(profiles, templates) } });
    };
    /** What GET TG answers for a draft: ids, texts and counters of its own, no `object` on targets, the quota's derived half. */
    const answered = (profiling: ReturnType<typeof profilingOf>, templateProfiles: Record<string, unknown>[] = []) => ({
      ...profiling,
      profiles: [...templateProfiles, ...(profiling!.profiles ?? [])].map((p, i) => ({
        ...p,
        id: `P${i}`,
        description: 'What is your gender?',
        targets: (p.targets as Record<string, unknown>[]).map(({ object: _object, quota, ...t }, j) => ({
          ...t,
          id: `T${i}${j}`,
          text: 'label',
          ...(quota ? { quota: { ...(quota as object), completes_goal_percentage: 50, quota_nominal: 100, completes: 0, prescreens: 0 } } : {}),
        })),
      })),
    });

    it('a new draft carries them in its create call: no separate profiles write', () => {
      const plan = planStudy(study([profiled([gender(100), zip])]), empty);
      expect(plan.actions.filter((a) => a.resource === 'profiles')).toEqual([]);
      expect(plan.actions.find((a) => a.resource === 'target_group')).toMatchObject({ kind: 'create', reason: 'new draft target group with its profiles inline' });
    });

    it('re-apply writes nothing when the draft\'s profiling holds them (a template\'s profiles beside them too)', () => {
      const desired = profiled([gender(100), zip]);
      const observed = observedTg(desired, { fields: { ...desired.draft, profiling: answered(desired.draft.profiling as ReturnType<typeof profilingOf>) } });
      const plan = planStudy(study([desired]), { ...empty, project: { id: 'p1', fields: study([]).project }, targetGroups: { us: observed } });
      expect(plan.actions.filter(isWrite)).toEqual([expect.objectContaining({ kind: 'launch' })]);
      const shares = gender(100);
      const pct = { ...shares, targets: shares.targets.map((t) => ({ ...t, quota: { name: t.quota.name, completes_goal_percentage: 50 } })) };
      const withTemplate = profiled([pct], ['3f1c2a4e-3001-4c8e-9d2b-000000000001']);
      const fromTemplate = { object: 'regular', name: 'Age', quotas_enabled: false, targets: [{ conditions: [{ object: 'range', question_id: 42, min: 18, max: 34 }] }] };
      const held = observedTg(withTemplate, { fields: { ...withTemplate.draft, profiling: answered(withTemplate.draft.profiling as ReturnType<typeof profilingOf>, [fromTemplate]) } });
      expect(planStudy(study([withTemplate]), { ...empty, targetGroups: { us: held } }).actions.filter((a) => a.resource === 'target_group')).toEqual([
        expect.objectContaining({ kind: 'none' }),
      ]);
    });

    it('updates the draft when its profiling differs, naming the field', () => {
      const before = profiled([gender(100)]);
      const after = profiled([gender(120)]);
      const observed = observedTg(after, { fields: { ...after.draft, profiling: answered(before.draft.profiling as ReturnType<typeof profilingOf>) } });
      const action = planStudy(study([after]), { ...empty, targetGroups: { us: observed } }).actions.find((a) => a.resource === 'target_group');
      expect(action).toMatchObject({ kind: 'update', reason: 'update profiling' });
    });

    it('a launched target group: manage-profiles when its profiling shows and differs; not compared when it does not show', () => {
      const after = profiled([gender(120)]);
      const shown = observedTg(after, { status: 'live', fields: { ...after.draft, profiling: answered(profiled([gender(100)]).draft.profiling as ReturnType<typeof profilingOf>) } });
      const actions = planStudy(study([after]), { ...empty, targetGroups: { us: shown } }).actions;
      expect(actions.find((a) => a.resource === 'profiles')).toMatchObject({ kind: 'update', reason: 'replace the profiles of the live target group with manage-profiles' });
      expect(actions.find((a) => a.resource === 'live_target_group')).toMatchObject({ kind: 'none' });
      const { profiling: _profiling, ...withoutProfiling } = after.draft;
      const hidden = observedTg(after, { status: 'live', fields: withoutProfiling });
      expect(planStudy(study([after]), { ...empty, targetGroups: { us: hidden } }).actions.find((a) => a.resource === 'profiles')).toMatchObject({
        kind: 'none',
        reason: 'not compared: the profiles of a live target group cannot be read',
      });
      const completed = observedTg(after, { status: 'completed', fields: shown.fields });
      expect(planStudy(study([after]), { ...empty, targetGroups: { us: completed } }).actions.find((a) => a.resource === 'profiles')).toMatchObject({ kind: 'blocked' });
    });
  });

  it('is deterministic: the same inputs give the same plan', () => {
    const desired = study([tg('b'), tg('a', { exclusionGroups: ['g'] })], { exclusionGroups: [{ name: 'g', title: 'G', targetGroups: ['a'] }] });
    expect(canonicalJson(planStudy(desired, empty))).toBe(canonicalJson(planStudy(structuredClone(desired), structuredClone(empty))));
  });
});

describe('holdsDesired', () => {
  it('ignores fields the API adds and compares instants by moment', () => {
    expect(holdsDesired({ a: 1 }, { a: 1, id: 'x' })).toBe(true);
    expect(holdsDesired({ a: 1 }, { a: 2 })).toBe(false);
    expect(holdsDesired('2026-12-20T00:00:00Z', '2026-12-20T00:00:00.000Z')).toBe(true);
    expect(holdsDesired([{ a: 1 }], [{ a: 1, b: 2 }])).toBe(true);
    expect(holdsDesired([{ a: 1 }], [{ a: 1 }, { a: 2 }])).toBe(false);
    expect(holdsDesired(null, undefined)).toBe(true);
    expect(holdsDesired(null, 'x')).toBe(false);
    expect(holdsDesired('3001', 3001)).toBe(true);
    expect(holdsDesired('3001', 3002)).toBe(false);
  });
});
