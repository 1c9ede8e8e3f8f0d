// In-place changes of a launched target group: every field that differs is carried by the operation
// plan/live-changes.ts names for it (one `update` action per operation, with its fields), or blocked with
// the table's reason. A goal raise or a shorter window is checked first with feasibility of the live group,
// judged by the target group's launch rules. The fielding state comes from plan/live-fielding.ts. Pure.
import { differenceMicros } from './money';
import { holdsDesired } from './compare';
import { draftFieldRoute, LIVE_CHANGES } from './live-changes';
import { fieldingPlan } from './live-fielding';
import type { DesiredTargetGroup, ExchangeOperation, FieldChange, LiveGate, ObservedQuotaGoal, ObservedTargetGroup, PlannedAction, UpdateAction } from './types';

type Json = Record<string, unknown>;
const record = (value: unknown): Json | undefined => (value && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : undefined);
const array = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

/** Draft fields whose launched value comes from the details read (reference: TargetGroupDetails). */
const DETAIL_FIELDS = new Set([
  'name',
  'project_manager_id',
  'expected_length_of_interview_minutes',
  'expected_incidence_rate',
  'live_url',
  'test_url',
  'target_group_customer_reference_number',
  'client_cost_per_interview_note',
]);
/** Compared on their own below (the window), or with the profiles (plan-study.ts). */
const NOT_COMPARED_HERE = new Set(['fielding_specification', 'profiling']);

const NOT_READ = Symbol('not read');

/**
 * The allocations without the draft's allocation template (a recontact study's `template_id`): the template is
 * taken when the draft is made, and a launched group's specification (get_target_group_allocation_specification)
 * neither shows nor takes it.
 */
function withoutTemplate(allocations: unknown): unknown {
  const spec = record(allocations);
  if (!spec || !('template_id' in spec)) return allocations;
  const { template_id: _template, ...rest } = spec;
  return rest;
}

/** The launched value of a draft field, or NOT_READ when the observed state does not carry it. */
function liveValue(tg: ObservedTargetGroup, field: string): unknown {
  if (DETAIL_FIELDS.has(field) && tg.details) return Object.hasOwn(tg.details, field) ? (tg.details as Json)[field] : NOT_READ;
  if (field === 'filling_goal' && tg.fillingGoal) return tg.fillingGoal.completesGoal;
  if (field === 'allocations' && tg.allocations) return tg.allocations;
  if (field === 'fielding_assistant_assignment' && tg.fieldingAssistant) return tg.fieldingAssistant.assignment;
  if (tg.fieldsRead && !tg.fieldsRead.includes(field)) return NOT_READ;
  return tg.fields[field];
}

/** The nominal quota goals the file gives, by profile and quota name. */
export function desiredQuotaGoals(desired: DesiredTargetGroup): { profileName: string; quotaName: string; completesGoal: number }[] {
  const goals: { profileName: string; quotaName: string; completesGoal: number }[] = [];
  for (const profile of desired.profiles ?? []) {
    const p = record(profile);
    if (p?.quotas_enabled !== true || typeof p.name !== 'string') continue;
    for (const target of array(p.targets)) {
      const quota = record(record(target)?.quota);
      if (quota && typeof quota.name === 'string' && typeof quota.completes_goal === 'number') {
        goals.push({ profileName: p.name, quotaName: quota.name, completesGoal: quota.completes_goal });
      }
    }
  }
  return goals;
}

function quotaGoalChanges(desired: DesiredTargetGroup, observed: readonly ObservedQuotaGoal[] | undefined): FieldChange[] {
  if (!observed) return [];
  const changes: FieldChange[] = [];
  for (const goal of desiredQuotaGoals(desired)) {
    const have = observed.find((q) => q.profileName === goal.profileName && q.quotaName === goal.quotaName);
    // A quota the exchange does not show is a change of the profiles (manage_target_group_profiles), not of a goal.
    if (have && have.completesGoal !== goal.completesGoal) {
      changes.push({ field: `profiles.${goal.profileName}.${goal.quotaName}.completes_goal`, from: have.completesGoal, to: goal.completesGoal });
    }
  }
  return changes;
}

/**
 * The fielding window against the run. The start is compared only while the run is scheduled (a started run's
 * start is history, and the exchange takes no start in the past); the end always.
 */
