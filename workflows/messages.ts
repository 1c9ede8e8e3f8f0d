import type { CloseoutPlan, CloseoutStep } from '../plan/closeout-types';
import { defineQuery, defineUpdate } from '@temporalio/workflow';
import type { StudyForecast, TargetGroupForecast } from '../plan/forecast';
import type { TargetGroupStep } from '../plan/program';
import type { UnappliedChange } from '../plan/types';
import type { GuardEvidence, GuardHold, GuardState } from '../plan/guards';
import type { QuotaForecast, QuotaPace, WorstQuota } from '../plan/quotas';
import type { SoftLaunchStatus } from '../plan/soft-launch';
import type { ApplyScope } from '../plan/scope';
import type { Fingerprints } from '../plan/plan-file';

export type { UnappliedChange } from '../plan/types';
import type { ApiVersion, DesiredStudy, PlannedAction } from '../plan/types';

// The public contract of the study and target-group workflows: what the study client, the CLI's views and the
// webhook receiver send and read (updates, queries, the status and report they answer, the workflow ids). The
// signals only the study workflow and its target-group workflows exchange are workflows/child-protocol.ts, which
// nothing outside workflows/ imports. Each definition's export name is its registered name + Update or Query
// (test/workflows/message-names.test.ts). Registered names never change: running workflows, the CLI, the webhook
// receiver, operators in the Temporal UI and the committed replay histories (test/replay) depend on them.

export interface ApplyRequest {
  desired: DesiredStudy;
  /** The git commit the study file came from, when known (shown in the UI and search attributes). */
  gitRevision?: string;
  /**
   * `apply --approve-closeout`: the close-out's reversals are approved as this revision holds them (plan/closeout.ts
   * closeoutApprovalKey of `desired`); absent, a close-out with something to submit waits for `approve --closeout`.
   */
  approveCloseout?: string;
  /** A partial apply (`--target-group`, `--except`): the target groups applied (plan/scope.ts); absent: all. */
  scope?: ApplyScope;
  /** Applied from a plan file: the fingerprints it relied on; the workflow writes nothing if one it writes moved (plan/plan-file.ts). */
  planned?: { fingerprints: Fingerprints };
}

export interface ApplyAccepted {
  revision: string;
  /** The revision this one superseded while it was still being applied, if any. */
  superseded?: string;
}

/**
 * Where a target group is. Every change comes from the one transition table (workflows/phases.ts): the
 * study writes `drafting` (and `launching`/`live`/`failed` of a target group it launches or whose draft
 * failed) before the target group's workflow runs, the workflow after.
 */
export type TargetGroupPhase =
  | 'drafting'
  | 'draft'
  | 'uploading'
  | 'checking_feasibility'
  | 'awaiting_approval'
  /** A staged launch waits for another target group's completes (`launchAfter`). */
  | 'awaiting_completes'
  | 'gate_blocked'
  /** A timed launch waits for its moment (`launchAt`): the exchange holds the scheduled run, or a durable timer runs. */
  | 'scheduled'
  | 'launching'
  | 'live'
  | 'paused'
  | 'completed'
  | 'failed';

export interface JobProgress {
  kind: string;
  jobId: string;
  status: string;
  polls: number;
}

