import type { GuardKind } from '../../plan/types';
import type { Api } from '../activity-proxies';
import type { FieldingControlRequest } from '../messages';
import { resumeUnderGuards } from './guard-hold';
import type { TargetGroupState } from './state';

/**
 * Pauses, resumes or completes the fielding run with its ETag (If-Match), re-reading it on 412. Returns why it
 * could not (also the status's message), or undefined once the run is there. A pause a guard asks for names it
 * (`cause`: the worker counts the trip); a resume is refused while a guard holds the target group paused,
 * unless `studyflow approve --resume` asked for it (./guard-hold.ts).
 */
export async function applyControl(state: TargetGroupState, api: Api, action: FieldingControlRequest['action'], options: { cause?: { guard: GuardKind } } = {}): Promise<string | undefined> {
  if (!state.status.fieldingRunId) {
    state.status.message = `cannot ${action}: the target group has no fielding run yet`;
    return state.status.message;
  }
  const guarded: ReturnType<typeof resumeUnderGuards> = action === 'resume' ? resumeUnderGuards(state) : {};
  if ('refused' in guarded) {
    state.status.message = `cannot resume: ${guarded.refused}`;
    state.publish();
    return state.status.message;
  }
  const calls = api();
  const base = { ...state.base, fieldingRunId: state.status.fieldingRunId };
  const control = action === 'pause' ? calls.pauseFieldingRun : action === 'resume' ? calls.resumeFieldingRun : calls.completeFieldingRun;
  for (let attempt = 0; attempt < 3; attempt += 1) {
    state.etag ??= (await calls.getFieldingRun(base)).etag;
    const result = await control({ ...base, etag: state.etag, ...(options.cause ? { cause: options.cause } : {}) });
    state.etag = result.etag;
    if (result.outcome === 'applied' || result.outcome === 'already_in_state') {
      if (result.outcome === 'applied') state.writes += 1;
      guarded.release?.();
      state.enter(action === 'pause' ? 'paused' : action === 'resume' ? 'resumed' : 'completed');
      return undefined;
    }
    if (result.outcome === 'precondition_failed') continue; // re-read, then decide again
    state.status.message = `cannot ${action}: ${result.detail ?? `the run is ${String(result.run.status)}`}`;
    return state.status.message;
  }
  state.status.message = `cannot ${action}: the fielding run kept changing (412 three times)`;
  return state.status.message;
}
