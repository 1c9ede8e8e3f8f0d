// Fielding controls the study itself sends its target groups' workflows: the budget's pause and resume, the
// completion of a target group the file removed. The workflow carries each out through its own fielding path (one
// writer of the run and of its phase); the revision that sent them settles once their progress shows the phase left,
// so what apply's table, `status` and the search attributes say is where the exchange is, not where it was.
import { condition, getExternalWorkflowHandle, isCancellation, log } from '@temporalio/workflow';
import type { FieldingControlRequest } from '../messages';
import { targetGroupControlSignal } from '../child-protocol';
import type { StudyState } from './state';

/** How long a revision waits for its controls to show in the target groups' progress before it settles anyway. */
export const CONTROLS_TAKEN_WITHIN_MS = 60_000;

/**
 * Sends `action` to the target group's workflow and remembers the phase it leaves. False when the workflow did not
 * take it (it ended): the caller decides what then.
 */
export async function sendControl(state: StudyState, key: string, action: FieldingControlRequest['action']): Promise<boolean> {
  const from = state.status.targetGroups[key]?.phase;
  // In flight from the moment it is sent: a revision settling meanwhile waits for it (the budget's control is not awaited).
  if (from) state.controlsInFlight.set(key, from);
  try {
    await getExternalWorkflowHandle(state.childId(key)).signal(targetGroupControlSignal, action);
  } catch (error) {
    if (isCancellation(error)) throw error;
    state.controlsInFlight.delete(key);
    log.warn(`a target group's workflow did not take the study's ${action}`, { key });
    return false;
  }
  return true;
}

/**
 * Waits until every target group the study sent a control has left the phase it was in (its progress arrived), a
 * newer revision arrived, or CONTROLS_TAKEN_WITHIN_MS passed (a control its workflow refused leaves the phase as it
 * was: the status says why). Forgets the controls either way.
 */
export async function untilControlsTaken(state: StudyState): Promise<void> {
  if (state.controlsInFlight.size === 0) return;
  const taken = () => [...state.controlsInFlight].every(([key, from]) => state.status.targetGroups[key]?.phase !== from);
  const inTime = await condition(() => state.pending !== undefined || taken(), CONTROLS_TAKEN_WITHIN_MS);
  if (!inTime) log.warn('target groups did not show the study\'s fielding controls in time', { keys: [...state.controlsInFlight.keys()] });
  state.controlsInFlight.clear();
}
