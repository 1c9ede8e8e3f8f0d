// What planning a revision takes besides desired and observed, derived in one place: the study workflow
// (workflows/study/apply-revision.ts, budget.ts) and `studyflow plan` (client/plan-studies.ts) both call
// `revisionInputs` with what they read (the observed state and the study's status), then make the reads it names
// through their own means (the workflow its launch gates, the plan its server checks) and hand the budget's
// prices to `revisionBudgetFrom`. Pure.
import { heldByBudget, launchAhead, type BudgetHeld, type BudgetInput } from './budget';
import type { RevisionBudget } from './pipeline';
import { runningFromStatus, type RunningChild } from './program';
import type { DesiredStudy, Money, ObservedStudy } from './types';

/** What a study's status holds that planning a revision starts from (workflows/messages.ts StudyStatus fits). */
export type RevisionStatus = NonNullable<Parameters<typeof runningFromStatus>[0]> & {
  /** The budget's spend last read, and the hold (the target groups the study paused at its budget). */
  budget?: { spent?: Money; reached?: { paused: readonly string[] } };
};

export interface RevisionInputs {
  /** The target groups whose workflow runs already (`runningFromStatus`): they take the revision themselves. */
  running: Map<string, RunningChild>;
  /** The target groups the budget's hold keeps paused under the revision's budget (`heldByBudget`). */
  held?: BudgetHeld;
  /**
   * The target groups whose launch is ahead (`launchAhead`): `studyflow plan` asks its server checks of these (a
   * launched one is skipped), and their prices make the budget's prediction.
   */
  launchAhead: string[];
  /** The launches ahead whose price the budget needs (the study workflow reads their launch gates): all of them with a budget, none without. */
  toPrice: string[];
}

/**
 * The inputs of a revision's plan from what was read: the observed state and the study's status (undefined: no
 * workflow remembers the study, or `plan` runs offline).
 */
export function revisionInputs(desired: DesiredStudy, observed: ObservedStudy, status: RevisionStatus | undefined): RevisionInputs {
  const hold = status?.budget;
  const held = heldByBudget(desired.budget, hold?.reached ? { spent: hold.spent, paused: hold.reached.paused } : undefined);
  const ahead = launchAhead(desired, observed);
  return { running: runningFromStatus(status), ...(held ? { held } : {}), launchAhead: ahead, toPrice: desired.budget ? ahead : [] };
}

/** The budget's part of planning (plan/pipeline.ts planRevision): the hold, and the prices read (`prices`; absent: not judged). */
export function revisionBudgetFrom(inputs: RevisionInputs, prices?: readonly BudgetInput[]): RevisionBudget {
  return { ...(prices ? { inputs: prices } : {}), ...(inputs.held ? { held: inputs.held } : {}) };
}
