// The typed request of each in-place operation (plan/live-requests.ts): the plan builds exactly what the
// operation's activity sends, so the workflow only dispatches it; what a request cannot carry is named, and a
// step of the shape older builds carried is still run as it was.
import { describe, expect, it } from 'vitest';
import { LIVE_CHANGES } from '../../plan/live-changes';
import { allocationSpecification, DETAIL_REQUEST_NAMES, liveRequest } from '../../plan/live-requests';
import { fieldsOfLiveStep, LIVE_UPDATE_OPERATIONS, liveSteps, requestOfStep } from '../../plan/live-steps';
import type { TargetGroupStep } from '../../plan/program';
import type { DesiredTargetGroup, ObservedStudy, PlannedAction } from '../../plan/types';

const update = (operation: PlannedAction['operation'], changes: { field: string; from: unknown; to: unknown }[]): PlannedAction => ({
  kind: 'update',
  resource: 'live_target_group',
  key: 'us',
  operation,
  changes,
  reason: 'test',
});

const quotas = [
  { profileId: 'p-age', profileName: 'Age', quotaId: 't-young', quotaName: '18-34', completesGoal: 40 },
  { profileId: 'p-age', profileName: 'Age', quotaId: 't-old', quotaName: '35+', completesGoal: 60 },
];
const observed: ObservedStudy = {
  project: { id: 'p-1', fields: {} },
  targetGroups: {
    us: { id: 'tg-9', status: 'live', fields: {}, idLists: {}, fillingGoal: { completesGoal: 100, quotas } },
    uk: { id: 'tg-10', status: 'live', fields: {}, idLists: {} },
  },
  exclusionGroups: {},
};
const desired = {
  key: 'us',
  draft: {},
  activityExclusions: { duration: 'P30D', items: [{ ref: { type: 'target_group', key: 'uk' }, respondent_statuses: ['Complete'] }, { ref: { type: 'project', self: true } }] },
} as unknown as DesiredTargetGroup;

