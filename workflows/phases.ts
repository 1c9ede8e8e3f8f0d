import type { TargetGroupPhase } from './messages';

/**
 * Every phase change of a target group, by what happened: the one table its phase is written from, by
 * the study before the target group's workflow runs (`drafting`, `launching`, `went_live`, `failed`,
 * `workflow_started`) and by that workflow after. A `passing` phase is one the target group goes
 * through on its way (its workflow's progress is paced); in the workflow, any other settles the
 * revision: its work is done, or it waits for someone to act.
 */
export const TRANSITIONS = {
  /** The study writes the draft. */
  drafting: { phase: 'drafting', passing: true },
  /** The study handed the target group to its workflow, which starts. */
  workflow_started: { phase: 'draft', passing: false },
  /** Profiles or an ID/recontact list are being written. */
  uploading: { phase: 'uploading', passing: true },
  /** Feasibility and the price prediction are being read. */
  reading_gate: { phase: 'checking_feasibility', passing: true },
  /** The gate holds it until a new revision. */
  gate_held: { phase: 'gate_blocked', passing: false },
  /** Manual launch: waiting for `studyflow approve`. */
  awaiting_approval: { phase: 'awaiting_approval', passing: false },
  /** Launch sent, its job awaited. */
  launching: { phase: 'launching', passing: true },
  /** The launch job succeeded (or the study saw it live). */
  went_live: { phase: 'live', passing: false },
  /** Nothing to launch in this revision, or a watch tick: the API's state of the target group. */
  found_draft: { phase: 'draft', passing: false },
  found_live: { phase: 'live', passing: false },
  found_paused: { phase: 'paused', passing: false },
  found_completed: { phase: 'completed', passing: false },
  /** Fielding controls applied. */
  paused: { phase: 'paused', passing: false },
  resumed: { phase: 'live', passing: false },
  completed: { phase: 'completed', passing: false },
  /** This revision's work failed; a new revision retries from the top. */
  failed: { phase: 'failed', passing: false },
} as const satisfies Record<string, { phase: TargetGroupPhase; passing: boolean }>;

export type TargetGroupEvent = keyof typeof TRANSITIONS;

/** The phases a target group passes through (its progress to the study is paced). */
export const PASSING_PHASES: ReadonlySet<TargetGroupPhase> = new Set(Object.values(TRANSITIONS).filter((t) => t.passing).map((t) => t.phase));

/**
 * The event that a target group's status in the API stands for (the reference's TargetGroupStatus, read from
 * TG/overview once launched): `scheduled` (launched, its fielding run starts at its start time) counts as live,
 * `archived` as completed; anything else not launched is a draft.
 */
export function eventOfRemote(remoteStatus: unknown): TargetGroupEvent {
  switch (remoteStatus) {
    case 'live':
    case 'fielding':
    case 'scheduled':
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
