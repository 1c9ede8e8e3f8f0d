// The one observe -> plan -> schedule -> program pipeline: what the study workflow carries out for a revision,
// and what `studyflow plan` shows (client/plan-studies.ts). Both call this function, so the two cannot drift apart.
import { holdResumes, judgeBudget, type BudgetHeld, type BudgetInput } from './budget';
import { planStudy } from './plan-study';
import { programStudy, type RunningChild, type StudyProgram } from './program';
import { scheduleStudy, type StudySchedule } from './schedule';
import type { DesiredStudy, ObservedStudy, StudyPlan } from './types';

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
}

/**
 * The plan of a revision (desired against observed), the schedule apply follows and its program. `running` are
 * the target groups whose workflow runs already (with the digest of the spec each was given and its phase): they
 * take the revision themselves. `children` defaults to their keys. `budget`: for a study with a budget, the
 * prices of the launches ahead (over it, the plan launches nothing, so neither does the schedule nor the
 * program: `judgeBudget`) and the target groups its hold keeps paused (`holdResumes`).
 */
export function planRevision(
  desired: DesiredStudy,
  observed: ObservedStudy,
  running: ReadonlyMap<string, RunningChild> = new Map(),
  children: ReadonlySet<string> = new Set(running.keys()),
  budget: RevisionBudget = {},
): PlannedRevision {
  const seen = withGuardHolds(observed, running);
  const unjudged = holdResumes(planStudy(desired, seen), budget.held);
  const plan = budget.inputs ? judgeBudget(unjudged, desired, budget.inputs) : unjudged;
  const schedule = scheduleStudy(desired, plan, seen, children);
  return { plan, schedule, program: programStudy(desired, seen, { plan, schedule, running: new Map(running) }) };
}

/**
 * The observed state with the guards' hold of each running target group its workflow reports: the exchange shows
 * the run paused, and only studyflow knows that a guard paused it (plan/live-fielding.ts does not resume it then).
 */
export function withGuardHolds(observed: ObservedStudy, running: ReadonlyMap<string, RunningChild>): ObservedStudy {
  const held = [...running].filter(([key, child]) => child.guardHold && observed.targetGroups[key]);
  if (held.length === 0) return observed;
  const targetGroups = { ...observed.targetGroups };
  for (const [key, child] of held) targetGroups[key] = { ...targetGroups[key], guardHold: child.guardHold };
  return { ...observed, targetGroups };
}
