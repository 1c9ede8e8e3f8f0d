// PlannedAction is a discriminated union (plan/types.ts): each kind carries its own fields, so a consumer narrows by
// `kind` instead of reading optional fields. The `@ts-expect-error` lines fail `npx tsc --noEmit` when the union
// stops refusing a wrong shape; the runtime checks fail when the planner emits an action without its kind's fields.
import { describe, expect, it } from 'vitest';
import { desiredStudy, desiredTargetGroup } from '../fixtures/desired-study';
import { planStudy } from '../../plan/plan-study';
import type { ListAction, ObservedStudy, PlannedAction } from '../../plan/types';

const LIST = { ref: 'sha256:ab', sha256: 'ab'.repeat(32), count: 3 };

describe('PlannedAction', () => {
  it('refuses an action without its kind’s fields, or with another kind’s (type level)', () => {
    const shapes: PlannedAction[] = [
      { kind: 'upload', resource: 'id_list', key: 'us', entityType: 'RSID', list: LIST, reason: 'upload' },
      { kind: 'add_to_group', resource: 'exclusion_group', key: 'us', group: 'waves', reason: 'join' },
      { kind: 'pause', resource: 'fielding', key: 'us', operation: 'pause_fielding_run', drift: true, reason: 'pause' },
      { kind: 'none', resource: 'id_list', key: 'us', list: LIST, reason: 'held by its workflow: upload' },
    ];
    const wrong: PlannedAction[] = [
      // @ts-expect-error an upload carries its list
      { kind: 'upload', resource: 'id_list', key: 'us', reason: 'upload' },
      // @ts-expect-error a membership change names its group
      { kind: 'add_to_group', resource: 'exclusion_group', key: 'us', reason: 'join' },
      // @ts-expect-error a launch carries no list
      { kind: 'launch', resource: 'fielding', key: 'us', list: LIST, reason: 'launch' },
      // @ts-expect-error pause, resume, complete and relaunch are of the fielding run
      { kind: 'pause', resource: 'target_group', key: 'us', operation: 'pause_fielding_run', reason: 'pause' },
      // @ts-expect-error a feasibility check carries its gate
      { kind: 'check', resource: 'feasibility', key: 'us', operation: 'calculate_target_group_feasibility_by_id', reason: 'check' },
    ];
    expect(wrong).toHaveLength(5);
    // Narrowing by kind gives the kind's fields typed, without a cast.
    const lists = shapes.filter((a): a is ListAction => a.kind === 'upload' || a.kind === 'replace_list').map((a) => a.list.count);
    expect(lists).toEqual([3]);
  });

  it('the planner gives each action its kind’s fields', () => {
    const desired = desiredStudy(
      [
        desiredTargetGroup('listed', { idLists: { RSID: LIST }, exclusionGroups: ['waves'] }, (k) => `demo_${k}`),
        desiredTargetGroup('plain', {}, (k) => `demo_${k}`),
      ],
      { exclusionGroups: [{ name: 'waves', title: 'Waves', targetGroups: ['listed'] }] },
    );
    const observed: ObservedStudy = { targetGroups: {}, exclusionGroups: {} };
    const actions = planStudy(desired, observed).actions;
    expect(new Set(actions.map((a) => a.kind))).toEqual(new Set(['create', 'upload', 'add_to_group', 'launch']));
    for (const action of actions) {
      if (action.kind === 'upload' || action.kind === 'replace_list') expect(action.list).toEqual(LIST);
      if (action.kind === 'add_to_group' || action.kind === 'remove_from_group') expect(action.group).toBe('waves');
      if (action.kind === 'launch') expect(action.resource).toBe('fielding');
    }
  });
});