export interface TargetGroupStatus {
  key: string;
  phase: TargetGroupPhase;
  revision?: string;
  /** The revision whose actions this target group has finished (or that waits for someone to act). */
  settledRevision?: string;
  /** The steps its workflow ran of its revision (the remaining steps the study handed it), in order. */
  steps?: TargetGroupStep[];
  targetGroupId?: string;
  fieldingRunId?: string;
  /** When studyflow saw the launch job done (workflow time): whoever launched it, the study or the target group. */
  liveAt?: string;
  /**
   * When it last went from paused to live (workflow time): whoever resumed it, the operator, the file, a guard's
   * approval or the exchange's UI (found by the watch). A guard's silence (`no_completes_for`) counts from it.
   */
  resumedAt?: string;
  feasibility?: { feasible: boolean; feasibleCompletes?: number; fillingGoal?: number };
  price?: { value: string; currency_code: string };
  /** The forecast before launch, from the launch gate's feasibility reading (the gate's `forecast`). */
  launchForecast?: TargetGroupForecast;
  /**
   * When it will finish and what it will cost (plan/forecast.ts): computed when the study's status or report is
   * asked for (workflows/forecast.ts), from the readings the study holds; never sent by the target group.
   */
  forecast?: TargetGroupForecast;
  /** Its quotas as the watch last read them (absent: no quota in its profiles, or not read yet): workflows/target-group/quotas.ts. */
  quotas?: TargetGroupQuotas;
  job?: JobProgress;
  /** Why the gate holds, or why the target group failed. */
  message?: string;
  /** A timed launch: the moment it goes live (while `scheduled`). */
  launchAt?: string;
  /** A staged launch: the target group and completes it waits for, and the completes it has (last reading passed on by the study). */
  launchAfter?: { targetGroup: string; completes: number; has?: number };
  failure?: { type: string; message: string };
  drift?: { field: string; expected: unknown; actual: unknown }[];
  /** The live changes of its revision that its workflow did not make (a refused gate, a failed operation). */
  unapplied?: UnappliedChange[];
  /** The recontact list last uploaded (the API cannot list it back). */
  recontactList?: { sha256: string; count: number };
  /** Its guards, as last judged (absent: none in force, or not judged yet): workflows/target-group/guards.ts. */
  guards?: TargetGroupGuards;
  /** Its soft launch (absent: launched without one): workflows/target-group/soft-launch.ts. */
  softLaunch?: SoftLaunchStatus;
  events: {
    received: number;
    lastType?: string;
    /** Sessions by the first terminal status they reached (counted once per session). */
    sessionsByStatus: Record<string, number>;
    /** Sessions whose terminal status changed later (reconciliations), by their new status. */
    reconciled?: Record<string, number>;
    /** The latest respondent_update_date seen. */
    lastSessionUpdate?: string;
    /** The latest change objects of target-group-updated events (bounded), e.g. private_exchange_cpi_change. */
    changes?: { object: string; supplier_id?: string; allocation_group_id?: string; time: string }[];
  };
  updatedAt: string;
}

/** A target group's guards in status: each guard's state, the trips in force and who resumed last. */
export interface TargetGroupGuards {
  /** One per guard in force, in their order: its state and one line (the figure against the threshold, or why not judged). */
  states: { guard: string; kind: GuardEvidence['kind']; action: GuardEvidence['action']; state: GuardState; detail: string }[];
  /** The trips in force (tripped, not resumed), with their evidence: the reading, the threshold, the time. */
  active: GuardEvidence[];
  /** The pausing trips that hold the target group paused until `studyflow approve --resume` or a revision that changes them. */
  hold?: GuardHold;
  /** Trips so far (a pause or a notification each), across revisions: tells a second trip from a retry of the first. */
  trips: number;
  /** The last resume of a hold: who, when, the guards it acknowledged. */
  resumed?: { by: string; at: string; guards: string[] };
}

/**
 * A target group's quotas in status (workflows/target-group/quotas.ts): each quota's completes against its goal and
 * its forecast at the end date (plan/quotas.ts forecastQuotas, with the target group's pace), as of the last read of
 * list_profiles. Counts and names only.
 */
export interface TargetGroupQuotas {
  /** When the cells were read (workflow time). */
  readAt: string;
  /** The target group's pace and end date the cells were forecast with (absent: no end date known). */
  pace?: QuotaPace;
  /** At most MAX_QUOTA_CELLS quotas, in the exchange's order: those most behind are kept when there are more. */
  cells: QuotaForecast[];
  /** Quotas left out of `cells` (beyond the cap). */
  omitted?: number;
  /** Quotas whose completes the exchange did not report (left out of `cells`). */
  notReported?: number;
  /** The quota with the lowest fill (of all read, not only the cells). */
  worst?: WorstQuota;
  /** Why the last read failed (the cells are then the last read's), and when it was tried. */
  error?: string;
  failedAt?: string;
}

export type StudyPhase = 'idle' | 'planning' | 'applying' | 'converged' | 'partially_failed' | 'failed';

