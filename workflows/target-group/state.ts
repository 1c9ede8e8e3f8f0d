import { setCurrentDetails, workflowInfo } from '@temporalio/workflow';
import type { ActivityCtx } from '../../activities';
import type { GuardMemory } from '../../plan/guards';
import { carriedPacing, type TargetGroupPacing } from '../../plan/watch-timing';
import type { ApiVersion } from '../../shared/api-version';
import type { CompletesPoint, FieldingControlRequest, PerformanceSnapshot, ReportChange, TargetGroupReportData, TargetGroupStatus, WebhookEventSignal } from '../messages';
import type { TargetGroupFigures, TargetGroupRevision } from '../child-protocol';
import type { Unapplied } from '../failures';
import { fieldingEnd } from '../forecast';
import { appendChanges, expectedFigures } from '../report-data';
import { enterPhase, eventOfRemote, type TargetGroupEvent } from '../phases';
import { SeenEvents } from '../seen-events';
import { TargetGroupNotices, type CarriedNotices } from './notifications';
import type { SoftLaunchDecision } from './soft-launch';

/** What the report keeps across continue-as-new. */
export interface CarriedReport {
  series: CompletesPoint[];
  changes: ReportChange[];
  launchedAt?: string;
  performance?: PerformanceSnapshot;
  seq: number;
  sentSeq: number;
}

export interface TargetGroupWorkflowInput {
  studyWorkflowId: string;
  accountId: string;
  studyId: string;
  businessUnitId: string;
  apiVersion: ApiVersion;
  revision: TargetGroupRevision;
  /** Carried across continue-as-new. */
  carried?: {
    status: TargetGroupStatus;
    writes: number;
    launchAttempts: number;
    etag?: string;
    jobAttempts: Record<string, number>;
    report: CarriedReport;
    /** Webhook event ids already taken (workflows/seen-events.ts), and events taken but not yet recorded. */
    seenEventIds?: string[];
    pendingEvents?: WebhookEventSignal[];
    /** What the guards remember between readings (plan/guards.ts); their trips and hold are in `status.guards`. */
    guardMemory?: GuardMemory;
    /** The notifications raised so far (workflows/target-group/notifications.ts). */
    notices?: CarriedNotices;
    /** The watch's pacing (plan/watch-timing.ts): a new run keeps its timers' rhythm and does not read again at once; figures not taken yet. */
    watch?: TargetGroupPacing & { figures?: TargetGroupFigures };
  };
}

/** Everything a target group's workflow holds; its phase changes only through {@link TargetGroupState.enter}. */
export class TargetGroupState {
  readonly input: TargetGroupWorkflowInput;
  readonly ctx: ActivityCtx;
  revision: TargetGroupRevision;
  pendingRevision?: TargetGroupRevision;
  approved = false;
  readonly controls: FieldingControlRequest['action'][] = [];
  readonly events: WebhookEventSignal[] = [];
  /** The webhook event ids taken, so a redelivered event (several receivers, retries) is recorded once. */
  readonly seenEvents: SeenEvents;
  writes: number;
  launchAttempts: number;
  etag?: string;
  /** A job that failed is retried with a new Idempotency-Key (the API replays the old, failed job otherwise). */
  readonly jobAttempts: Record<string, number>;
  readonly status: TargetGroupStatus;
  readonly report: CarriedReport & { performanceError?: string };
  /** A staged launch: the completes of the target groups it may wait for, as the study passed them on (by key). */
  readonly upstream: Record<string, number> = {};
  /** What the study's `notify:` targets were told, and what is still being sent. */
  readonly notices: TargetGroupNotices;
  /**
   * When the watch's own fallback read is due (workflow time; 0: not scheduled yet). The study wakes a target group
   * whose figures changed (`figures`); a quiet one reads on this timer only, its wait doubling up to a few hours.
   */
  nextReadAt = 0;
  /** The fallback timer's current wait (0: not started; workflows/target-group/watch.ts backs it off). */
  quietMs = 0;
  /** The figures the study's watch sent (it read them in the project's list and they changed); taken by the watch. */
  figures?: TargetGroupFigures;
  /** The study sent changed figures since the last performance read (the read is paced: workflows/target-group/watch.ts). */
  unread = false;
  /** The study's watch sent figures at least once (a study that does not watch: the fallback reads performance). */
  figuresSeen = false;
  /** When performance was last read by the watch (workflow time; 0: not yet). */
  lastPerformanceAt = 0;
  /**
   * The `updated_at` of the last figures the study sent (the exchange's time of the last change to the target group
   * itself); undefined until figures carry one. Each new one, the first included, wakes the drift check; once one is
   * known, the fallback is slow.
   */
  updatedAt?: string;
  /** The watch's pacing (plan/watch-timing.ts decides it; carried across continue-as-new). */
  get pacing(): TargetGroupPacing {
    const { nextReadAt, quietMs, lastPerformanceAt, figuresSeen, unread, updatedAt } = this;
    return { nextReadAt, quietMs, lastPerformanceAt, figuresSeen, unread, ...(updatedAt !== undefined ? { updatedAt } : {}) };
  }
  set pacing(pacing: TargetGroupPacing) {
    ({ nextReadAt: this.nextReadAt, quietMs: this.quietMs, lastPerformanceAt: this.lastPerformanceAt, figuresSeen: this.figuresSeen, unread: this.unread, updatedAt: this.updatedAt } = pacing);
  }
  /** Bumped on every status change: the progress sender sends the study the latest one. */
  version = 0;
  /**
   * While a launched target group's live steps run, a phase entered (resumed, relaunched) does not settle the
   * revision: the study waits until every step ran (converge settles it at the end).
   */
  holdSettle = false;
  /** What the guards remember between readings (workflows/target-group/guards.ts keeps it). */
  guardMemory?: GuardMemory;
  /** Who asked to resume a hold of the guards (`studyflow approve --resume`), oldest first; taken by the resume. */
  readonly guardResumes: string[] = [];
  /** Operators' decisions of a waiting soft launch (`studyflow approve --promote | --abort`), oldest first: ./soft-launch.ts. */
  readonly softLaunchDecisions: SoftLaunchDecision[] = [];
  /** When a soft launch write or read that failed is tried again (workflow time; 0: now): ./soft-launch.ts. */
  softLaunchRetryAt = 0;

