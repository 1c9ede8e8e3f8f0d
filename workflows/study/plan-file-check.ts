// A revision applied from a plan file (`apply plan.sfplan`, ApplyRequest.planned): the study workflow checks, after
// it observed and planned and before any write, that no resource its plan writes moved since the plan file's
// fingerprints (plan/plan-file.ts movedSincePlan). The client checked the same just before; this closes the time
// between its check and the workflow's reading. A move stops the revision: StalePlan, nothing written.
import { ApplicationFailure } from '@temporalio/workflow';
import { movedSincePlan, type Fingerprints } from '../../plan/plan-file';
import type { DesiredStudy, ObservedStudy, PlannedAction } from '../../plan/types';

/** The failure type of a revision whose plan file went stale (client/follow.ts: apply exits 5). */
export const STALE_PLAN = 'StalePlan';

/** @throws ApplicationFailure StalePlan (non-retryable) naming the moved resources. */
export function stopIfMovedSincePlan(desired: DesiredStudy, observed: ObservedStudy, actions: readonly PlannedAction[], planned: Fingerprints): void {
  const moved = movedSincePlan(desired, observed, actions, planned);
  if (moved.length === 0) return;
  const what = moved.map((m) => `${m.resource} (planned ${m.planned}, now ${m.now})`).join('; ');
  throw ApplicationFailure.create({ type: STALE_PLAN, message: `the exchange changed since the plan file: ${what}; nothing was written: plan again`, nonRetryable: true });
}
