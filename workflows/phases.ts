import { FIELDING_PHASES } from '../plan/phase-groups';
import type { TargetGroupPhase } from './messages';

/** Before a target group has an entry in the study's status (a target group new to the study). */
export const NO_ENTRY = 'none';
export type PhaseOrNone = TargetGroupPhase | typeof NO_ENTRY;

/** Every phase a target group can be in, and the entry it has before any. */
const ANY: readonly PhaseOrNone[] = [NO_ENTRY, 'drafting', 'draft', 'uploading', 'checking_feasibility', 'awaiting_approval', 'awaiting_completes', 'gate_blocked', 'scheduled', 'launching', 'live', 'paused', 'completed', 'failed'];
/**
 * Not fielding yet: the phases a revision's writes toward a launch start from (a revision converges from the top).
 * `scheduled` is among them: a timed launch's moment has not come (the exchange holds the run, or a durable timer runs).
 */
const BEFORE_LAUNCH: readonly PhaseOrNone[] = [NO_ENTRY, 'drafting', 'draft', 'uploading', 'checking_feasibility', 'awaiting_approval', 'awaiting_completes', 'gate_blocked', 'scheduled', 'launching', 'failed'];
/** Fielding: live or paused. */
const FIELDING: readonly PhaseOrNone[] = FIELDING_PHASES;

/**
 * Every phase change of a target group, by what happened: the phases the event may leave (`from`), the
 * phase it enters, and whether that phase is `passing`. The one table its phase is written from
 * ({@link enterPhase}), by the study before the target group's workflow runs (`drafting`, `launching`,
 * `went_live`, `failed`, `workflow_started`) and by that workflow after. A `passing` phase is one the
 * target group goes through on its way (its workflow's progress is paced); in the workflow, any other
 * settles the revision: its work is done, or it waits for someone to act. What the API reports
 * (`found_*`) is a fact and may be met in any phase.
 */
export const TRANSITIONS = {
  /** The study writes the draft (a new one, or an update of a draft). */
  drafting: { from: BEFORE_LAUNCH, phase: 'drafting', passing: true },
  /** The study handed the target group to its workflow, which starts (whatever the study held of it before). */
  workflow_started: { from: ANY, phase: 'draft', passing: false },
  /** Profiles or an ID/recontact list are being written (profiles of a launched target group too). */
  uploading: { from: [...BEFORE_LAUNCH, ...FIELDING], phase: 'uploading', passing: true },
  /** Feasibility and the price prediction are being read. */
  reading_gate: { from: BEFORE_LAUNCH, phase: 'checking_feasibility', passing: true },
  /** The gate holds it until a new revision. */
  gate_held: { from: BEFORE_LAUNCH, phase: 'gate_blocked', passing: false },
  /** Manual launch: waiting for `studyflow approve`. */
  awaiting_approval: { from: BEFORE_LAUNCH, phase: 'awaiting_approval', passing: false },
  /** A staged launch: held until another target group of the study has N completes. */
  awaiting_completes: { from: BEFORE_LAUNCH, phase: 'awaiting_completes', passing: false },
  /** A timed launch accepted: the exchange holds the scheduled run (or the workflow's durable timer runs) until its moment. */
  scheduled: { from: BEFORE_LAUNCH, phase: 'scheduled', passing: false },
  /** Launch sent, its job awaited. */
  launching: { from: BEFORE_LAUNCH, phase: 'launching', passing: true },
  /** The launch job succeeded (or the study saw it live). */
  went_live: { from: ['launching', 'draft', 'uploading', 'scheduled', 'live'], phase: 'live', passing: false },
  /** Nothing to launch in this revision, or a watch tick: the API's state of the target group. */
  found_draft: { from: ANY, phase: 'draft', passing: false },
  found_scheduled: { from: ANY, phase: 'scheduled', passing: false },
  found_live: { from: ANY, phase: 'live', passing: false },
  found_paused: { from: ANY, phase: 'paused', passing: false },
  found_completed: { from: ANY, phase: 'completed', passing: false },
  /** Fielding controls applied (or the run was in that state already). */
  paused: { from: FIELDING, phase: 'paused', passing: false },
  resumed: { from: FIELDING, phase: 'live', passing: false },
  completed: { from: [...FIELDING, 'scheduled', 'completed'], phase: 'completed', passing: false },
  /** A completed fielding run relaunched because the file says `fielding: live` (relaunch_fielding_run). */
  relaunched: { from: ['completed', 'live'], phase: 'live', passing: false },
  /** This revision's work failed; a new revision retries from the top. */
  failed: { from: ANY, phase: 'failed', passing: false },
} as const satisfies Record<string, { from: readonly PhaseOrNone[]; phase: TargetGroupPhase; passing: boolean }>;

export type TargetGroupEvent = keyof typeof TRANSITIONS;

/** The phases a target group passes through (its progress to the study is paced). */
export const PASSING_PHASES: ReadonlySet<TargetGroupPhase> = new Set(Object.values(TRANSITIONS).filter((t) => t.passing).map((t) => t.phase));

/**
 * An event the table does not allow from the phase the target group is in. It is a bug in studyflow,
 * never a state of the exchange (what the API reports comes in as `found_*`, allowed from every phase),
 * so it is a plain Error, not an ApplicationFailure: the workflow task fails and Temporal retries it,
 * the execution stays where it was (nothing is written, the phase is unchanged) with the message in
 * the UI, and goes on once fixed code is deployed. The workflows' catch-alls pass it on.
 */
export class IllegalTransition extends Error {
  override name = 'IllegalTransition';
  constructor(
    readonly key: string,
    readonly from: PhaseOrNone,
    readonly event: TargetGroupEvent,
  ) {
    super(`target group ${key}: event ${event} cannot leave phase ${from} (it may leave ${TRANSITIONS[event].from.join(', ')})`);
  }
}

/** The part of a target group's status the phase writer needs. */
export interface PhaseEntry {
  key: string;
  phase?: TargetGroupPhase;
}

/**
 * The one writer of a target group's phase, for the study (before its workflow runs) and for its
 * workflow: checks `event` against the table from the entry's phase (none when the study has no entry
 * yet), then writes the phase. Returns the transition taken; throws {@link IllegalTransition}.
 */
export function enterPhase(entry: PhaseEntry, event: TargetGroupEvent): { from: PhaseOrNone; phase: TargetGroupPhase; passing: boolean } {
  const from: PhaseOrNone = entry.phase ?? NO_ENTRY;
  const transition = TRANSITIONS[event];
  if (!(transition.from as readonly PhaseOrNone[]).includes(from)) throw new IllegalTransition(entry.key, from, event);
  entry.phase = transition.phase;
  return { from, phase: transition.phase, passing: transition.passing };
}

/**
 * The event that a target group's status in the API stands for (the reference's TargetGroupStatus, read from
 * TG/overview once launched): `scheduled` (its fielding run starts at its start time) is scheduled, `archived`
 * counts as completed; anything else not launched is a draft.
 */
export function eventOfRemote(remoteStatus: unknown): TargetGroupEvent {
  switch (remoteStatus) {
    case 'scheduled':
      return 'found_scheduled';
    case 'live':
    case 'fielding':
      return 'found_live';
    case 'paused':
      return 'found_paused';
    case 'completed':
    case 'archived':
      return 'found_completed';
    default:
      return 'found_draft';
  }
}
