import type { GuardKind } from '../../plan/types';
import type { Api } from '../activity-proxies';
import { failureOf } from '../failures';
import type { FieldingControlAnswer, FieldingControlRequest } from '../messages';
import { resumeUnderGuards } from './guard-hold';
import type { TargetGroupState } from './state';

type Action = FieldingControlRequest['action'];
type Answer = (answer: FieldingControlAnswer) => void;

/**
 * Who waits for the answer of each queued control (`state.controls`), in the queue's order: one slot per control,
 * empty for a signal's. The watch takes the head of the queue and hands it to applyControl at once
 * (workflows/target-group/watch.ts), so applyControl finds its slot at the head here whenever there is one slot
 * more than controls left. Every control therefore enters the queue through {@link queueControl}.
 */
const waiting = new WeakMap<TargetGroupState, (Answer | undefined)[]>();

function waitingOf(state: TargetGroupState): (Answer | undefined)[] {
  let slots = waiting.get(state);
  if (!slots) waiting.set(state, (slots = []));
  return slots;
}

/** Queues a fielding control for the watch; `answer` hears what became of it. */
export function queueControl(state: TargetGroupState, action: Action, answer?: Answer): void {
  const slots = waitingOf(state);
  while (slots.length < state.controls.length) slots.push(undefined); // controls queued before this ledger: no answer
  state.controls.push(action);
  slots.push(answer);
}

/**
 * The answer of `targetGroupFieldingControlUpdate`: a target group without a fielding run is refused at once (nothing to
 * control, and its workflow may be waiting for an approval or a gate); otherwise the control is queued and answered
 * once the watch applied or refused it.
 */
export function answerControl(state: TargetGroupState, action: Action): Promise<FieldingControlAnswer> {
  if (!state.status.fieldingRunId) return Promise.resolve(controlAnswer(state, action, `cannot ${action}: the target group has no fielding run yet (it is ${state.status.phase})`));
  return new Promise((resolve) => queueControl(state, action, resolve));
}

/** The update's validator: an action it knows. */
export function validateControl(action: unknown): void {
  if (action !== 'pause' && action !== 'resume' && action !== 'complete') throw new Error(`fielding action must be pause, resume or complete, got ${JSON.stringify(action)}`);
}

function controlAnswer(state: TargetGroupState, action: Action, refused: string | undefined): FieldingControlAnswer {
  const { key, phase } = state.status;
  return refused === undefined
    ? { targetGroup: key, action, outcome: 'applied', message: `${action} applied to ${key}: it is ${phase}`, phase }
    : { targetGroup: key, action, outcome: 'refused', message: refused, phase };
}

/** The answer slot of the control the watch just took off the queue, if this call is that control's. */
function takeAnswer(state: TargetGroupState): Answer | undefined {
  const slots = waiting.get(state);
  return slots && slots.length > state.controls.length ? slots.shift() : undefined;
}

/**
 * Pauses, resumes or completes the fielding run with its ETag (If-Match), re-reading it on 412. Returns why it
 * could not (also the status's message), or undefined once the run is there. A pause a guard asks for names it
 * (`cause`: the worker counts the trip); a resume is refused while a guard holds the target group paused,
 * unless `studyflow approve --resume` asked for it (./guard-hold.ts).
 */
export async function applyControl(state: TargetGroupState, api: Api, action: Action, options: { cause?: { guard: GuardKind } } = {}): Promise<string | undefined> {
  const answer = takeAnswer(state); // before any await: the watch took its control off the queue just now
  if (!answer) return await controlFieldingRun(state, api, action, options);
  try {
    const refused = await controlFieldingRun(state, api, action, options);
    answer(controlAnswer(state, action, refused));
    return refused;
  } catch (error) {
    answer(controlAnswer(state, action, `cannot ${action}: ${failureOf(error).message}`));
    throw error;
  }
}

async function controlFieldingRun(state: TargetGroupState, api: Api, action: Action, options: { cause?: { guard: GuardKind } }): Promise<string | undefined> {
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
