import {
  ApplicationFailure,
  condition,
  continueAsNew,
  getExternalWorkflowHandle,
  isCancellation,
  log,
  patched,
  setCurrentDetails,
  setHandler,
  sleep,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { ApiVersion, IdListEntityType, ListRef, PlannedAction } from '../plan/types';
import type { AwaitJobOutput, JobKind, LaunchAndAwaitOutput } from '../activities';
import { fieldChanges } from '../plan/compare';
import { apiActivities } from './activity-proxies';
import {
  targetGroupApproveSignal,
  targetGroupControlSignal,
  targetGroupEventSignal,
  targetGroupEventUpdate,
  targetGroupProgressSignal,
  targetGroupReportQuery,
  targetGroupReportSignal,
  targetGroupRevisionSignal,
  targetGroupStatusQuery,
  type CompletesPoint,
  type FieldingControlRequest,
  type PerformanceSnapshot,
  type ReportChange,
  type TargetGroupReportData,
  type TargetGroupPhase,
  type TargetGroupRevision,
  type TargetGroupStatus,
  type WebhookEventSignal,
} from './messages';
import { PHASE } from './search-attributes';
import { jobWaitOptions, nextPollDelay } from './timing';
import { failureOf } from './failures';
import { endFieldingAt, feasibilityRequest, gateFailures, judgedCpi, priceQuery, readFeasibility } from './launch-gates';
import { appendChanges, appendPoint, expectedFigures, performanceSnapshot } from './report-data';
import { SeenEvents } from './seen-events';

/**
 * Patch of the report figures: a performance read (and a report signal to the study) on every watch
 * tick, on a timer that ticks every watch interval even while webhook events keep arriving.
 */
export const REPORT_PATCH = 'report-v1';

/**
 * Patch of the fan-out: progress goes to the study workflow from a sender of its own (one signal in
 * flight, the latest status when it is sent), so that a target group never waits for its study to
 * take a phase; the phase search attribute is set with it. Feasibility and the price prediction,
 * which do not depend on each other, run side by side. The first performance reading of a live
 * target group waits one watch interval.
 */
export const PROGRESS_PATCH = 'progress-sender-v1';

/**
 * Patch of job polling: a job is first awaited inside one activity (`awaitJob`, polling with backoff
 * for up to JOB_WAIT_BUDGET_MS; for a launch, `launchAndAwait` launches and waits in one), then, if it
 * still runs, polled on durable timers as before.
 */
export const JOB_WAIT_PATCH = 'job-wait-activity-v1';
/**
 * Patch of progress pacing: a phase the target group passes through (checking feasibility, pricing,
 * uploading, launching) reaches the study at most once per PROGRESS_INTERVAL_MS, measured from the
 * last progress signal (or the start of the run); a phase it settles in (live, draft, held at a
 * gate, awaiting approval, failed, paused, completed) goes at once. A target group that is live within the
 * interval sends one signal on its way there instead of one per phase.
 */
export const PROGRESS_PACING_PATCH = 'progress-pacing-v1';
/**
 * Patch of the launch gate's reads: feasibility and the price prediction in one activity
 * (`checkLaunchGates`, the two calls side by side inside it) instead of two activities.
 */
export const GATES_PATCH = 'gates-activity-v1';

/** The summary of the timer that paces progress (the Temporal UI shows it; the benchmarks tell it apart by it). */
export const PROGRESS_PACING_SUMMARY = 'progress pacing';
/** The least time between two progress signals that carry a passing phase. */
export const PROGRESS_INTERVAL_MS = 1_000;
/** The phases a target-group workflow reports on its way (`report`); every other phase it reports is one it settles in. */
const PASSING_PHASES: ReadonlySet<TargetGroupPhase> = new Set(['uploading', 'checking_feasibility', 'pricing', 'launching']);

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
  carried?: { status: TargetGroupStatus; writes: number; launchAttempts: number; etag?: string; jobAttempts?: Record<string, number>; report?: CarriedReport; seenEventIds?: string[] };
}

/** What a poll of a job reads. */
interface JobReading {
  status: string;
  failureReason?: string;
  fieldingRunId?: string;
}