export interface StudyStatus {
  studyId: string;
  accountId: string;
  phase: StudyPhase;
  revision?: string;
  appliedRevision?: string;
  gitRevision?: string;
  projectId?: string;
  plan?: PlannedAction[];
  writes: number;
  targetGroups: Record<string, TargetGroupStatus>;
  exclusionGroups: Record<string, string>;
  /**
   * Forward-only versioning: resources once written with 2025-12-18 keep that version for every
   * later call, whatever version the study file names (`project`, `tg:<key>`).
   */
  pinnedApiVersions?: Record<string, ApiVersion>;
  /** The target groups whose own workflow runs (they take a new revision themselves; `studyflow plan` shows it). */
  managedTargetGroups?: string[];
  /** The digest of the spec each running target-group workflow was last given (plan/program.ts `specDigest`). */
  childSpecDigests?: Record<string, string>;
  /**
   * The steps of the program (plan/program.ts) the study ran of each target group in this revision, up to and
   * including its hand-over; its workflow's own steps are in its entry's `steps`.
   */
  program?: { revision: string; ran: Record<string, TargetGroupStep[]> };
  /**
   * The changes of the applied revision that were not made (blocked by the exchange, refused by a gate, failed):
   * apply names each and exits with its own code (client/follow.ts applyExitCode).
   */
  unapplied?: UnappliedChange[];
  /** The study's budget (absent: the study has none): the prediction apply judged, the spend, and the hold (workflows/study/budget.ts). */
  budget?: StudyBudgetStatus;
  /** The study's close-out, once its file has one (workflows/study/closeout.ts). */
  closeout?: CloseoutStatus;
  error?: string;
  /** The study's forecast from its target groups' (plan/forecast.ts forecastStudy): computed when asked for, like theirs. */
  forecast?: StudyForecast;
  updatedAt: string;
}

/** The budget as the study workflow holds it (plan/budget.ts judges it). Money is exact: decimal strings. */
export interface StudyBudgetStatus {
  budget: { value: string; currency_code: string };
  /** The last revision's predicted cost against it, e.g. `predicted cost 1200.00 USD of the budget 1000 USD (120%): over budget; apply refuses to launch`. */
  prediction?: string;
  /** `StudyOverBudget` when the last revision launched nothing because its predicted cost is over the budget. */
  refused?: string;
  /** The spend so far (each target group's latest completes_cost, summed) and its line, from the watches' readings. */
  spent?: { value: string; currency_code: string };
  spend?: string;
  /**
   * Set while the budget is reached: when, the spend then, and the target groups the study paused for it. The
   * study resumes none of them on its own; a revision whose budget is above the spend lifts the hold.
   */
  reached?: { at: string; spent: { value: string; currency_code: string }; paused: string[] };
}

export interface ApproveRequest {
  /** A target-group key; all target groups waiting for approval when omitted. */
  targetGroup?: string;
  /** Approve the close-out waiting for approval (its reversals as the applied revision holds them) instead of launches. */
  closeout?: boolean;
}

/** The close-out of a study as its workflow holds it (workflows/study/closeout.ts): counts, money, names; never a RID. */
export interface CloseoutStatus {
  phase: 'planned' | 'blocked' | 'awaiting_approval' | 'submitting' | 'closed';
  /** What an approval binds to (plan/closeout.ts closeoutApprovalKey): the reviewed content of the close-out's files. */
  approvalKey: string;
  /** Per target group: RIDs to submit and submitted by code, the money they reverse, the window. */
  perTargetGroup: CloseoutPlan['perTargetGroup'];
  /** RIDs of the files the exchange does not list as this account's completes. */
  notEligible: number;
  /** Why nothing is submitted (rendered from plan/closeout.ts blocks). */
  blocks?: string[];
  /** The steps still to run. */
  steps?: CloseoutStep[];
  /** The study's submissions by name, with the exchange's status and counts. */
  submissions: { name: string; status: string; counts?: { reversed: number; expired: number; invalid: number } }[];
  /** What the submissions did per target-group key. */
  results?: Record<string, { reversed: number; expired: number; invalid: number }>;
  /** Archived files and reports: what -> blob store object name. */
  archives: Record<string, string>;
  /** The windows `closeout_deadline` warned of, per target-group key (once per window). */
  deadlineNotified?: Record<string, string>;
}

export interface FieldingControlRequest {
  targetGroup: string;
  action: 'pause' | 'resume' | 'complete';
}

/** What became of a fielding control, as the target group's workflow answers `targetGroupFieldingControlUpdate`. */
export interface FieldingControlAnswer {
  targetGroup: string;
  action: FieldingControlRequest['action'];
  /**
   * `applied`: the fielding run is in the state asked for (written now, or it was already); `refused`: it is not,
   * and `message` says why (`cannot resume: held by guard …`, `cannot pause: the target group has no fielding run yet`).
   */
  outcome: 'applied' | 'refused';
  message: string;
  /** The target group's phase once the control was applied or refused. */
  phase: TargetGroupPhase;
}

