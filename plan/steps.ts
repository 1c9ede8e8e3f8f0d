// The steps of a revision's program (plan/program.ts builds them): a target group's steps with their payloads and
// the study's steps that carry them out together. Types only, below plan/program.ts and plan/live-steps.ts (which
// builds a launched target group's steps), so neither imports the other.
import type { IdListEntityType, ListRef, LiveGate } from './types';
import type { Launcher } from './schedule';
import type { LiveChange, LiveRequest, LiveUnwritable } from './live-requests';

/** A declared fielding state's write on the fielding run. */
export type LiveFieldingAction = 'pause' | 'resume' | 'complete' | 'relaunch';

/** Who runs a launch (the draft batch's launch goes with its draft step). */
export type LaunchRunner = Exclude<Launcher, 'none' | 'draft_batch'>;

/**
 * One step of a target group. The steps before its `hand_over` are the study's; the steps after it are
 * the target group's workflow's (the "remaining steps" the hand-over passes on). After its steps the
 * workflow watches the target group.
 */
export type TargetGroupStep =
  /** Feasibility and price, judged against the launch rules: by the study beside the project, or by its own workflow. */
  | { kind: 'read_gate'; by: 'study' | 'target_group' }
  /** The draft: created in draft batch `batch` (with its Idempotency-Key; launched by the batch when `launch` is set), or updated. */
  | { kind: 'draft'; mode: 'create'; batch: number; idempotencyKey: string; launch?: { idempotencyKey: string } }
  | { kind: 'draft'; mode: 'update' }
  /** The draft updated again once the target groups its activity exclusions name exist. */
  | { kind: 'second_pass' }
  | { kind: 'membership'; group: string; change: 'add' | 'remove' }
  /** The launch and its job's wait: by the study in a launch batch, or by its own workflow (a new key per attempt). */
  | { kind: 'launch'; by: LaunchRunner; idempotencyKey: string }
  /** A launch job sent already (by the draft batch, or handed over running) awaited. */
  | { kind: 'await_job'; job: 'launch' }
  /** The remaining steps go to the target group's workflow (started, or given the revision): now, or once the revision settled (it went live: it only watches). */
  | { kind: 'hand_over'; when: 'now' | 'settled' }
  /** The profiles of a launched target group replaced (manage-profiles). */
  | { kind: 'profiles' }
  /** An ID or recontact list uploaded (after removing all IDs when `replace`), its job awaited. */
  | { kind: 'upload'; list: 'id_list' | 'recontact_list'; entityType?: IdListEntityType; replace: boolean; ref: ListRef; reason: string }
  /** A manual launch waits for `studyflow approve`. */
  | { kind: 'approve' }
  /** A staged launch: held until target group `targetGroup` of the study has `completes` completes (the study passes on its watch's readings). */
  | { kind: 'wait_for_completes'; targetGroup: string; completes: number }
  /** A timed launch the exchange cannot schedule (its api_version): a durable timer until `at`, then the launch. */
  | { kind: 'wait_until'; at: string }
  /** A timed launch: the exchange's schedule-from-draft job starts the fielding run at `at` (its Idempotency-Key, `{attempt}` filled in at run time); it goes live then. */
  | { kind: 'schedule_launch'; at: string; idempotencyKey: string }
  /** Nothing to launch: where the target group is, read from the API. */
  | { kind: 'read_state' }
  /**
   * A launched target group: feasibility of the change by id, judged by the gate's rules (plan/live-gates.ts);
   * a refusal stops the remaining steps and is recorded as unapplied.
   */
  | { kind: 'check_live'; gate: LiveGate }
  /**
   * A launched target group changed in place by one operation: `request` is exactly what its activity sends
   * (plan/live-requests.ts); `changes` the fields it changes, with what the exchange held and what the file wants
   * (for the views, and for what is recorded unapplied); `unwritable` the changes no request carries (recorded unapplied).
   */
  | { kind: 'update_live'; request: LiveRequest; changes: LiveChange[]; unwritable?: LiveUnwritable[] }
  /** The declared fielding state: pause, resume, complete or relaunch the fielding run (with its ETag). */
  | { kind: 'fielding'; action: LiveFieldingAction };

export type TargetGroupStepKind = TargetGroupStep['kind'];

/**
 * One step of the study. `together` runs its lanes side by side (each lane's steps one after the other);
 * `checkpoint` stops the revision when a newer one arrived; `settle` waits until every target group
 * settled this revision. The target-group keys name whose steps each carries out.
 */
export type StudyStep =
  | { kind: 'project'; mode: 'create' | 'update'; idempotencyKey: string }
  | { kind: 'exclusion_group'; name: string; idempotencyKey: string }
  | { kind: 'webhook'; mode: 'create' | 'update'; url: string }
  | { kind: 'read_gates'; keys: string[] }
  | { kind: 'drafts'; batches: string[][]; updates: string[] }
  | { kind: 'await_launches'; keys: string[] }
  | { kind: 'second_pass'; keys: string[] }
  | { kind: 'memberships'; changes: { group: string; add: string[]; remove: string[] }[] }
  | { kind: 'launch_batch'; keys: string[] }
  | { kind: 'hand_over'; keys: string[]; when: 'now' | 'settled' }
  | { kind: 'checkpoint' }
  | { kind: 'settle' }
  /** Target groups the file no longer declares, completed (removed_target_groups: complete). */
  | { kind: 'complete_removed'; keys: string[] }
  /** The revision is applied: converged, partially failed or failed, by the target groups' phases. */
  | { kind: 'conclude' }
  | { kind: 'together'; lanes: StudyStep[][] };

export type StudyStepKind = StudyStep['kind'];

export interface TargetGroupProgram {
  key: string;
  launch: { by: Launcher; reason: string };
  steps: TargetGroupStep[];
  /**
   * For a target group the study or its draft batch launches: the steps its workflow takes over when the
   * study could not finish the launch (a gate that holds, a launch or gate read that failed).
   */
  fallback?: TargetGroupStep[];
}

export interface StudyProgram {
  revision: string;
  study: StudyStep[];
  targetGroups: TargetGroupProgram[];
}
