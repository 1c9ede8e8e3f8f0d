// The one observe -> plan -> schedule pipeline: what the study workflow carries out for a revision, and what
// `studyflow plan` shows (client/plan-studies.ts). Both call this function, so the two cannot drift apart.
import { planStudy } from './plan-study';
import { scheduleStudy, type StudySchedule } from './schedule';
import type { DesiredStudy, ObservedStudy, StudyPlan } from './types';

export interface PlannedRevision {
  plan: StudyPlan;
  schedule: StudySchedule;
}

/**
 * The plan of a revision (desired against observed) and the schedule apply follows. `children` are the target
 * groups whose workflow runs already: they take the revision themselves (none when nothing runs yet).
 */
export function planRevision(desired: DesiredStudy, observed: ObservedStudy, children: ReadonlySet<string> = new Set()): PlannedRevision {
  const plan = planStudy(desired, observed);
  return { plan, schedule: scheduleStudy(desired, plan, observed, children) };
}