/** `studyflow approve --resume`: resumes the target groups a guard holds paused (all of them, or `targetGroup`). */
export interface GuardResumeRequest {
  targetGroup?: string;
  /** Who resumes (`--by`, else the OS user): recorded in status and the report. */
  by: string;
}

/** `studyflow approve --promote | --abort`: decides the soft launches that wait (inconclusive, or failed and paused). */
export interface SoftLaunchDecisionRequest {
  decision: 'promote' | 'abort';
  targetGroup?: string;
  /** Who decides (`--by`, else the OS user): recorded in status, the report and the notification. */
  by: string;
}

/** A verified webhook delivery, reduced to what the workflow needs (no respondent IDs). */
export interface WebhookEventSignal {
  id: string;
  type: string;
  time: string;
  targetGroupId?: string;
  /** For target-group-updated: the change objects' `object` values (with supplier / allocation group ids). */
  changes?: { object: string; supplier_id?: string; allocation_group_id?: string }[];
  /** For com.svc.session.updated: the new statuses, ordered by respondent_update_date. */
  sessions?: { status: string; respondent_update_date: string; respondent_last_date_change?: string | null }[];
}

/** One reading of a target group's completes (a point of the report's chart). */
export interface CompletesPoint {
  t: string;
  completes: number;
}

/** Live respondents of one status, from a performance reading (`respondent_analysis.live`). */
export interface RespondentStatusCount {
  /** The API's status code (e.g. `Complete`, `Terminate`, `In Survey`). */
  status: string;
  label?: string;
  count: number;
}

/**
 * A performance reading (the reference's TargetGroupPerformance) reduced to counts, money, dates and rates;
 * no respondent IDs. It carries no status, goal, quota fill or sessions in progress: the API's performance
 * has none of them (the report derives what remains from the study's goal).
 */
export interface PerformanceSnapshot {
  readAt: string;
  /** The target-group workflow's phase when it read (the watch's, from the overview; not from performance). */
  phase?: TargetGroupPhase;
  entrants: number;
  prescreens: number;
  completes: number;
  completesCost?: { value: string; currency_code: string };
  firstComplete?: string;
  lastComplete?: string;
  /** 0–1, as the API gives them. */
  incidenceRate?: number;
  conversionRate?: number;
  dropOffRate?: number;
  /** Live respondents by status, in the API's order, at most 20 (test respondents are left out). */
  respondents: RespondentStatusCount[];
}

/** What the study file expects of a target group. */
export interface ExpectedFigures {
  incidenceRate?: number;
  lengthOfInterviewMinutes?: number;
  fillingGoal?: number;
  /** When fielding ends: end_fielding_at, else the end the launch sent (the default window from when it went live). */
  endFieldingAt?: string;
}

/** Something that changed after launch: a phase, drift of a field, a webhook event. */
export interface ReportChange {
  /** Ascending per target group. */
  seq: number;
  time: string;
  kind: 'phase' | 'drift' | 'event';
  detail: string;
}

/** What a workflow holds for the report of one target group. */
export interface TargetGroupReportData {
  key: string;
  expected: ExpectedFigures;
  launchedAt?: string;
  /** Completes over time, at most 500 points (older ones thinned out). */
  series: CompletesPoint[];
  performance?: PerformanceSnapshot;
  /** Why the last performance read failed, if it did. */
  performanceError?: string;
  /** The most recent 50 changes since launch. */
  changes: ReportChange[];
}

/** The answer of the study's `report` query: every target group's status and report data. */
export interface StudyReport {
  studyId: string;
  accountId: string;
  phase: StudyPhase;
  revision?: string;
  appliedRevision?: string;
  projectId?: string;
  updatedAt: string;
  /** The study's forecast (as in its status: computed when asked for). */
  forecast?: StudyForecast;
  targetGroups: Record<string, { status: TargetGroupStatus; report?: TargetGroupReportData }>;
  /** The study's close-out (as in its status). */
  closeout?: CloseoutStatus;
}