const TERMINAL_JOB = new Set(['Success', 'Completed', 'Failed']);
/** Respondent statuses a session ends in (the spec's list). */
const TERMINAL_STATUSES = new Set(['Complete', 'Terminate', 'SecurityFailure', 'OverQuota', 'FinancialTerm', 'PreClientSurveyProcess']);
const MAX_RECORDED_CHANGES = 50;

/**
 * One target group from draft to fielding and beyond: profiles, ID-list and recontact uploads,
 * feasibility, price, the launch gate, launch-from-draft and its job, then watching the live
 * target group (webhook signals, slow polling) and reporting drift without overwriting it.
 */
export async function targetGroupWorkflow(input: TargetGroupWorkflowInput): Promise<TargetGroupStatus> {
  const api = apiActivities();
  const { accountId, apiVersion } = input;
  // The context of every call: the revision's version (pinned forward by the study), else the study's.
  const ctx = { accountId, apiVersion: input.revision.apiVersion ?? apiVersion };
  let revision = input.revision;
  let pendingRevision: TargetGroupRevision | undefined;
  let approved = false;
  const controls: FieldingControlRequest['action'][] = [];
  const events: WebhookEventSignal[] = [];
  let writes = input.carried?.writes ?? 0;
  let launchAttempts = input.carried?.launchAttempts ?? 0;
  let etag = input.carried?.etag;
  // A job that failed is retried with a new Idempotency-Key (the API replays the old, failed job otherwise).
  const jobAttempts: Record<string, number> = { ...(input.carried?.jobAttempts ?? {}) };
  const jobKey = (intent: string): string => {
    jobAttempts[intent] = (jobAttempts[intent] ?? 0) + 1;
    return `${workflowInfo().workflowId}/${intent}/${jobAttempts[intent]}`;
  };
  const status: TargetGroupStatus = input.carried?.status ?? {
    key: revision.desired.key,
    phase: 'draft',
    revision: revision.revision,
    targetGroupId: revision.targetGroupId,
    events: { received: 0, sessionsByStatus: {} },
    updatedAt: new Date().toISOString(),
  };
  const parent = getExternalWorkflowHandle(input.studyWorkflowId);
  // Histories from before PROGRESS_PATCH keep their command order: awaited progress signals.
  const progressSender = patched(PROGRESS_PATCH);
  const progressPaced = progressSender && patched(PROGRESS_PACING_PATCH);
  const progress = { version: 0, sent: 0, sending: false, phaseAttribute: undefined as TargetGroupPhase | undefined, lastSentAt: workflowInfo().runStartTime.getTime() };
  // Report figures: completes over time, the latest performance reading, changes since launch.
  const carriedReport = input.carried?.report;
  const reportState: CarriedReport & { performanceError?: string } = {
    series: [...(carriedReport?.series ?? [])],
    changes: [...(carriedReport?.changes ?? [])],
    launchedAt: carriedReport?.launchedAt,
    performance: carriedReport?.performance,
    seq: carriedReport?.seq ?? 0,
    sentSeq: carriedReport?.sentSeq ?? 0,
  };
  let nextReadAt = 0;
  const addChange = (kind: ReportChange['kind'], detail: string): void => {
    if (!reportState.launchedAt) return;
    reportState.seq += 1;
    reportState.changes = appendChanges(reportState.changes, [{ seq: reportState.seq, time: new Date().toISOString(), kind, detail }]);
  };
  const reportData = (): TargetGroupReportData => {
    const data: TargetGroupReportData = {
      key: status.key,
      expected: expectedFigures(revision.desired.draft),
      series: reportState.series,
      changes: reportState.changes,
    };
    if (reportState.launchedAt) data.launchedAt = reportState.launchedAt;
    if (reportState.performance) data.performance = reportState.performance;
    if (reportState.performanceError) data.performanceError = reportState.performanceError;
    return data;
  };

  setHandler(targetGroupStatusQuery, () => status);
  setHandler(targetGroupReportQuery, () => reportData());
  setHandler(targetGroupApproveSignal, () => {
    approved = true;
  });
  setHandler(targetGroupControlSignal, (action) => {
    controls.push(action);
  });
  // A webhook event is taken once, however many receivers pass it on and however often it is redelivered.
  const seenEvents = new SeenEvents(input.carried?.seenEventIds);
  setHandler(targetGroupEventSignal, (event) => {
    if (seenEvents.remember(event.id)) events.push(event);
  });
  setHandler(targetGroupEventUpdate, (event) => {
    if (!seenEvents.remember(event.id)) return 'duplicate';
    events.push(event);
    return 'accepted';
  });
  setHandler(targetGroupRevisionSignal, (next) => {
    pendingRevision = next;
  });

  async function report(phase: TargetGroupPhase, patch: Partial<TargetGroupStatus> = {}): Promise<void> {
    if (phase !== status.phase) addChange('phase', `${status.phase} -> ${phase}`);
    Object.assign(status, patch, { phase, revision: revision.revision, updatedAt: new Date().toISOString() });
    if (phase !== 'gate_blocked' && phase !== 'failed' && !patch.message) delete status.message;
    setCurrentDetails(`**${status.key}**: ${phase}${status.message ? ` (${status.message})` : ''}`);
    if (progressSender) {
      progress.version += 1;
      return;
    }
    upsertSearchAttributes([{ key: PHASE, value: phase }]);
    await parent.signal(targetGroupProgressSignal, { status: { ...status }, writes });
  }

  /**
   * Sends the study the latest status whenever it changed: one signal at a time, so phases that
   * follow each other faster than the study takes them are sent as one (the last), in order.
   */
  async function sendProgress(): Promise<void> {
    for (;;) {
      try {
        await condition(() => progress.version > progress.sent);
        // A passing phase waits out the interval (a timer, cancelled if the target group settles first).
        const waitMs = progress.lastSentAt + PROGRESS_INTERVAL_MS - Date.now();
        if (progressPaced && PASSING_PHASES.has(status.phase) && waitMs > 0) {
          await condition(() => !PASSING_PHASES.has(status.phase), waitMs, { summary: PROGRESS_PACING_SUMMARY });
        }
      } catch (error) {
        if (isCancellation(error)) return; // the main path handles cancellation
        throw error;
      }
      progress.sent = progress.version;
      progress.lastSentAt = Date.now();
      if (status.phase !== progress.phaseAttribute) {
        upsertSearchAttributes([{ key: PHASE, value: status.phase }]);
        progress.phaseAttribute = status.phase;
      }
      progress.sending = true;
      try {
        await parent.signal(targetGroupProgressSignal, { status: { ...status }, writes });
      } catch (error) {
        if (isCancellation(error)) return;
        log.warn('the study did not take a progress update', { key: status.key, phase: status.phase });
      } finally {
        progress.sending = false;
      }
    }
  }
  if (progressSender) void sendProgress();
  /** Resolves once the study has been sent the latest status (before this run ends or continues as new). */
  const progressDelivered = () => condition(() => !progressSender || (progress.sent === progress.version && !progress.sending));

  /** Reports a phase in which this revision's work is done, or waits for someone to act. */
  async function settle(phase: TargetGroupPhase, patch: Partial<TargetGroupStatus> = {}): Promise<void> {
    await report(phase, { ...patch, settledRevision: revision.revision });
  }

  /** How an `awaitJob` activity polls a job of this target group. */
  const jobWait = () => jobWaitOptions(revision.desired.timing);

  /**
   * Polls a job until it ends; returns its last reading. `wait` names the job for an `awaitJob`
   * activity, or is what one already returned (launch waits inside its own activity).
   */
  async function pollJob(kind: string, jobId: string, read: () => Promise<JobReading>, wait?: JobKind | AwaitJobOutput): Promise<JobReading> {
    const timing = revision.desired.timing;
    const deadline = Date.now() + timing.jobTimeoutMs;
    let delay = 0;
    let polls = 0;
    const failed = (job: JobReading) =>
      ApplicationFailure.create({
        type: 'job_failed',
        message: `${kind} job ${jobId} failed: ${job.failureReason ?? 'no reason given'}`,
        nonRetryable: true,
      });
    if (typeof wait === 'object' || (wait && patched(JOB_WAIT_PATCH))) {
      // One activity polls the job for a while: a short job costs no poll activities and timers.
      const job =
        typeof wait === 'object'
          ? wait
          : await apiActivities(`wait for ${kind} job ${jobId}`, 'long').awaitJob({
              ctx,
              projectId: revision.projectId,
              targetGroupId: revision.targetGroupId,
              kind: wait,
              jobId,
              ...jobWait(),
            });
      polls += job.polls;
      status.job = { kind, jobId, status: job.status, polls };
      if (job.status === 'Failed') throw failed(job);
      if (job.done) return job;
      delay = timing.jobPollMaxMs;
      await sleep(Math.min(delay, Math.max(1, deadline - Date.now())));
    }
    for (;;) {
      const job = await read();
      polls += 1;
      status.job = { kind, jobId, status: job.status, polls };
      if (job.status === 'Failed') throw failed(job);
      if (TERMINAL_JOB.has(job.status)) return job;
      if (Date.now() >= deadline) {
        throw ApplicationFailure.create({
          type: 'job_timeout',
          message: `${kind} job ${jobId} still ${job.status} after ${Math.round(timing.jobTimeoutMs / 1000)} s (timing.job_timeout)`,
          nonRetryable: true,
        });
      }
      delay = nextPollDelay(delay, timing.jobPollInitialMs, timing.jobPollMaxMs);
      await sleep(Math.min(delay, Math.max(1, deadline - Date.now())));
    }
  }

  async function uploadList(action: PlannedAction): Promise<void> {
    const api = apiActivities(`${action.reason} (${revision.desired.key})`, 'long');
    const list = action.list as ListRef;
    const base = { ctx, projectId: revision.projectId, targetGroupId: revision.targetGroupId };
    if (action.resource === 'recontact_list') {
      const { jobId } = await api.uploadRecontactList({ ...base, list, idempotencyKey: jobKey(`recontact/${list.sha256}`) });
      writes += 1;
      await pollJob('recontact upload', jobId, () => api.getRecontactJob({ ...base, jobId }), 'recontact_upload');
      status.recontactList = { sha256: list.sha256, count: list.count };
      return;
    }
    const entityType = action.entityType as IdListEntityType;
    if (action.kind === 'replace_list') {
      const { jobId } = await api.removeAllExcludedIds({ ...base, idempotencyKey: jobKey(`remove-all/${entityType}/${list.sha256}`) });
      writes += 1;
      await pollJob('remove-all', jobId, () => api.getRemoveAllJob({ ...base, jobId }), 'remove_all');
    }
    const { jobId } = await api.uploadIdList({
      ...base,
      entityType,
      list,
      idempotencyKey: jobKey(`upload/${entityType}/${list.sha256}`),
    });
    writes += 1;
    await pollJob(`${entityType} upload`, jobId, () => api.getIdListJob({ ...base, jobId }), 'id_list_upload');
  }

  /** Runs this revision's actions up to live; returns false when the gate holds for a new revision. */
  async function converge(): Promise<void> {
    const desired = revision.desired;
    const base = { ctx, projectId: revision.projectId, targetGroupId: revision.targetGroupId };
    const actions = revision.actions;
    status.targetGroupId = revision.targetGroupId;

    const profileAction = actions.find((a) => a.resource === 'profiles' && a.kind === 'update');
    if (profileAction && desired.profiles) {
      await report('uploading', { message: 'applying profiles' });
      await apiActivities(`profiles ${desired.key}`).manageProfiles({
        ...base,
        profiles: desired.profiles as Record<string, unknown>[],
        ...(desired.profileTemplateIds ? { extra: { profile_template_ids: desired.profileTemplateIds } } : {}),
      });
      writes += 1;
    }
    const uploads = actions.filter((a) => a.kind === 'upload' || a.kind === 'replace_list');
    for (const upload of uploads) {
      await report('uploading', { message: upload.reason });
      await uploadList(upload);
    }
    status.job = undefined;

    if (revision.launched) {
      // The study read the gate and launched it in a batch: take its figures and settle live.
      const launched = revision.launched;
      status.feasibility = launched.feasibility;
      status.price = launched.price;
      status.phase = 'launching';
      reportState.launchedAt ??= launched.launchedAt;
      await settle('live', { fieldingRunId: launched.fieldingRunId, liveAt: launched.launchedAt, message: undefined });
      return;
    }
    const launch = actions.find((a) => a.kind === 'launch');
    if (!launch) {
      const current = await api.getTargetGroup(base);
      const phase = phaseOfRemote(current.targetGroup.status);
      const runId = current.targetGroup.fielding_run_id;
      await settle(phase, { fieldingRunId: runId === null || runId === undefined ? status.fieldingRunId : String(runId) });
      return;
    }

    for (;;) {
      await report('checking_feasibility');
      const feasibilityCall = () => apiActivities(`feasibility ${desired.key}`).calculateFeasibility({ ctx, request: feasibilityRequest(desired) });
      const priceCall = () => apiActivities(`price prediction ${desired.key}`).generatePricePrediction({ ctx, businessUnitId: input.businessUnitId, query: priceQuery(desired) });
      // Independent reads: in one activity (GATES_PATCH), side by side in two (PROGRESS_PATCH), or one
      // after the other in histories from before both.
      const gatesInOne = progressSender && patched(GATES_PATCH);
      const [{ feasibility: rawFeasibility }, pricing] = gatesInOne
        ? await apiActivities(`feasibility and price ${desired.key}`)
            .checkLaunchGates({ ctx, businessUnitId: input.businessUnitId, feasibility: feasibilityRequest(desired), priceQuery: priceQuery(desired) })
            .then((both) => [{ feasibility: both.feasibility }, { prediction: both.prediction }] as const)
        : progressSender
          ? await Promise.all([feasibilityCall(), priceCall()])
          : [await feasibilityCall(), undefined];
      const feasibility = readFeasibility(rawFeasibility, desired);
      status.feasibility = feasibility;
      if (!pricing) await report('pricing');
      const { prediction } = pricing ?? (await priceCall());
      const cpi = judgedCpi(prediction, feasibility);
      status.price = cpi;

      const blocked = gateFailures(desired, feasibility, cpi);
      if (blocked.length > 0) {
        await settle('gate_blocked', { message: blocked.join('; ') });
        await condition(() => pendingRevision !== undefined);
        return; // the new revision converges from the top
      }
      if (desired.launch.mode === 'manual' && !approved) {
        await settle('awaiting_approval', { message: 'waiting for `studyflow approve` or an approve signal' });
        await condition(() => approved || pendingRevision !== undefined);
        if (!approved) return;
      }
      break;
    }

    const fieldingEndsAt = endFieldingAt(desired);
    for (;;) {
      launchAttempts += 1;
      await report('launching', { message: launchAttempts > 1 ? `attempt ${launchAttempts}` : undefined });
      const launchInput = { ...base, endFieldingAt: fieldingEndsAt, idempotencyKey: `${workflowInfo().workflowId}/launch/${launchAttempts}` };
      const launchApi = apiActivities(`launch ${desired.key} (attempt ${launchAttempts})`, 'long');
      // Launch and wait for its job in one activity (a launch from before JOB_WAIT_PATCH: launch, then poll).
      const launched: LaunchAndAwaitOutput = patched(JOB_WAIT_PATCH)
        ? await launchApi.launchAndAwait({ ...launchInput, wait: jobWait() })
        : await apiActivities(`launch ${desired.key} (attempt ${launchAttempts})`).launchFromDraft(launchInput);
      let fieldingRunId = launched.fieldingRunId ?? undefined;
      if (launched.jobId) {
        writes += 1;
        const jobId = launched.jobId;
        try {
          const job = await pollJob(
            'launch',
            jobId,
            async () => {
              const reading = await api.getLaunchJob({ ...base, jobId });
              fieldingRunId = reading.fieldingRunId ?? fieldingRunId;
              return reading;
            },
            launched.job ?? 'launch',
          );
          fieldingRunId = job.fieldingRunId ?? fieldingRunId;
        } catch (error) {
          const failure = failureOf(error);
          if (failure.type === 'job_failed' && launchAttempts < desired.timing.launchRetries) {
            log.warn('launch job failed; retrying', { key: desired.key, attempt: launchAttempts });
            await sleep(desired.timing.jobPollInitialMs);
            continue;
          }
          throw error;
        }
      }
      status.job = undefined;
      reportState.launchedAt ??= new Date().toISOString();
      await settle('live', { fieldingRunId, liveAt: new Date().toISOString(), message: undefined });
      return;
    }
  }

  async function applyControl(action: FieldingControlRequest['action']): Promise<void> {
    if (!status.fieldingRunId) {
      status.message = `cannot ${action}: the target group has no fielding run yet`;
      return;
    }
    const base = { ctx, projectId: revision.projectId, targetGroupId: revision.targetGroupId, fieldingRunId: status.fieldingRunId };
    const control = action === 'pause' ? api.pauseFieldingRun : action === 'resume' ? api.resumeFieldingRun : api.completeFieldingRun;
    for (let attempt = 0; attempt < 3; attempt += 1) {
      if (!etag) etag = (await api.getFieldingRun(base)).etag;
      const result = await control({ ...base, etag });
      etag = result.etag;
      if (result.outcome === 'applied' || result.outcome === 'already_in_state') {
        if (result.outcome === 'applied') writes += 1;
        await report(action === 'pause' ? 'paused' : action === 'resume' ? 'live' : 'completed');
        return;
      }
      if (result.outcome === 'precondition_failed') continue; // re-read, then decide again
      status.message = `cannot ${action}: ${result.detail ?? `the run is ${String(result.run.status)}`}`;
      return;
    }
  }

  function recordEvent(event: WebhookEventSignal): void {
    const ev = status.events;
    ev.received += 1;
    ev.lastType = event.type;
    for (const session of event.sessions ?? []) {
      if (!TERMINAL_STATUSES.has(session.status)) continue;
      const firstTerminal = !session.respondent_last_date_change || session.respondent_last_date_change === session.respondent_update_date;
      const bucket = firstTerminal ? ev.sessionsByStatus : (ev.reconciled ??= {});
      bucket[session.status] = (bucket[session.status] ?? 0) + 1;
      if (!ev.lastSessionUpdate || session.respondent_update_date > ev.lastSessionUpdate) ev.lastSessionUpdate = session.respondent_update_date;
    }
    for (const change of event.changes ?? []) {
      (ev.changes ??= []).push({ ...change, time: event.time });
    }
    if (ev.changes && ev.changes.length > MAX_RECORDED_CHANGES) ev.changes.splice(0, ev.changes.length - MAX_RECORDED_CHANGES);
    if (event.changes?.length) {
      const objects = event.changes.map((c) => [c.object, c.supplier_id && `supplier ${c.supplier_id}`, c.allocation_group_id && `group ${c.allocation_group_id}`].filter(Boolean).join(' '));
      addChange('event', `${event.type}: ${objects.join(', ')}`);
    }
  }

  async function checkDrift(): Promise<void> {
    const current = await api.getTargetGroup({ ctx, projectId: revision.projectId, targetGroupId: revision.targetGroupId });
    const remote = current.targetGroup;
    const drift = fieldChanges(revision.desired.draft, remote).map((c) => ({ field: c.field, expected: c.to, actual: c.from }));
    const remotePhase = phaseOfRemote(remote.status);
    const fields = (list: { field: string }[] | undefined) => (list ?? []).map((d) => d.field).join(', ');
    if (fields(drift) !== fields(status.drift)) {
      addChange('drift', drift.length ? `drift: ${drift.map((d) => `${d.field} is ${JSON.stringify(d.actual)} in the API, ${JSON.stringify(d.expected)} in the study file`).join('; ')}` : 'drift cleared');
    }
    if (drift.length !== (status.drift?.length ?? 0) || remotePhase !== status.phase) {
      await report(remotePhase, { drift: drift.length ? drift : undefined });
    } else {
      status.drift = drift.length ? drift : undefined;
    }
  }

  /** Reads performance (best effort) and sends the study what is new for its report. */
  async function readPerformance(): Promise<void> {
    let point: CompletesPoint | undefined;
    try {
      const { performance } = await apiActivities(`performance ${revision.desired.key}`, 'best_effort').getTargetGroupPerformance({
        ctx,
        projectId: revision.projectId,
        targetGroupId: revision.targetGroupId,
      });
      const snapshot = performanceSnapshot(performance, new Date().toISOString());
      reportState.performance = snapshot;
      delete reportState.performanceError;
      point = { t: snapshot.readAt, completes: snapshot.completes };
      reportState.series = appendPoint(reportState.series, point);
    } catch (error) {
      if (isCancellation(error)) throw error;
      reportState.performanceError = failureOf(error).message;
    }
    const data = reportData();
    const changes = reportState.changes.filter((c) => c.seq > reportState.sentSeq);
    reportState.sentSeq = reportState.seq;
    try {
      await parent.signal(targetGroupReportSignal, {
        key: data.key,
        expected: data.expected,
        launchedAt: data.launchedAt,
        point,
        performance: point ? data.performance : undefined,
        performanceError: data.performanceError,
        changes,
      });
    } catch (error) {
      if (isCancellation(error)) throw error;
      log.warn('the study did not take the report update', { key: data.key });
    }
  }

  // Functions, not expressions: the phase changes under the loop (controls, drift checks).
  const phaseNow = (): TargetGroupPhase => status.phase;
  const watching = () => phaseNow() === 'live' || phaseNow() === 'paused';

  // Main loop: converge the current revision, then watch until a new revision, a control or an event.
  let needsConverge = input.carried === undefined;
  for (;;) {
    if (needsConverge) {
      delete status.settledRevision;
      try {
        await converge();
      } catch (error) {
        const failure = failureOf(error);
        await settle('failed', { failure, message: failure.message });
        await condition(() => pendingRevision !== undefined);
      }
      needsConverge = false;
    }
    if (pendingRevision) {
      revision = pendingRevision;
      pendingRevision = undefined;
      ctx.apiVersion = revision.apiVersion ?? apiVersion;
      needsConverge = true;
      continue;
    }
    if (status.phase === 'completed') {
      await progressDelivered();
      return status;
    }
    const watchMs = revision.desired.timing.watchIntervalMs;
    if (patched(REPORT_PATCH)) {
      // A tick every watch interval (events do not postpone it): performance for the report, then drift.
      // The first reading comes one interval after going live (there is nothing to read at launch), so
      // that a study's target groups going live do not all read at once while others still launch.
      if (progressSender && nextReadAt === 0 && watching()) nextReadAt = Date.now() + watchMs;
      const wait = watching() ? nextReadAt - Date.now() : watchMs;
      if (wait > 0) await condition(() => pendingRevision !== undefined || controls.length > 0 || events.length > 0, wait);
      if (events.length > 0) {
        while (events.length > 0) recordEvent(events.shift() as WebhookEventSignal);
        await report(status.phase);
      }
      while (controls.length > 0) await applyControl(controls.shift() as FieldingControlRequest['action']);
      if (watching() && Date.now() >= nextReadAt) {
        nextReadAt = Date.now() + watchMs;
        await readPerformance();
        if (watching()) await checkDrift();
      }
      // The last figures of a target group that just completed.
      if (phaseNow() === 'completed' && reportState.performance?.status !== 'completed') await readPerformance();
    } else {
      const woke = await condition(() => pendingRevision !== undefined || controls.length > 0 || events.length > 0, watchMs);
      if (events.length > 0) {
        while (events.length > 0) recordEvent(events.shift() as WebhookEventSignal);
        await report(status.phase);
      }
      while (controls.length > 0) await applyControl(controls.shift() as FieldingControlRequest['action']);
      if (!woke && (status.phase === 'live' || status.phase === 'paused')) await checkDrift();
    }
    if (workflowInfo().continueAsNewSuggested && !pendingRevision) await progressDelivered();
    if (workflowInfo().continueAsNewSuggested && !pendingRevision) {
      // Events taken while the progress went out are recorded here, not lost with this run.
      while (events.length > 0) recordEvent(events.shift() as WebhookEventSignal);
      const carriedOn: CarriedReport = { series: reportState.series, changes: reportState.changes, launchedAt: reportState.launchedAt, performance: reportState.performance, seq: reportState.seq, sentSeq: reportState.sentSeq };
      await continueAsNew<typeof targetGroupWorkflow>({ ...input, revision: { ...revision, actions: [] }, carried: { status, writes, launchAttempts, etag, jobAttempts, report: carriedOn, seenEventIds: seenEvents.toArray() } });
    }
  }
}

export function phaseOfRemote(remoteStatus: unknown): TargetGroupPhase {
  switch (remoteStatus) {
    case 'live':
    case 'fielding':
      return 'live';
    case 'paused':
      return 'paused';
    case 'completed':
      return 'completed';
    default:
      return 'draft';
  }
}
