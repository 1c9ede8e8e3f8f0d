// Guards in the watch: after every performance reading and every batch of session events, the target group's
// guards in force (the study file's, plan/types.ts DesiredGuard) are judged by the pure core (plan/guards.ts
// evaluateGuards) over what the state holds. A trip is recorded with its evidence (the reading, the threshold,
// the time) in status, in the report's changes and in the console (the StudyflowReason search attribute:
// `guard:<kind>`), and is sent to the `notify:` targets as guard_tripped (./notifications.ts). A pausing guard pauses the target group
// through the fielding path operators use (./controls.ts) and holds it paused (./guard-hold.ts) until
// `studyflow approve --resume` or a revision that changes the guard. docs/workflows.md, "Guards, budget and forecast".
import { evaluateGuards, holdAfter, type GuardEvaluation, type GuardEvidence, type GuardReading } from '../../plan/guards';
import { FIELDING_PHASES } from '../../plan/phase-groups';
import { latestTime } from '../../shared/times';
import type { Api } from '../activity-proxies';
import type { TargetGroupGuards } from '../messages';
import { applyControl } from './controls';
import { quotaReadingOf } from './quotas';
import type { TargetGroupState } from './state';

/** What woke the judging: a performance reading stored, or session events recorded. */
export type GuardTrigger = 'performance' | 'sessions';

/** The phases in which guards judge: the run is fielding, or paused (a trip there holds it paused). */
const JUDGED_PHASES: ReadonlySet<string> = new Set(FIELDING_PHASES);

/** The reading the guards judge, from what the state holds now (workflow time). */
export function guardReading(state: TargetGroupState, trigger: GuardTrigger): GuardReading {
  const performance = state.report.performance;
  const at = trigger === 'performance' && performance ? performance.readAt : new Date().toISOString();
  const reading: GuardReading = { at, sessionsByStatus: state.status.events.sessionsByStatus };
  if (performance) reading.performance = performance;
  // The run went live at the launch, or again at its last resume (by anyone: the operator, the file, a guard's approval).
  const liveSince = [state.status.liveAt, state.status.resumedAt, state.status.guards?.resumed?.at].filter((t): t is string => t !== undefined).sort().at(-1);
  reading.fielding = { status: state.status.phase, ...(liveSince ? { liveSince } : {}) };
  // The exchange's clock as far as it told it: the latest session update of the session events, the list's updated_at.
  const exchangeAt = latestTime(state.status.events.lastSessionUpdate, state.updatedAt);
  if (exchangeAt) reading.exchangeAt = exchangeAt;
  // The quotas as the watch last read them, with the pace they were forecast with (./quotas.ts): quota_behind judges them.
  const quotas = quotaReadingOf(state.status.quotas);
  if (quotas) reading.quotas = quotas;
  return reading;
}

/** The guards in status after an evaluation: each guard's state, the trips in force, the hold, the trip count. */
function guardsView(before: TargetGroupGuards | undefined, evaluation: GuardEvaluation, state: TargetGroupState): TargetGroupGuards {
  const view: TargetGroupGuards = {
    states: evaluation.outcomes.map((o) => ({ guard: o.guard, kind: o.kind, action: o.action, state: o.state, detail: o.detail })),
    active: evaluation.active,
    trips: (before?.trips ?? 0) + evaluation.tripped.length,
  };
  const hold = holdAfter(before?.hold, state.revision.desired.guards ?? [], evaluation);
  if (hold) view.hold = hold;
  if (before?.resumed) view.resumed = before.resumed;
  return view;
}

/** What the study needs to hear of: a state, a trip, a hold changed (a detail's figures alone are not worth a signal). */
const shape = (view: TargetGroupGuards | undefined) =>
  JSON.stringify(view ? [view.states.map((s) => [s.guard, s.state]), view.active.map((e) => [e.guard, e.at]), view.hold?.guards.map((h) => h.guard), view.trips] : null);

/**
 * The guard_tripped notification of a trip, through the target group's notices (./notifications.ts): its
 * occurrence is `trip#<n>`, n this workflow's count of trips (carried), so a retry or replay sends it once and a
 * real second trip again; the workflow awaits it before it ends or continues as new.
 */
function sendTrip(state: TargetGroupState, trip: GuardEvidence): void {
  const threshold = trip.unit === 'money' ? `${trip.threshold} ${trip.currency ?? ''}`.trim() : trip.unit === 'duration_ms' ? `${trip.threshold} ms` : String(trip.threshold);
  state.notices.raise(
    state,
    { kind: 'guard_tripped', studyId: state.input.studyId, targetGroup: state.status.key, at: trip.at, guard: `${trip.guard} (${trip.kind}, ${trip.action === 'pause' ? 'pauses' : 'notifies'})`, reading: trip.text, threshold, action: trip.action },
    'trip',
  );
}

/**
 * Judges the guards in force on what the state holds; records trips, notifies, and pauses the target group when a
 * pausing guard tripped. Called by the watch after a performance reading is stored and after session events are
 * recorded. No guard in force: nothing is judged (and a guards view left from an earlier revision is dropped).
 */
export async function judgeGuards(state: TargetGroupState, api: Api, trigger: GuardTrigger): Promise<void> {
  const guards = state.revision.desired.guards ?? [];
  if (guards.length === 0) {
    if (state.status.guards || state.guardMemory) {
      delete state.status.guards;
      state.guardMemory = undefined;
      state.publish();
    }
    return;
  }
  if (!JUDGED_PHASES.has(state.status.phase)) return;
  const before = state.status.guards;
  const evaluation = evaluateGuards(guards, guardReading(state, trigger), state.guardMemory);
  state.guardMemory = evaluation.memory;
  const view = guardsView(before, evaluation, state);
  state.status.guards = view;
  for (const trip of evaluation.tripped) {
    state.addChange('event', `guard ${trip.guard} tripped (${trip.action === 'pause' ? 'pauses' : 'notifies only'}): ${trip.text}`);
    sendTrip(state, trip);
  }
  if (evaluation.pause && state.status.phase === 'live') {
    const first = evaluation.tripped.find((t) => t.action === 'pause') as GuardEvidence;
    const refused = await applyControl(state, api, 'pause', { cause: { guard: first.kind } });
    if (refused) state.addChange('event', `guard ${first.guard} could not pause: ${refused}`);
    return; // the phase change published the status
  }
  if (shape(before) !== shape(view)) state.publish();
}