export const applyUpdate = defineUpdate<ApplyAccepted, [ApplyRequest]>('apply');
/**
 * Completes when the study has settled `revision` (or it was superseded, or failed), with the study's status:
 * what `studyflow apply --wait` waits on instead of asking for the status in a loop. It may also complete
 * while the revision is still running, when the workflow is about to continue as new; the caller then asks
 * again (the update reaches the new run).
 */
export const awaitRevisionUpdate = defineUpdate<StudyStatus, [AwaitRevisionRequest]>('awaitRevision');
export interface AwaitRevisionRequest {
  revision: string;
}
export const approveUpdate = defineUpdate<string[], [ApproveRequest]>('approve');
/**
 * Passes a fielding control on to the target group's workflow (its signal) and answers `<action> requested for <key>`,
 * not what became of it: kept for running studies and operators in the Temporal UI. `studyflow fielding` sends
 * `targetGroupFieldingControlUpdate` to the target group's workflow instead, which answers applied or refused.
 */
export const fieldingControlUpdate = defineUpdate<string, [FieldingControlRequest]>('fieldingControl');
/** Resumes the target groups a guard holds paused; answers the keys it asked to resume (none held: empty). */
export const resumeGuardedUpdate = defineUpdate<string[], [GuardResumeRequest]>('resumeGuarded');
/** Decides the waiting soft launches; answers the target groups it reached. */
export const softLaunchDecisionUpdate = defineUpdate<string[], [SoftLaunchDecisionRequest]>('softLaunchDecision');
export const statusQuery = defineQuery<StudyStatus>('status');
/** Figures for `studyflow report`, answered from what the study holds (it asks its children nothing). */
export const reportQuery = defineQuery<StudyReport>('report');

/**
 * `studyflow fielding`: a fielding control sent to the target group's workflow, answered once its watch applied or
 * refused it (a target group without a fielding run is refused at once). Sent by the client to the target group's
 * workflow directly (targetGroupWorkflowId), as the receiver sends webhook events.
 */
export const targetGroupFieldingControlUpdate = defineUpdate<FieldingControlAnswer, [FieldingControlRequest['action']]>('targetGroupFieldingControl');
/**
 * A webhook event for a target group, sent by receivers as an Update whose id is derived from the event
 * id: Temporal answers a repeated update id within a run with the first outcome, and the workflow's
 * bounded set of seen ids (carried across continue-as-new) catches the rest. `duplicate` when taken before.
 */
export const targetGroupEventOnceUpdate = defineUpdate<'accepted' | 'duplicate', [WebhookEventSignal]>('targetGroupEventOnce');

/** The update id of a webhook event's delivery to its target-group workflow. */
export function webhookEventUpdateId(eventId: string): string {
  return `webhook-event/${eventId}`;
}
export const targetGroupStatusQuery = defineQuery<TargetGroupStatus>('targetGroupStatus');
export const targetGroupReportQuery = defineQuery<TargetGroupReportData>('targetGroupReport');

/** Workflow IDs: business-meaningful, no secrets. */
export { studyWorkflowId, targetGroupWorkflowId } from '../shared/workflow-ids';

/** What a study's status remembers about remote resources: the `known` input of observeStudy. */
export function knownFromStatus(status: StudyStatus | undefined): {
  projectId?: string;
  targetGroupIds: Record<string, string>;
  exclusionGroupIds: Record<string, string>;
  recontactLists: Record<string, { sha256: string; count: number }>;
} {
  const tgs = Object.values(status?.targetGroups ?? {});
  return {
    projectId: status?.projectId,
    targetGroupIds: Object.fromEntries(tgs.filter((t) => t.targetGroupId).map((t) => [t.key, t.targetGroupId as string])),
    exclusionGroupIds: { ...(status?.exclusionGroups ?? {}) },
    recontactLists: Object.fromEntries(tgs.filter((t) => t.recontactList).map((t) => [t.key, t.recontactList as { sha256: string; count: number }])),
  };
}

/** Where a revision stands in a study's status. */
export type RevisionOutcome = 'running' | 'settled' | 'superseded';

export function revisionOutcome(status: StudyStatus, revision: string): RevisionOutcome {
  if (status.revision !== revision) return 'superseded';
  if (status.appliedRevision === revision && status.phase !== 'applying' && status.phase !== 'planning') return 'settled';
  if (status.phase === 'failed' && status.error) return 'settled';
  return 'running';
}