  constructor(input: TargetGroupWorkflowInput) {
    const c = input.carried;
    this.input = input;
    this.revision = input.revision;
    this.ctx = { accountId: input.accountId, apiVersion: input.revision.apiVersion ?? input.apiVersion };
    this.writes = c?.writes ?? 0;
    this.launchAttempts = c?.launchAttempts ?? 0;
    this.etag = c?.etag;
    this.jobAttempts = { ...(c?.jobAttempts ?? {}) };
    this.seenEvents = new SeenEvents(c?.seenEventIds);
    this.events.push(...(c?.pendingEvents ?? []));
    this.guardMemory = c?.guardMemory;
    if (c?.watch) {
      this.pacing = carriedPacing(c.watch);
      this.figures = c.watch.figures;
    }
    this.notices = new TargetGroupNotices(c?.notices);
    this.status = c?.status ?? { key: input.revision.desired.key, phase: 'draft', revision: input.revision.revision, targetGroupId: input.revision.targetGroupId, events: { received: 0, sessionsByStatus: {} }, updatedAt: new Date().toISOString() };
    const r = c?.report;
    this.report = { series: [...(r?.series ?? [])], changes: [...(r?.changes ?? [])], launchedAt: r?.launchedAt, performance: r?.performance, seq: r?.seq ?? 0, sentSeq: r?.sentSeq ?? 0 };
  }

  carried(): NonNullable<TargetGroupWorkflowInput['carried']> {
    const { series, changes, launchedAt, performance, seq, sentSeq } = this.report;
    return {
      status: this.status,
      writes: this.writes,
      launchAttempts: this.launchAttempts,
      etag: this.etag,
      jobAttempts: this.jobAttempts,
      report: { series, changes, launchedAt, performance, seq, sentSeq },
      seenEventIds: this.seenEvents.toArray(),
      pendingEvents: [...this.events],
      ...(this.guardMemory ? { guardMemory: this.guardMemory } : {}),
      notices: this.notices.carried(),
      watch: { ...this.pacing, ...(this.figures ? { figures: this.figures } : {}) },
    };
  }

  /** Queues a webhook event for the watch unless its id was taken before; false for a duplicate. */
  takeEvent(event: WebhookEventSignal): boolean {
    if (!this.seenEvents.remember(event.id)) return false;
    this.events.push(event);
    return true;
  }

  /** The target group in every call: project, target group, call context. */
  get base() {
    return { ctx: this.ctx, projectId: this.revision.projectId, targetGroupId: this.revision.targetGroupId };
  }

