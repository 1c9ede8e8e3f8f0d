// The one observe -> plan -> schedule -> program pipeline: what the study workflow carries out for a revision,
// and what `studyflow plan` shows (client/plan-studies.ts). Both call this function, so the two cannot drift apart.
import { holdResumes, judgeBudget, type BudgetHeld, type BudgetInput } from './budget';
import { isWrite, planStudy } from './plan-study';
import { programStudy, specDigest, type RunningChild, type StudyProgram } from './program';
import { scheduleStudy, type StudySchedule } from './schedule';
import { scopePlan, scopedDesired, type ApplyScope } from './scope';
import type { DesiredStudy, ObservedStudy, PlannedAction, StudyPlan, UnappliedChange } from './types';

/** What the plan judges besides desired and observed: the study's budget. */
export interface RevisionBudget {
  /** The prices of the target groups whose launch is ahead (plan/budget.ts): over the budget, the plan launches nothing. Absent: not judged. */
  inputs?: readonly BudgetInput[];
  /** The target groups the budget holds paused (`heldByBudget`): the revision does not resume them. */
  held?: BudgetHeld;
}

export interface PlannedRevision {
  plan: StudyPlan;
  schedule: StudySchedule;
  /** Every step apply runs, for the study and each target group (plan/program.ts). */
  program: StudyProgram;
  /** The desired study the program applies: the study, or under a partial apply its target groups in scope (plan/scope.ts). */
  applied: DesiredStudy;
  /** The writes a partial apply leaves pending (empty: none). */
  leftOut: UnappliedChange[];
}

/**
 * The plan of a revision (desired against observed), the schedule apply follows and its program. `running` are
 * the target groups whose workflow runs already (with the digest of the spec each was given and its phase): they
 * take the revision themselves. `children` defaults to their keys. `budget`: for a study with a budget, the
 * prices of the launches ahead (over it, the plan launches nothing, so neither does the schedule nor the
 * program: `judgeBudget`) and the target groups its hold keeps paused (`holdResumes`). `scope`: a partial apply
 * (plan/scope.ts): the plan keeps the actions of the target groups left out as `none`, and the schedule and the
 * program take only the target groups in scope.
 */
export function planRevision(
  desired: DesiredStudy,
  observed: ObservedStudy,
  running: ReadonlyMap<string, RunningChild> = new Map(),
  children: ReadonlySet<string> = new Set(running.keys()),
  budget: RevisionBudget = {},
  scope?: ApplyScope,
): PlannedRevision {
  const seen = withGuardHolds(observed, running);
  const unjudged = withLaunchesInHand(holdResumes(planStudy(desired, seen), budget.held), desired, running);
  const whole = budget.inputs ? judgeBudget(unjudged, desired, budget.inputs) : unjudged;
  const { plan, keys, leftOut } = scopePlan(whole, desired, scope);
  const applied = scopedDesired(desired, keys);
  const schedule = scheduleStudy(applied, plan, seen, children);
  return { plan, schedule, program: programStudy(applied, seen, { plan, schedule, running: new Map(running) }), applied, leftOut };
}

/**
 * The observed state with the guards' hold and the soft launch of each running target group its workflow reports:
 * the exchange shows the run paused, and only studyflow knows that a guard or a soft launch paused it
 * (plan/live-fielding.ts does not resume it then).
 */
export function withGuardHolds(observed: ObservedStudy, running: ReadonlyMap<string, RunningChild>): ObservedStudy {
  const held = [...running].filter(([key, child]) => (child.guardHold || child.softLaunch) && observed.targetGroups[key]);
  if (held.length === 0) return observed;
  const targetGroups = { ...observed.targetGroups };
  for (const [key, child] of held) {
    targetGroups[key] = { ...targetGroups[key], ...(child.guardHold ? { guardHold: child.guardHold } : {}), ...(child.softLaunch ? { softLaunch: child.softLaunch } : {}) };
  }
  return { ...observed, targetGroups };
}

/**
 * The phases in which a target group's running workflow holds its own launch: it waits for another target group's
 * completes, for approval, or for a moment on its durable timer, or it is launching (an approval just given: a re-apply
 * right after `studyflow approve` must not hand it its gate again; a run the exchange schedules is no launch action).
 */
const HOLDS_ITS_LAUNCH: ReadonlySet<string> = new Set(['awaiting_completes', 'awaiting_approval', 'scheduled', 'launching']);

/**
 * A launch that the target group's running workflow already holds is no change: given the same spec and nothing else
 * to write, the workflow goes on waiting for its moment, and a re-apply of the unchanged file hands it nothing (the
 * plan says `none`: held by its workflow). Any other write for it, or a changed spec, hands it the revision as before.
 */
export function withLaunchesInHand(plan: StudyPlan, desired: DesiredStudy, running: ReadonlyMap<string, RunningChild>): StudyPlan {
  const inHand = (action: PlannedAction): boolean => {
    if (action.kind !== 'launch') return false;
    const child = running.get(action.key);
    const tg = desired.targetGroups.find((t) => t.key === action.key);
    if (!child?.phase || !HOLDS_ITS_LAUNCH.has(child.phase) || !tg || child.specDigest !== specDigest(tg)) return false;
    return !plan.actions.some((other) => other !== action && other.key === action.key && isWrite(other));
  };
  if (!plan.actions.some(inHand)) return plan;
  const actions = plan.actions.map((a): PlannedAction => (inHand(a) ? { ...a, kind: 'none', reason: `held by its workflow (${running.get(a.key)?.phase}): ${a.reason}` } : a));
  return { ...plan, actions, hasChanges: actions.some(isWrite) };
}