function windowChanges(desired: DesiredTargetGroup, tg: ObservedTargetGroup): FieldChange[] {
  const run = tg.fieldingRun;
  if (!run) return [];
  const changes: FieldChange[] = [];
  const spec = record(desired.draft.fielding_specification);
  const start = desired.launch.at ?? (typeof spec?.start_at === 'string' ? spec.start_at : undefined);
  if (run.status === 'scheduled' && start && !holdsDesired(start, run.startFieldingAt)) {
    changes.push({ field: 'start_fielding_at', from: run.startFieldingAt ?? null, to: start });
  }
  const end = desired.launch.endFieldingAt;
  if (end && !holdsDesired(end, run.endFieldingAt)) changes.push({ field: 'end_fielding_at', from: run.endFieldingAt ?? null, to: end });
  return changes;
}

function moneyChange(desired: DesiredTargetGroup, tg: ObservedTargetGroup): FieldChange[] {
  const want = desired.costPerInterview;
  const have = tg.costPerInterview;
  if (!want || !have) return [];
  const same = differenceMicros(want, have) === 0n;
  return same ? [] : [{ field: 'cost_per_interview', from: have, to: want }];
}

/** The order in which in-place writes are made: the table's order. */
const OPERATION_ORDER: ExchangeOperation[] = [
  ...new Set(Object.values(LIVE_CHANGES).flatMap((route) => (route.kind === 'operation' ? [route.operation] : []))),
];

const fmt = (value: unknown): string => (typeof value === 'string' ? value : JSON.stringify(value));

/** `filling_goal 200 -> 300, end_fielding_at …` */
export function changesText(changes: readonly FieldChange[]): string {
  return changes.map((c) => `${c.field} ${fmt(c.from)} -> ${fmt(c.to)}`).join(', ');
}

/**
 * The feasibility request of a change to a live target group (reference: CalculateTargetGroupFeasibilityByIdRequest,
 * a what-if over the current target group): the goal the file wants, and the window when it moves.
 */
export function liveFeasibilityRequest(desired: DesiredTargetGroup, tg: ObservedTargetGroup, window: readonly FieldChange[]): Json {
  const request: Json = {};
  if (typeof desired.draft.filling_goal === 'number') request.completes_goal = desired.draft.filling_goal;
  const end = window.find((c) => c.field === 'end_fielding_at')?.to ?? tg.fieldingRun?.endFieldingAt;
  const start = window.find((c) => c.field === 'start_fielding_at')?.to ?? tg.fieldingRun?.startFieldingAt;
  if (window.length && typeof end === 'string') {
    request.end_at = end;
    if (typeof start === 'string') request.start_at = start;
  }
  return request;
}

/** The gate of a goal raise or a window shortening, or undefined when the change needs none. */
function liveGate(desired: DesiredTargetGroup, tg: ObservedTargetGroup, goal: FieldChange | undefined, window: readonly FieldChange[]): LiveGate | undefined {
  const because: string[] = [];
  if (goal && typeof goal.from === 'number' && typeof goal.to === 'number' && goal.to > goal.from) because.push(`raising filling_goal ${goal.from} -> ${goal.to}`);
  const end = window.find((c) => c.field === 'end_fielding_at');
  if (end && typeof end.from === 'string' && typeof end.to === 'string' && Date.parse(end.to) < Date.parse(end.from)) {
    because.push(`shortening the window to end ${end.to}`);
  }
  if (!because.length) return undefined;
  return {
    requireFeasible: desired.launch.requireFeasible,
    ...(desired.launch.maxCpi ? { maxCpi: desired.launch.maxCpi } : {}),
    approval: desired.launch.mode === 'manual',
    because,
    request: liveFeasibilityRequest(desired, tg, window),
  };
}

function gateText(gate: LiveGate): string {
  const rules = [
    gate.requireFeasible ? 'feasible' : undefined,
    gate.maxCpi ? `price <= ${gate.maxCpi.value} ${gate.maxCpi.currency_code}` : undefined,
    gate.approval ? 'then approval' : undefined,
  ].filter(Boolean);
  return `feasibility of the live target group before ${gate.because.join(' and ')}${rules.length ? ` (gate: ${rules.join(', ')})` : ''}`;
}