  /** Takes the revision the study sent last; it converges from the top. */
  takeRevision(): void {
    if (!this.pendingRevision) return;
    this.revision = this.pendingRevision;
    this.pendingRevision = undefined;
    this.ctx.apiVersion = this.revision.apiVersion ?? this.input.apiVersion;
    delete this.status.settledRevision;
  }

  /** A new Idempotency-Key for a job's next attempt. */
  jobKey(intent: string): string {
    this.jobAttempts[intent] = (this.jobAttempts[intent] ?? 0) + 1;
    return `${workflowInfo().workflowId}/${intent}/${this.jobAttempts[intent]}`;
  }

  /** Every phase change of the workflow: the table's transition for `event` (refused from a phase it may not leave), through the one phase writer. */
  enter(event: TargetGroupEvent, patch: Partial<Omit<TargetGroupStatus, 'phase'>> = {}): void {
    const { from, phase, passing } = enterPhase(this.status, event);
    if (phase !== from) this.addChange('phase', `${from} -> ${phase}`);
    this.notices.entered(from, phase);
    const now = new Date().toISOString();
    Object.assign(this.status, patch, { revision: this.revision.revision, updatedAt: now });
    if (from === 'paused' && phase === 'live') this.status.resumedAt = now;
    if (!passing && !this.holdSettle) this.status.settledRevision = this.revision.revision;
    if (phase !== 'gate_blocked' && phase !== 'failed' && !patch.message) delete this.status.message;
    this.publish();
  }

  /**
   * Where the exchange says the target group is (a read of its status and run): the phase it found, its run, and for a
   * scheduled run the moment the exchange starts it (a moved `launch.at` shows the new one at once).
   */
  takeRemote(remote: { status: string; fieldingRunId: string | null; fieldingRunStartsAt?: string }): void {
    const event = eventOfRemote(remote.status);
    const patch: Partial<Omit<TargetGroupStatus, 'phase'>> = { fieldingRunId: remote.fieldingRunId ?? this.status.fieldingRunId };
    if (event === 'found_scheduled' && remote.fieldingRunStartsAt) {
      patch.launchAt = remote.fieldingRunStartsAt;
      patch.message = `launches at ${remote.fieldingRunStartsAt} (scheduled in the exchange)`;
    } else if (event !== 'found_scheduled') {
      delete this.status.launchAt;
    }
    this.enter(event, patch);
  }

  /** A live change of this revision that was not made: the status lists each of its fields, and the study's with them. */
  recordUnapplied({ fields, reason, detail }: Unapplied): void {
    for (const field of fields) {
      (this.status.unapplied ??= []).push({ targetGroup: this.status.key, field, reason, detail });
      this.addChange('event', `not applied: ${field} (${reason}): ${detail}`);
    }
    this.publish();
  }

  /** The status changed without a phase change: the study is sent it. */
  publish(): void {
    setCurrentDetails(`**${this.status.key}**: ${this.status.phase}${this.status.message ? ` (${this.status.message})` : ''}`);
    this.version += 1;
  }

  addChange(kind: ReportChange['kind'], detail: string): void {
    if (!this.report.launchedAt) return;
    this.report.seq += 1;
    this.report.changes = appendChanges(this.report.changes, [{ seq: this.report.seq, time: new Date().toISOString(), kind, detail }]);
  }

  reportData(): TargetGroupReportData {
    const end = fieldingEnd(this.revision.desired.launch.endFieldingAt, this.status.liveAt ?? this.report.launchedAt);
    const expected = { ...expectedFigures(this.revision.desired.draft), ...(end ? { endFieldingAt: end } : {}) };
    const data: TargetGroupReportData = { key: this.status.key, expected, series: this.report.series, changes: this.report.changes };
    if (this.report.launchedAt) data.launchedAt = this.report.launchedAt;
    if (this.report.performance) data.performance = this.report.performance;
    if (this.report.performanceError) data.performanceError = this.report.performanceError;
    return data;
  }

  /** The study passed on a reading of another target group's completes (a staged launch waits for it). */
  takeUpstream(targetGroup: string, completes: number): void {
    this.upstream[targetGroup] = Math.max(this.upstream[targetGroup] ?? 0, completes);
  }

  /** The guards tripped and not resumed (the console's reason reads the last). */
  get activeGuards(): NonNullable<TargetGroupStatus['guards']>['active'] | undefined {
    return this.status.guards?.active;
  }

  /** Live or paused (or scheduled in the exchange: the watch sees it start): the watch reads performance and drift. */
  get watching(): boolean {
    return this.status.phase === 'live' || this.status.phase === 'paused' || this.status.phase === 'scheduled';
  }
}
