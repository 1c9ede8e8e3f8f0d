import { condition } from '@temporalio/workflow';
import type { TargetGroupState } from './state';

/** A manual launch waits for `studyflow approve` (or a new revision). True when it may launch. */
export async function awaitApproval(state: TargetGroupState): Promise<boolean> {
  if (state.revision.desired.launch.mode !== 'manual' || state.approved) return true;
  state.enter('awaiting_approval', { message: 'waiting for `studyflow approve` or an approve signal' });
  await condition(() => state.approved || state.pendingRevision !== undefined);
  return state.approved;
}
