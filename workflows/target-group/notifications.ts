// What a target group's workflow tells its study's `notify:` targets (workflows/notify.ts sends): a launch gate
// that refuses, a launch that fails for good, drift found by the watch, the target group completed. Each is
// raised by the step that sees it, with one call here, and never waits: the lifecycle goes on while the
// activity runs. The workflow awaits what is still in flight only before it ends or continues as new.
//
// Once per real occurrence: every event kind has a count carried across continue-as-new, and the count is the
// dedupe key's occurrence (with the revision or the fielding run it is about). A retried activity keeps its
// input, so its key; a replay schedules nothing again; a real second occurrence (drift cleared and found again,
// a gate refusing again after a new revision, a relaunched run completing) has the next count, so a new key.
import type { NotificationEvent, NotifyEventKind } from '../../shared/notify-events';
import { WATCHED_PHASES } from '../../plan/phase-groups';
import type { TargetGroupPhase } from '../messages';
import { notify } from '../notify';
import type { TargetGroupState } from './state';

/** What the notices keep across continue-as-new. */
export interface CarriedNotices {
  /** Occurrences raised so far, by event kind. */
  counts: Partial<Record<NotifyEventKind, number>>;
  /** The drifted fields last notified (empty once the drift cleared). */
  driftNotified: string[];
  /** The target group completed while watched, and target_group_completed is not raised yet. */
  completionDue: boolean;
}

/** A target group's notifications: what was raised, and what is still in flight. */
export class TargetGroupNotices {
  readonly counts: Partial<Record<NotifyEventKind, number>>;
  driftNotified: string[];
  completionDue: boolean;
  private readonly inFlight = new Set<Promise<unknown>>();

  constructor(carried?: CarriedNotices) {
    this.counts = { ...(carried?.counts ?? {}) };
    this.driftNotified = [...(carried?.driftNotified ?? [])];
    this.completionDue = carried?.completionDue ?? false;
  }

  carried(): CarriedNotices {
    return { counts: { ...this.counts }, driftNotified: [...this.driftNotified], completionDue: this.completionDue };
  }

  /** A phase change (TargetGroupState.enter): completing from a fielding phase makes target_group_completed due. */
  entered(from: TargetGroupPhase | 'none', phase: TargetGroupPhase): void {
    if (phase === 'completed' && WATCHED_PHASES.has(from)) this.completionDue = true;
  }

  /** Sends `event` to the targets of the revision, its occurrence `about#n` (n: this kind's next count). */
  raise(state: TargetGroupState, event: NotificationEvent, about: string): void {
    const n = (this.counts[event.kind] ?? 0) + 1;
    this.counts[event.kind] = n;
    const sending = notify(state.revision.desired.notify, event, `${about}#${n}`);
    this.inFlight.add(sending);
    void sending.then(() => this.inFlight.delete(sending));
  }

  /** Resolves once every notification raised has an outcome (bounded by the activity's retry policy); never rejects. */
  async settled(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.all([...this.inFlight]);
  }
}

function base(state: TargetGroupState) {
  return { studyId: state.input.studyId, targetGroup: state.status.key, at: new Date().toISOString() };
}

/** A launch gate refused the target group (`gate`: the launch gate, or the live gate of a change). */
export function noticeGateBlocked(state: TargetGroupState, gate: 'launch' | 'live change', reason: string): void {
  state.notices.raise(state, { ...base(state), kind: 'gate_blocked', gate, reason }, state.revision.revision);
}

/** A revision's work failed: a launch_failed when it failed launching (the phase it failed in). */
export function noticeFailure(state: TargetGroupState, failedIn: TargetGroupPhase, reason: string): void {
  if (failedIn !== 'launching') return;
  state.notices.raise(state, { ...base(state), kind: 'launch_failed', reason }, state.revision.revision);
}

/**
 * After the watch compared the target group with the file: drift_found when a field drifted that was not
 * notified yet (the event names every drifted field); drift that cleared is forgotten, so it is told again.
 */
export function noticeDrift(state: TargetGroupState): void {
  const fields = (state.status.drift ?? []).map((d) => d.field);
  const fresh = fields.filter((f) => !state.notices.driftNotified.includes(f));
  state.notices.driftNotified = fields;
  if (fresh.length === 0) return;
  state.notices.raise(state, { ...base(state), kind: 'drift_found', fields }, 'drift');
}

/** The target group completed while watched: target_group_completed once, with the last reading's completes. */
export function noticeCompletion(state: TargetGroupState): void {
  if (!state.notices.completionDue) return;
  state.notices.completionDue = false;
  const goal = state.revision.desired.draft.filling_goal;
  const completes = state.report.performance?.completes ?? state.status.events.sessionsByStatus.Complete ?? 0;
  state.notices.raise(
    state,
    { ...base(state), kind: 'target_group_completed', completes, ...(typeof goal === 'number' ? { goal } : {}) },
    state.status.fieldingRunId ?? 'run',
  );
}
