// The one observe -> plan -> schedule -> program pipeline: what the study workflow carries out for a revision,
// and what `studyflow plan` shows (client/plan-studies.ts). Both call this function, so the two cannot drift apart.
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
 * take the revision themselves. `children` defaults to their keys.
 */
export function planRevision(
  desired: DesiredStudy,
  observed: ObservedStudy,
  running: ReadonlyMap<string, RunningChild> = new Map(),
  children: ReadonlySet<string> = new Set(running.keys()),
): PlannedRevision {
  const plan = planStudy(desired, observed);
  const schedule = scheduleStudy(desired, plan, observed, children);
  return { plan, schedule, program: programStudy(desired, observed, { plan, schedule, running: new Map(running) }) };
}
