// What `studyflow plan --detailed-exitcode` answers, decided from the plans and their server checks: 0 nothing
// to change, 2 changes pending that apply can make, 3 some change the file asks for cannot be applied (a blocked
// field or state, or a server check whose outcome is `blocking`: the launch gate will hold; it wins over pending
// changes, so a pull request's check does not stay green over it). 1 (an error) is the CLI's own.
import { isOverBudgetAction } from './budget';
import type { TargetGroupChecks } from './server-checks';
import type { PlannedAction, StudyPlan, UnappliedChange } from './types';

export const PLAN_EXIT = { none: 0, pending: 2, blocked: 3 } as const;

/** The actions of a plan that the file asks for and apply cannot make. */
export function blockedActions(plan: StudyPlan): PlannedAction[] {
  return plan.actions.filter((a) => a.kind === 'blocked');
}

/** The checks, of every target group given, whose outcome is `blocking` (judged data, never the rendered line). */
export function blockingChecks(checks: readonly TargetGroupChecks[]): { key: string; check: TargetGroupChecks['checks'][number] }[] {
  return checks.flatMap((group) => group.checks.filter((check) => check.outcome === 'blocking').map((check) => ({ key: group.key, check })));
}

/** `checks`: the server checks of the same plans' target groups (none offline, or with the API out of reach). */
export function planExitCode(plans: readonly StudyPlan[], checks: readonly TargetGroupChecks[] = []): (typeof PLAN_EXIT)[keyof typeof PLAN_EXIT] {
  if (plans.some((p) => blockedActions(p).length > 0)) return PLAN_EXIT.blocked;
  if (blockingChecks(checks).length > 0) return PLAN_EXIT.blocked;
  if (plans.some((p) => p.hasChanges)) return PLAN_EXIT.pending;
  return PLAN_EXIT.none;
}

/** The plan's blocked actions as unapplied changes, one per field (the study's status lists them after apply). */
export function blockedChanges(actions: readonly PlannedAction[]): UnappliedChange[] {
  return actions
    .filter((a) => a.kind === 'blocked')
    .flatMap((a) => {
      // A study over its budget names the file's `budget` (plan/budget.ts), not the project it blocks.
      const field = isOverBudgetAction(a) ? 'budget' : a.resource;
      const fields = a.changes?.length ? a.changes.map((c) => c.field) : [field];
      return fields.map((field) => ({ targetGroup: a.key, field, reason: 'blocked' as const, detail: a.reason }));
    });
}