describe('the request of each in-place operation (liveSteps, liveRequest)', () => {
  it('a goal update carries the total and each quota goal by the ids observe read with its names', () => {
    const { before } = liveSteps(desired, [update('update_profile_filling_goal', [
      { field: 'filling_goal', from: 100, to: 120 },
      { field: 'profiles.Age.18-34.completes_goal', from: 40, to: 50 },
    ])], observed);
    expect(before).toEqual([
      {
        kind: 'update_live',
        request: { operation: 'update_profile_filling_goal', completesGoal: 120, quotaGoals: [{ profileId: 'p-age', targetId: 't-young', completesGoal: 50 }] },
        changes: [
          { field: 'filling_goal', from: 100, to: 120 },
          { field: 'profiles.Age.18-34.completes_goal', from: 40, to: 50 },
        ],
      },
    ]);
  });

  it('names a quota goal the exchange does not show as unwritable, with why, and writes the rest', () => {
    const { before } = liveSteps(desired, [update('update_profile_filling_goal', [
      { field: 'profiles.Age.65+.completes_goal', from: 5, to: 10 },
      { field: 'profiles.Age.35+.completes_goal', from: 60, to: 70 },
    ])], observed);
    expect(before[0]).toMatchObject({
      request: { operation: 'update_profile_filling_goal', quotaGoals: [{ profileId: 'p-age', targetId: 't-old', completesGoal: 70 }] },
      unwritable: [{ field: 'profiles.Age.65+.completes_goal', detail: 'the exchange shows no quota named as profiles.Age.65+.completes_goal (a new quota is a change of the profiles)' }],
    });
    expect(before[0]).not.toHaveProperty('request.completesGoal');
  });

  it('a window update carries only the dates that change (the run keeps the other)', () => {
    expect(liveRequest('update_fielding_run', [{ field: 'end_fielding_at', to: '2027-03-08T00:00:00Z' }]).request).toEqual({ operation: 'update_fielding_run', endFieldingAt: '2027-03-08T00:00:00Z' });
    expect(liveRequest('update_fielding_run', [{ field: 'start_fielding_at', to: '2027-01-02T00:00:00Z' }])).toEqual({
      request: { operation: 'update_fielding_run', startFieldingAt: '2027-01-02T00:00:00Z' },
      unwritable: [],
    });
  });

  it('details travel under the operation\'s names, the cost note as Money', () => {
    const { request, unwritable } = liveRequest('update_launched_target_group_details', [
      { field: 'name', to: 'US renamed' },
      { field: 'expected_length_of_interview_minutes', to: 12 },
      { field: 'target_group_customer_reference_number', to: 'ref-1' },
      { field: 'client_cost_per_interview_note', to: { value: '2.50', currency_code: 'EUR' } },
      { field: 'locale', to: 'de_DE' },
    ]);
    expect(request).toEqual({
      operation: 'update_launched_target_group_details',
      details: { name: 'US renamed', lengthOfInterviewMinutes: 12, customerReferenceNumber: 'ref-1', cpiNote: { value: '2.50', currency_code: 'EUR' } },
    });
    expect(unwritable).toEqual([{ field: 'locale', detail: 'update_launched_target_group_details does not carry locale' }]);
  });

  it('every draft field the table routes to the details operation has its name in the request', () => {
    const routed = Object.entries(LIVE_CHANGES)
      .filter(([field, route]) => field.startsWith('draft.') && route.kind === 'operation' && route.operation === 'update_launched_target_group_details')
      .map(([field]) => field.slice('draft.'.length))
      .sort();
    expect(Object.keys(DETAIL_REQUEST_NAMES).sort()).toEqual(routed);
  });

  it('the price, the allocations and the assistant\'s modules are the requests their operations take', () => {
    expect(liveRequest('update_cost_per_interview', [{ field: 'cost_per_interview', from: { value: '3.00', currency_code: 'USD' }, to: { value: '3.25', currency_code: 'USD' } }]).request).toEqual({
      operation: 'update_cost_per_interview',
      costPerInterview: { value: '3.25', currency_code: 'USD' },
    });
    const allocations = { open_exchange_allocations: { exchange_min_percentage: 10, groups: [{ group_name: 'g', min_percentage: 0, max_percentage: 50, suppliers: [7, '8'] }] } };
    expect(liveRequest('update_target_group_allocation_specification', [{ field: 'allocations', to: allocations }]).request).toEqual({
      operation: 'update_target_group_allocation_specification',
      allocations: allocationSpecification(allocations),
    });
    expect(allocationSpecification(allocations)).toEqual({
      open_exchange_allocations: { blocked_supplier_ids: [], exchange_min_percentage: 10, exchange_max_percentage: 100, groups: [{ group_name: 'g', min_percentage: 0, max_percentage: 50, supplier_ids: ['7', '8'] }] },
      private_exchange_allocations: { blocked_supplier_ids: [], groups: [] },
    });
    const modules = { pacing: { type: 'linear', increment_interval: 'PT1H' }, quota_overlay: { prevent_overfill: true, balance_fill: false } };
    expect(liveRequest('create_or_update_fielding_assistant_assignment', [{ field: 'fielding_assistant_assignment', to: modules }]).request).toEqual({
      operation: 'create_or_update_fielding_assistant_assignment',
      modules,
    });
  });

  it('activity exclusions carry the items with the ids of what they name, once every one exists', () => {
    const { before } = liveSteps(desired, [update('set_target_group_respondent_activity_exclusions', [])], observed);
    expect(before).toEqual([
      {
        kind: 'update_live',
        request: {
          operation: 'set_target_group_respondent_activity_exclusions',
          items: [{ type: 'target_group', id: 'tg-10', respondent_statuses: ['Complete'] }, { type: 'project', id: 'p-1' }],
          duration: 'P30D',
        },
        changes: [{ field: 'activity_exclusions', to: { duration: 'P30D', items: [{ type: 'target_group', id: 'tg-10', respondent_statuses: ['Complete'] }, { type: 'project', id: 'p-1' }] } }],
      },
    ]);
  });

  it('has a request for every live operation', () => {
    for (const operation of LIVE_UPDATE_OPERATIONS) expect(liveRequest(operation, []).request.operation).toBe(operation);
  });
});

describe('an update_live step the workflow runs (requestOfStep, fieldsOfLiveStep)', () => {
  it('is its own request; the fields it changes are recorded when a gate refuses it', () => {
    const step: TargetGroupStep = { kind: 'update_live', request: { operation: 'update_fielding_run', endFieldingAt: 'x' }, changes: [{ field: 'end_fielding_at', from: 'w', to: 'x' }] };
    expect(requestOfStep(step)).toEqual({ request: { operation: 'update_fielding_run', endFieldingAt: 'x' }, unwritable: [] });
    expect(fieldsOfLiveStep(step)).toEqual(['end_fielding_at']);
    expect(fieldsOfLiveStep({ kind: 'fielding', action: 'pause' })).toEqual(['fielding']);
    expect(fieldsOfLiveStep({ kind: 'read_state' })).toEqual([]);
  });

  it('a step of the shape an older build carried ({operation, changes, quotaGoals}) runs with the same request', () => {
    const old = {
      kind: 'update_live' as const,
      operation: 'update_profile_filling_goal' as const,
      changes: [{ field: 'filling_goal', to: 300 }, { field: 'profiles.Age.18-34.completes_goal', to: 50 }],
      quotaGoals: [{ field: 'profiles.Age.18-34.completes_goal', profileId: 'p-age', targetId: 't-young', completesGoal: 50 }],
    };
    expect(requestOfStep(old)).toEqual({
      request: { operation: 'update_profile_filling_goal', completesGoal: 300, quotaGoals: [{ profileId: 'p-age', targetId: 't-young', completesGoal: 50 }] },
      unwritable: [],
    });
  });
});
