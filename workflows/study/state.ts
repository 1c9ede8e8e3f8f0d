import { setCurrentDetails, upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import type { ActivityCtx } from '../../activities';
import type { DesiredStudy } from '../../plan/types';
import { carriedSeenFigures, type StudyWatchTiming } from '../../plan/watch-timing';
import { CURRENT_API_VERSION, newerApiVersion, type ApiVersion } from '../../shared/api-version';
import type { NotifyTarget } from '../../shared/notify-events';
import {
  knownFromStatus,
  targetGroupWorkflowId,
  type ApplyRequest,
  type StudyStatus,
  type TargetGroupReportData,
  type TargetGroupStatus,
} from '../messages';
import type { TargetGroupProgress, TargetGroupReportUpdate } from '../child-protocol';
import { enterPhase, type TargetGroupEvent } from '../phases';
import { mergeReportUpdate } from '../report-data';
import { GIT_REVISION, PHASE } from '../search-attributes';

export interface StudyWorkflowInput {
  accountId: string;
  studyId: string;
  /** Carried across continue-as-new. */
  carried?: StudyCarriedState;
}

/**
 * What continue-as-new carries of the study, written once: {@link StudyState} holds exactly these fields
 * (in working form: `children` a Set) and `carried()` hands them back.
 */
export interface StudyCarriedState {
  status: StudyStatus;
  projectId?: string;
  targetGroupIds: Record<string, string>;
  exclusionGroupIds: Record<string, string>;
  /** Target groups whose workflow runs. */
  children: string[];
  /** The revision each child was last given. */
  childRevisions: Record<string, string>;
  /** Writes the study made itself. */
  ownWrites: number;
  /** Writes each child reported (its own total, carried across its continue-as-new). */
  childWrites: Record<string, number>;
  pending?: ApplyRequest;
  /** What the children sent for the report, by target-group key. */
  reports: Record<string, TargetGroupReportData>;
  /**
   * What the study's end (`studyflow cancel`) does with the target groups it manages, from the last applied
   * revision's removed_target_groups (absent: keep), and the version of its calls.
   */
  atEnd?: { removedTargetGroups: 'keep' | 'complete'; apiVersion: ApiVersion };
  /** The last applied revision's `notify:` targets (variable names, never URLs): who hears of the study's own events (budget_reached). */
  notify?: NotifyTarget[];
  /**
   * The study's watch of its live target groups (workflows/study/watch.ts), from the last applied revision: how
   * often it reads the project's list, the version of that call, and the figures each target group last showed.
   */
  watch?: StudyWatch;
  /** The close-out approval the study holds (plan/closeout.ts closeoutApprovalKey), and the revision waiting for it. */
  closeoutApproval?: { approved?: string; waiting?: ApplyRequest };
}

/**
 * What the study's watch keeps between its reads (plan/watch-timing.ts StudyWatchTiming: the interval, the
 * figures last sent per target-group key, field by field, when the next read is due, when each target group was
 * last sent its figures), and the version of its call.
 */
export interface StudyWatch extends StudyWatchTiming {
  apiVersion: ApiVersion;
}

/** The carried fields as the state works with them. */
type CarriedFields = Omit<StudyCarriedState, 'children'> & { children: Set<string> };

/** A study that carries nothing yet (its first run; tests build carried states from it). */
export function emptyCarried(input: StudyWorkflowInput): StudyCarriedState {
  return {
    status: { studyId: input.studyId, accountId: input.accountId, phase: 'idle', writes: 0, targetGroups: {}, exclusionGroups: {}, updatedAt: new Date().toISOString() },
    targetGroupIds: {},
    exclusionGroupIds: {},
    children: [],
    childRevisions: {},
    ownWrites: 0,
    childWrites: {},
    reports: {},
  };
}

/** Thrown at a checkpoint when a newer revision arrived: the revision stops there, the newer one runs. */
export class Superseded extends Error {}

/**
 * Everything the study workflow holds, with the few ways it changes. Steps read and change it; the
 * entry point's handlers change it only through these methods.
 */
export class StudyState {
  readonly accountId: string;
  readonly studyId: string;
  /** The carried fields, read through the getters below. */
  private readonly c: CarriedFields;
  /** The revision being applied. */
  applying?: DesiredStudy;
  /** The completes last passed on to each target group whose staged launch waits (study/upstream.ts); not carried: passed again after continue-as-new. */
  readonly passedUpstream = new Map<string, number>();
  /**
   * Fielding controls the study sent a target group's workflow in this revision (the budget's pause or resume, a
   * removed group's completion), with the phase each leaves: the revision settles once the workflow's progress left it,
   * so apply's table, `status` and the search attributes show where the exchange is (children.ts `untilControlsTaken`).
   */
  readonly controlsInFlight = new Map<string, TargetGroupStatus['phase']>();

  constructor(input: StudyWorkflowInput) {
    this.accountId = input.accountId;
    this.studyId = input.studyId;
    // The input is this run's own (deserialized) copy: the state takes it over.
    const carried = input.carried ?? emptyCarried(input);
    this.c = { ...carried, children: new Set(carried.children) };
    // A run carried from before the figures seen were structured holds them as text: read into their fields.
    if (carried.watch) this.c.watch = { ...carried.watch, seen: carriedSeenFigures(carried.watch.seen) };
  }

  carried(): StudyCarriedState {
    return { ...this.c, children: [...this.c.children] };
  }

  get status(): StudyStatus {
    return this.c.status;
  }
  get projectId(): string | undefined {
    return this.c.projectId;
  }
  set projectId(id: string | undefined) {
    this.c.projectId = id;
  }
  get targetGroupIds(): Record<string, string> {
    return this.c.targetGroupIds;
  }
  get exclusionGroupIds(): Record<string, string> {
    return this.c.exclusionGroupIds;
  }
  get children(): Set<string> {
    return this.c.children;
  }
  get childRevisions(): Record<string, string> {
    return this.c.childRevisions;
  }
  get reports(): Record<string, TargetGroupReportData> {
    return this.c.reports;
  }
  get watch(): StudyWatch | undefined {
    return this.c.watch;
  }
  set watch(watch: StudyWatch | undefined) {
    this.c.watch = watch;
  }
  get atEnd(): StudyCarriedState['atEnd'] {
    return this.c.atEnd;
  }
  set atEnd(policy: StudyCarriedState['atEnd']) {
    this.c.atEnd = policy;
  }
  get notify(): NotifyTarget[] | undefined {
    return this.c.notify;
  }
  set notify(targets: NotifyTarget[] | undefined) {
    this.c.notify = targets;
  }
  get closeoutApproval(): NonNullable<StudyCarriedState['closeoutApproval']> {
    return (this.c.closeoutApproval ??= {});
  }
  /** A revision that arrived and waits to be applied. */
  get pending(): ApplyRequest | undefined {
    return this.c.pending;
  }
  set pending(request: ApplyRequest | undefined) {
    this.c.pending = request;
  }

  childId(key: string): string {
    return targetGroupWorkflowId(this.accountId, this.studyId, key);
  }

  /** Idempotency keys and the like: this workflow's id and the intent. */
  keyFor(intent: string): string {
    return `${workflowInfo().workflowId}/${intent}`;
  }

  /** Stops the revision being applied when a newer one arrived. */
  checkpoint(): void {
    if (this.pending) throw new Superseded();
  }

  countWrites(n = 1): void {
    this.c.ownWrites += n;
    this.touch();
  }

  touch(): void {
    this.status.writes = this.c.ownWrites + Object.values(this.c.childWrites).reduce((a, b) => a + b, 0);
    this.status.updatedAt = new Date().toISOString();
  }

  setPhase(phase: StudyStatus['phase']): void {
    this.status.phase = phase;
    this.touch();
    upsertSearchAttributes([{ key: PHASE, value: phase }]);
    const tgs = Object.values(this.status.targetGroups);
    const live = tgs.filter((t) => t.phase === 'live').length;
    setCurrentDetails(`**${this.studyId}** ${phase}: revision ${this.status.revision ?? '-'}, ${live}/${tgs.length} target groups live`);
  }

  /** Takes a revision up: it is the one being applied from now on. */
  begin(request: ApplyRequest): DesiredStudy {
    const desired = request.desired;
    this.applying = desired;
    this.status.revision = desired.revision;
    this.status.gitRevision = request.gitRevision;
    this.status.error = undefined;
    if (request.gitRevision) upsertSearchAttributes([{ key: GIT_REVISION, value: request.gitRevision }]);
    return desired;
  }

  /** The call context of study-level calls: the study file's version. */
  ctx(): ActivityCtx {
    const desired = this.applying as DesiredStudy;
    return { accountId: desired.accountId, apiVersion: desired.apiVersion };
  }

  /** The call context of a resource: forward-only once it was written with the current version. */
  ctxFor(resource: string): ActivityCtx {
    const desired = this.applying as DesiredStudy;
    return { accountId: desired.accountId, apiVersion: newerApiVersion(this.status.pinnedApiVersions?.[resource], desired.apiVersion) };
  }

  /** Remembers that a resource was written with `version` (the current version pins it). */
  pin(resource: string, version: ApiVersion = this.ctxFor(resource).apiVersion): void {
    if (version === CURRENT_API_VERSION) (this.status.pinnedApiVersions ??= {})[resource] = version;
  }

  /** What observing the API starts from: the IDs this study remembers. */
  known() {
    return { ...knownFromStatus(this.status), projectId: this.projectId, targetGroupIds: this.targetGroupIds, exclusionGroupIds: this.exclusionGroupIds };
  }

  /**
   * The study's entry of a target group before its workflow runs: the phase goes through the one phase
   * writer (`enterPhase`, workflows/phases.ts), from the entry's phase (none for a new target group).
   * After, the workflow's progress replaces the entry ({@link takeProgress}): the study writes no phase
   * of a running target group.
   */
  setTargetGroup(key: string, event: TargetGroupEvent, patch: Partial<Omit<TargetGroupStatus, 'phase'>> = {}): void {
    const prior = this.status.targetGroups[key];
    const entry = { ...(prior ?? { key, events: { received: 0, sessionsByStatus: {} } }), ...patch, key } as TargetGroupStatus;
    enterPhase(entry, event);
    this.status.targetGroups[key] = this.stamp(entry, prior);
    this.touch();
  }

  /** A running target group's workflow is given a new revision: its entry (phase unchanged) waits for it to settle again. */
  reopen(key: string): void {
    const prior = this.status.targetGroups[key];
    if (!prior) return this.setTargetGroup(key, 'workflow_started');
    this.status.targetGroups[key] = this.stamp({ ...prior, settledRevision: undefined }, prior);
    this.touch();
  }

  private stamp(entry: TargetGroupStatus, prior: TargetGroupStatus | undefined): TargetGroupStatus {
    return { ...entry, revision: this.applying?.revision ?? prior?.revision, targetGroupId: this.targetGroupIds[entry.key] ?? prior?.targetGroupId, updatedAt: new Date().toISOString() };
  }

  /**
   * A child's progress: its status as it sent it, and its write total. A new workflow of the same target group (a
   * relaunch after its last one ended) counts from 0: the writes of the one before stay in the study's total, which
   * never goes down.
   */
  takeProgress(progress: TargetGroupProgress): void {
    const key = progress.status.key;
    this.status.targetGroups[key] = progress.status;
    const prior = this.c.childWrites[key] ?? 0;
    if (progress.writes < prior) this.c.ownWrites += prior;
    this.c.childWrites[key] = progress.writes;
    this.touch();
  }

  takeReport(update: TargetGroupReportUpdate): void {
    this.reports[update.key] = mergeReportUpdate(this.reports[update.key], update);
  }
}
