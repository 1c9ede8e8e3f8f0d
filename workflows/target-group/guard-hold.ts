// A guard's hold on a paused target group, as the fielding controls see it (./controls.ts): a resume is refused
// while a pausing guard that tripped is still in force as it was, unless `studyflow approve --resume` asked for
// it; then the trips are acknowledged (plan/guards.ts acknowledgeGuards) and who resumed is recorded. A revision
// that changes or drops the guard releases the hold by itself (plan/guards.ts holdingGuards). Kept apart from
// ./guards.ts, which pauses through ./controls.ts.
import { acknowledgeGuards, holdingGuards, type GuardHold } from '../../plan/guards';
import type { TargetGroupState } from './state';

/** The held trips still in force under the revision the target group runs. */
export function heldBy(state: TargetGroupState): GuardHold['guards'] {
  return holdingGuards(state.status.guards?.hold, state.revision.desired.guards);
}

/**
 * Before a resume: undefined when nothing holds the target group or someone approved the resume (the
 * returned `release` records it once the run is live again), else why it is refused.
 */
export function resumeUnderGuards(state: TargetGroupState): { refused: string } | { release?: () => void } {
  const held = heldBy(state);
  if (held.length === 0) {
    state.guardResumes.length = 0; // an approval that found no hold (it was released meanwhile) is spent
    return {};
  }
  const by = state.guardResumes.shift();
  if (by === undefined) {
    const names = held.map((h) => `${h.guard} (${h.text})`).join('; ');
    return { refused: `held by guard ${names}: resume with \`studyflow approve --resume\`, or change the guard in the study file` };
  }
  return { release: () => releaseHold(state, by, held.map((h) => h.guard)) };
}

/** The resume of `by` went through: the trips are acknowledged, the hold is gone, status and report say who. */
function releaseHold(state: TargetGroupState, by: string, guards: string[]): void {
  const at = new Date().toISOString();
  const view = state.status.guards;
  if (state.guardMemory) {
    state.guardMemory = acknowledgeGuards(state.guardMemory, at, { at, performance: state.report.performance, sessionsByStatus: state.status.events.sessionsByStatus });
  }
  if (view) {
    delete view.hold;
    view.active = [];
    view.states = view.states.map((s) => (s.state === 'tripped' ? { ...s, state: 'acknowledged', detail: `resumed by ${by} at ${at}` } : s));
    view.resumed = { by, at, guards };
  }
  state.addChange('event', `resumed by ${by}: guard ${guards.join(', ')} acknowledged`);
}
