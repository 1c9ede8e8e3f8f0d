// The steps a launched target group's workflow runs for the live actions of the plan (plan/live-plan.ts,
// plan/live-fielding.ts): resume or relaunch first, then the feasibility check a goal raise or a shorter window
// needs, the in-place updates one per operation, and pause or complete last. Each step carries the values the
// file wants, never what was read (the write reads first and answers already_in_state when nothing differs).
// And the study's part: the removed target groups it completes. Pure.
import { resolveActivityItems } from './plan-study';
import type { DesiredStudy, DesiredTargetGroup, ExchangeOperation, FieldingAction, ObservedStudy, PlannedAction, StudyPlan } from './types';
import { LIVE_UPDATE_OPERATIONS, liveRequest, type LiveChange, type LiveRequest, type LiveUnwritable, type LiveUpdateOperation, type QuotaGoalIds } from './live-requests';
import type { LiveFieldingAction, TargetGroupStep } from './steps';

export { LIVE_UPDATE_OPERATIONS } from './live-requests';
export type { LiveUpdateOperation } from './live-requests';
export type { LiveFieldingAction } from './steps';

const FIELDING_ACTIONS: ReadonlySet<string> = new Set<LiveFieldingAction>(['pause', 'resume', 'complete', 'relaunch']);
const isFieldingAction = (action: PlannedAction): action is FieldingAction => action.resource === 'fielding' && FIELDING_ACTIONS.has(action.kind);
const isLiveOperation = (operation: ExchangeOperation | undefined): operation is LiveUpdateOperation =>
  (LIVE_UPDATE_OPERATIONS as readonly string[]).includes(operation ?? '');

/** The step of one in-place operation: its typed request, the changes for the views, and what the request cannot carry. */
function updateStep(operation: LiveUpdateOperation, changes: LiveChange[], quotas: readonly QuotaGoalIds[] = []): TargetGroupStep {
  const { request, unwritable } = liveRequest(operation, changes, quotas);
  return { kind: 'update_live', request, changes, ...(unwritable.length ? { unwritable } : {}) };
}

/** The step of one live action, or undefined for an action no target-group workflow runs. */
function stepOf(tg: DesiredTargetGroup, action: PlannedAction, observed: ObservedStudy): TargetGroupStep | undefined {
  if (isFieldingAction(action)) return { kind: 'fielding', action: action.kind };
  if (action.kind === 'check' && action.resource === 'feasibility' && action.gate) return { kind: 'check_live', gate: action.gate };
  if (action.kind !== 'update' || action.resource !== 'live_target_group' || !isLiveOperation(action.operation)) return undefined;
  if (action.operation === 'set_target_group_respondent_activity_exclusions') {
    // The items name other target groups by id: only once every one exists (a group this apply creates is resolved by the next).
    const { items, unresolved } = resolveActivityItems(tg.activityExclusions?.items ?? [], (k) => observed.targetGroups[k]?.id, observed.project?.id);
    if (unresolved.length) return undefined;
    const to = { ...(tg.activityExclusions?.duration ? { duration: tg.activityExclusions.duration } : {}), items };
    const from = observed.targetGroups[tg.key]?.activityExclusions;
    return updateStep(action.operation, [{ field: 'activity_exclusions', ...(from ? { from } : {}), to }]);
  }
  const changes: LiveChange[] = (action.changes ?? []).map((c) => ({ field: c.field, from: c.from, to: c.to }));
  if (action.operation === 'update_profile_filling_goal') return updateStep(action.operation, changes, quotaGoalsOf(changes, observed.targetGroups[tg.key]?.fillingGoal?.quotas ?? []));
  return updateStep(action.operation, changes);
}

/**
 * The quota goals among a goal update's changes (`profiles.<profile>.<quota>.completes_goal`, as plan/live-plan.ts
 * names them), with the ids the exchange writes them by (update_profile_filling_goal's profile and target ids),
 * found by the names observe read with them.
 */
export function quotaGoalsOf(
  changes: readonly { field: string; to: unknown }[],
  observed: readonly { profileId: string; profileName: string; quotaId: string; quotaName: string }[],
): { field: string; profileId: string; targetId: string; completesGoal: number }[] {
  const goals: { field: string; profileId: string; targetId: string; completesGoal: number }[] = [];
  for (const change of changes) {
    if (change.field === 'filling_goal' || typeof change.to !== 'number') continue;
    const quota = observed.find((q) => change.field === `profiles.${q.profileName}.${q.quotaName}.completes_goal`);
    if (quota) goals.push({ field: change.field, profileId: quota.profileId, targetId: quota.quotaId, completesGoal: change.to });
  }
  return goals;
}

/**
 * An `update_live` step as a revision of an older build carried it (`{operation, changes: [{field, to}], quotaGoals}`,
 * before the step carried its request): a workflow replaying a history that holds one runs it as it ran then.
 */
interface UpdateLiveStepBeforeRequests {
  kind: 'update_live';
  operation: LiveUpdateOperation;
  changes: { field: string; to: unknown }[];
  quotaGoals?: QuotaGoalIds[];
}

/** The request an `update_live` step sends and the changes it cannot carry: the step's own, or one of an older step's shape built from its changes. */
export function requestOfStep(step: Extract<TargetGroupStep, { kind: 'update_live' }> | UpdateLiveStepBeforeRequests): { request: LiveRequest; unwritable: LiveUnwritable[] } {
  if ('request' in step && step.request) return { request: step.request, unwritable: step.unwritable ?? [] };
  const old = step as UpdateLiveStepBeforeRequests;
  return liveRequest(old.operation, old.changes, old.quotaGoals ?? []);
}

/** The fields a live step changes (recorded unapplied when a gate refuses the change): an update's, or `fielding`. */
export function fieldsOfLiveStep(step: TargetGroupStep): string[] {
  if (step.kind === 'update_live') return step.changes.map((c) => c.field);
  if (step.kind === 'fielding') return ['fielding'];
  return [];
}

/**
 * The live steps of a target group, in the plan's order: `before` the profiles and lists (resume or relaunch,
 * the check, the updates), `after` them (pause or complete: the run's last write).
 */
export function liveSteps(tg: DesiredTargetGroup, actions: readonly PlannedAction[], observed: ObservedStudy): { before: TargetGroupStep[]; after: TargetGroupStep[] } {
  const before: TargetGroupStep[] = [];
  const after: TargetGroupStep[] = [];
  for (const action of actions) {
    const step = stepOf(tg, action, observed);
    if (!step) continue;
    if (step.kind === 'fielding' && (step.action === 'pause' || step.action === 'complete')) after.push(step);
    else before.push(step);
  }
  return { before, after };
}

/** The target groups the file no longer declares that the plan completes (removed_target_groups: complete): the study's `complete_removed`. */
export function removedToComplete(desired: DesiredStudy, plan: StudyPlan): string[] {
  const declared = new Set(desired.targetGroups.flatMap((tg) => [tg.key, ...(tg.movedFrom ? [tg.movedFrom] : [])]));
  return plan.actions.filter((a) => a.kind === 'complete' && a.resource === 'fielding' && !declared.has(a.key)).map((a) => a.key);
}
