// When a study or target-group run ends in continue-as-new, and on which build the next run starts (docs/deploy.md,
// "Upgrading studyflow"). Both workflows are PINNED to the build (worker deployment version) they started on: a
// deploy never changes the code under a running run. A run moves to the current build only at a safe point of its
// own loop (after a revision is applied or a watch tick is done, nothing in flight: no API write, no job poll, no
// revision waiting), by continuing as new with `initialVersioningBehavior: 'AUTO_UPGRADE'`: the new run starts on
// the deployment's current version and is pinned there. The decision is pure; the two workflows call it.
import { makeContinueAsNewFunc, workflowInfo, type Workflow } from '@temporalio/workflow';

/** What the server told this workflow task, and what the loop knows of its own work. */
export interface SafePointInput {
  /** The history has grown long enough that the server suggests continue-as-new. */
  continueAsNewSuggested: boolean;
  /** The deployment's current (or ramping) version is no longer the one this run is pinned to. */
  targetVersionChanged: boolean;
  /** Something of the loop's own is not done: a revision waiting to be applied (the caller names it). */
  busy: boolean;
}

/** Stay in this run, or continue as new (and whether the next run starts on the deployment's target version). */
export type SafePointDecision = { continueAsNew: false } | { continueAsNew: true; reason: 'history' | 'new-build'; moveToTarget: boolean };

/**
 * At a safe point: continue as new when the history is long or a new build is the target, unless the loop is busy
 * (its waiting revision is applied first, and the move comes at the next safe point). A run continued because its
 * history is long while a new build is also the target moves too; one continued for its history alone stays on
 * its build (the next run inherits the pinned version).
 */
export function safePointDecision(input: SafePointInput): SafePointDecision {
  if (input.busy) return { continueAsNew: false };
  if (input.targetVersionChanged) return { continueAsNew: true, reason: 'new-build', moveToTarget: true };
  if (input.continueAsNewSuggested) return { continueAsNew: true, reason: 'history', moveToTarget: false };
  return { continueAsNew: false };
}

/** The current workflow task's view of continue-as-new and the target version. */
export function serverHints(): Omit<SafePointInput, 'busy'> {
  const info = workflowInfo();
  return { continueAsNewSuggested: info.continueAsNewSuggested, targetVersionChanged: info.targetWorkerDeploymentVersionChanged };
}

/** Whether a loop waiting for its next step should wake to reach a safe point (a long history or a new build). */
export function wantsSafePoint(): boolean {
  const hints = serverHints();
  return hints.continueAsNewSuggested || hints.targetVersionChanged;
}

/** The continue-as-new of `decision`: onto the deployment's target version when it moves, else on this build. */
export function continueAsNewFor<F extends Workflow>(decision: { moveToTarget: boolean }): (...args: Parameters<F>) => Promise<never> {
  return makeContinueAsNewFunc<F>(decision.moveToTarget ? { initialVersioningBehavior: 'AUTO_UPGRADE' } : {});
}

// Each run stays on the build it started on: the versioned worker's defaultVersioningBehavior is PINNED
// (worker/studyflow-worker.ts). The workflows set no behavior of their own: setWorkflowOptions' versioningBehavior is
// refused by a worker without deployment options (a test environment's), and the worker's default says the same.
