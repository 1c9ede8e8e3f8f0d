// Partial apply (`apply --target-group KEY`, `--except KEY`): which target groups a revision applies, decided here,
// as a pure filter over the plan. A target group left out keeps its actions in the plan as `none`, with the reason
// that it is left out; its writes are named as pending (`left_out`) and nothing of it reaches the schedule or the
// program. The study-level writes the target groups in scope need (the project, the exclusion groups they are
// members of, the webhooks) stay in the plan, named as applied with them.
import { isWrite } from './plan-study';
import type { DesiredStudy, PlannedAction, StudyPlan, UnappliedChange } from './types';

/**
 * Which target groups an apply (or a plan) takes: `only` the target groups named (`--target-group`, repeatable),
 * all but those of `except` (`--except`, repeatable), or both. Absent or empty: the whole study.
 */
export interface ApplyScope {
  only?: string[];
  except?: string[];
}

/** Whether a scope leaves anything out at all. */
export function isPartial(scope: ApplyScope | undefined): scope is ApplyScope {
  return Boolean(scope && ((scope.only && scope.only.length > 0) || (scope.except && scope.except.length > 0)));
}

/** Whether the target group `key` is applied under `scope`. */
export function inScope(scope: ApplyScope | undefined, key: string): boolean {
  if (!isPartial(scope)) return true;
  if (scope.only && scope.only.length > 0 && !scope.only.includes(key)) return false;
  return !(scope.except ?? []).includes(key);
}

/** The scope as the command line says it, e.g. `--target-group us --except uk`. */
export function scopeFlags(scope: ApplyScope): string {
  return [...(scope.only ?? []).map((k) => `--target-group ${k}`), ...(scope.except ?? []).map((k) => `--except ${k}`)].join(' ');
}

/** The keys of a scope that name no target group of any of the studies (declared, or renamed from). */
export function unknownScopeKeys(studies: readonly DesiredStudy[], scope: ApplyScope | undefined): string[] {
  if (!isPartial(scope)) return [];
  const known = new Set(studies.flatMap((d) => d.targetGroups.flatMap((tg) => [tg.key, ...(tg.movedFrom ? [tg.movedFrom] : [])])));
  return [...new Set([...(scope.only ?? []), ...(scope.except ?? [])])].filter((key) => !known.has(key));
}

/** Whether an action belongs to one target group (its key is the target group's); the project, webhooks and exclusion groups themselves are the study's. */
export function isTargetGroupAction(action: PlannedAction): boolean {
  if (action.resource === 'project' || action.resource === 'webhook') return false;
  return !(action.resource === 'exclusion_group' && action.group === undefined);
}

/** A plan scoped to the target groups an apply takes, and the writes it leaves pending. */
export interface ScopedPlan {
  plan: StudyPlan;
  /** The target groups the apply takes, in the study's order. */
  keys: string[];
  /** Each write left out, as the study's status names what was not applied (reason `left_out`). */
  leftOut: UnappliedChange[];
}

/**
 * The plan of the target groups in `scope`: every action of a target group left out becomes `none` (its fields
 * kept, its reason saying why), an exclusion group none of the applied target groups is a member of is left out
 * too, and the study-level writes kept say that they are applied with the target groups in scope.
 */
export function scopePlan(plan: StudyPlan, desired: DesiredStudy, scope: ApplyScope | undefined): ScopedPlan {
  const keys = desired.targetGroups.filter((tg) => inScope(scope, tg.key)).map((tg) => tg.key);
  if (!isPartial(scope)) return { plan, keys, leftOut: [] };
  const why = `left out of this apply (${scopeFlags(scope)})`;
  const applied = keys.join(', ') || 'no target group';
  const needed = (action: PlannedAction): boolean => {
    if (isTargetGroupAction(action)) return inScope(scope, action.key);
    if (action.resource !== 'exclusion_group') return true;
    const group = desired.exclusionGroups.find((g) => g.name === action.key);
    return !group || group.targetGroups.some((key) => inScope(scope, key));
  };
  const leftOut: UnappliedChange[] = [];
  const actions = plan.actions.map((action): PlannedAction => {
    if (needed(action)) return isWrite(action) && !isTargetGroupAction(action) ? { ...action, reason: `${action.reason} (applied with ${applied})` } : action;
    if (!isWrite(action)) return action;
    leftOut.push({ targetGroup: action.key, field: action.resource, reason: 'left_out', detail: `${action.kind} ${action.resource}: ${why}` });
    return { ...action, kind: 'none', reason: `${why}: ${action.reason}` } as PlannedAction;
  });
  const notes = [...(plan.notes ?? []), { severity: 'info' as const, text: `partial apply: ${applied}; the changes of the others stay pending (${scopeFlags(scope)})` }];
  return { plan: { ...plan, actions, hasChanges: actions.some(isWrite), notes }, keys, leftOut };
}

/** The desired study of the target groups an apply takes: what the study's program and its steps run over. */
export function scopedDesired(desired: DesiredStudy, keys: readonly string[]): DesiredStudy {
  if (keys.length === desired.targetGroups.length) return desired;
  return { ...desired, targetGroups: desired.targetGroups.filter((tg) => keys.includes(tg.key)) };
}
