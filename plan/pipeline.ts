// The one observe -> plan -> schedule -> program pipeline: what the study workflow carries out for a revision,
// and what `studyflow plan` shows (client/plan-studies.ts). Both call this function, so the two cannot drift apart.
import { judgeBudget, type BudgetInput } from './budget';
import { planStudy } from './plan-study';
import { programStudy, type RunningChild, type StudyProgram } from './program';
import { scheduleStudy, type StudySchedule } from './schedule';
import type { DesiredStudy, ObservedStudy, StudyPlan } from './types';

export interface PlannedRevision {
  plan: StudyPlan;
  schedule: StudySchedule;
  /** Every step apply runs, for the study and each target group (plan/program.ts). */
  program: StudyProgram;
}

/**
 * The plan of a revision (desired against observed), the schedule apply follows and its program. `running` are
 * the target groups whose workflow runs already (with the digest of the spec each was given and its phase): they
 * take the revision themselves. `children` defaults to their keys. `budget`: the prices of the target groups
 * whose launch is ahead (plan/budget.ts), for a study with a budget: over it, the plan launches nothing, so
 * neither does the schedule nor the program (`judgeBudget`). Absent: the budget is not judged.
 */
export function planRevision(
  desired: DesiredStudy,
  observed: ObservedStudy,
  running: ReadonlyMap<string, RunningChild> = new Map(),
  children: ReadonlySet<string> = new Set(running.keys()),
  budget?: readonly BudgetInput[],
): PlannedRevision {
  const unjudged = planStudy(desired, observed);
  const plan = budget ? judgeBudget(unjudged, desired, budget) : unjudged;
  const schedule = scheduleStudy(desired, plan, observed, children);
  return { plan, schedule, program: programStudy(desired, observed, { plan, schedule, running: new Map(running) }) };
}