export interface LivePlanInput {
  desired: DesiredTargetGroup;
  tg: ObservedTargetGroup;
  /** The draft fields of the file, without `profiling` (compared with the profiles). */
  draftFields: Record<string, unknown>;
  /** ` (renamed from …; updated in place)` or empty. */
  moved: string;
  observedAtMs?: number;
}

/**
 * The actions for a launched target group (scheduled, live, paused or completed). `changes`: resume or relaunch
 * first, then the feasibility check a goal raise or a shorter window needs, the in-place updates (one per
 * operation), and the blocked fields (one each, with the exchange's reason). `fielding`: what comes last, after
 * the target group's other writes: pause or complete, or the `none` that says its state holds.
 */
export function planLiveTargetGroup({ desired, tg, draftFields, moved, observedAtMs }: LivePlanInput): { changes: PlannedAction[]; fielding: PlannedAction[] } {
  const key = desired.key;
  const fielding = fieldingPlan(desired, tg, observedAtMs);
  const byOperation = new Map<ExchangeOperation, FieldChange[]>();
  const add = (operation: ExchangeOperation, changes: FieldChange[]) => {
    if (changes.length) byOperation.set(operation, [...(byOperation.get(operation) ?? []), ...changes]);
  };
  const blocked: PlannedAction[] = [];

  for (const [field, wanted] of Object.entries(draftFields)) {
    if (wanted === undefined || NOT_COMPARED_HERE.has(field)) continue;
    const to = field === 'allocations' ? withoutTemplate(wanted) : wanted;
    const from = liveValue(tg, field);
    if (from === NOT_READ || holdsDesired(to, from)) continue;
    const change: FieldChange = { field, from: from ?? null, to };
    const route = draftFieldRoute(field);
    if (route?.kind === 'operation') add(route.operation, [change]);
    else {
      const reason = route?.kind === 'blocked' ? route.reason : `no operation changes ${field} after the launch`;
      blocked.push({ kind: 'blocked', resource: 'live_target_group', key, changes: [change], reason: `${field} cannot change after the launch: ${reason}` });
    }
  }
  add('update_profile_filling_goal', quotaGoalChanges(desired, tg.fillingGoal?.quotas));
  const window = windowChanges(desired, tg);
  add('update_fielding_run', window);
  add('update_cost_per_interview', moneyChange(desired, tg));

  const updates: UpdateAction[] = OPERATION_ORDER.filter((operation) => byOperation.has(operation)).map((operation) => {
    const changes = byOperation.get(operation)!;
    return { kind: 'update', resource: 'live_target_group', key, operation, changes, reason: `in place via ${operation}: ${changesText(changes)}${moved}` };
  });

  if (fielding.closed && updates.length) {
    // A completed target group is not changed in place (update_fielding_run fails on it; the rest waits for a relaunch).
    const why = fielding.closed === 'completed' ? 'the target group is completed (write `fielding: live` to relaunch it first)' : 'the file completes the target group';
    const held: PlannedAction[] = updates.map((u) => {
      const reason = `not changed in place via ${u.operation}: ${why}: ${changesText(u.changes ?? [])}`;
      return fielding.closed === 'completed' ? { ...u, kind: 'blocked', reason } : { ...u, kind: 'none', reason };
    });
    return { changes: [...fielding.before, ...held, ...blocked], fielding: fielding.after };
  }

  const goal = byOperation.get('update_profile_filling_goal')?.find((c) => c.field === 'filling_goal');
  const gate = liveGate(desired, tg, goal, window);
  const check: PlannedAction[] = gate
    ? [{ kind: 'check', resource: 'feasibility', key, operation: 'calculate_target_group_feasibility_by_id', gate, reason: gateText(gate) }]
    : [];
  const unchanged: PlannedAction[] =
    updates.length || blocked.length ? [] : [{ kind: 'none', resource: 'live_target_group', key, reason: `${fieldingStatus(tg)}: every field the exchange shows matches the file${moved}` }];
  return { changes: [...fielding.before, ...check, ...updates, ...blocked, ...unchanged], fielding: fielding.after };
}

function fieldingStatus(tg: ObservedTargetGroup): string {
  return tg.fieldingRun?.status ?? tg.status;
}
