import { condition, getExternalWorkflowHandle, isCancellation, log, workflowInfo } from '@temporalio/workflow';
import { fieldChanges } from '../../plan/compare';
import { TARGET_GROUP_UPDATED_EVENT } from '../../shared/api-profile';
import type { Api } from '../activity-proxies';
import { failureOf } from '../failures';
import { targetGroupReportSignal, type CompletesPoint, type FieldingControlRequest, type WebhookEventSignal } from '../messages';
import { appendPoint, performanceSnapshot } from '../report-data';
import { applyControl } from './controls';
import { noticeDrift } from './notifications';
import { judgeGuards } from './guards';
import { eventOfRemote, TRANSITIONS } from '../phases';
import type { TargetGroupState } from './state';

/** Respondent statuses a session ends in (the spec's list). */
const TERMINAL_STATUSES = new Set(['Complete', 'Terminate', 'SecurityFailure', 'OverQuota', 'FinancialTerm', 'PreClientSurveyProcess']);
const MAX_RECORDED_CHANGES = 50;

/**
 * The longest wait of the fallback timer (the drift check nothing else triggers), and its wait once the study's
 * list tells when the target group last changed (`updated_at`): a change then wakes the check itself.
 */
export const MAX_QUIET_MS = 6 * 3_600_000;
/**
 * The least time between two performance reads of a target group whose figures keep changing, in watch
 * intervals: every live target group of a busy fielding changes every interval, and one detailed read each
 * would outgrow the API's rate limit at 10,000 (docs/benchmarks.md, "Cost of watching at scale").
 */
export const PERFORMANCE_PACE_INTERVALS = 3;

/** A stable offset in [0, spanMs) for `id` (FNV-1a): the same on every replay and every run of the workflow. */
export function spreadMs(id: string, spanMs: number): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < id.length; i += 1) hash = Math.imul(hash ^ id.charCodeAt(i), 0x01000193) >>> 0;
  return spanMs > 0 ? hash % Math.floor(spanMs) : 0;
}

/**
 * One turn of the watch: wait for a new revision, a control, a webhook event, the study's word that the target
 * group's figures changed (the study reads all its target groups' figures in one list call per watch interval:
 * workflows/study/watch.ts), a paced performance read that is due, or the fallback timer; then take the events,
 * apply the controls and:
 * - figures whose status is not the phase: read performance and the state at once (a completion is taken with
 *   that last reading);
 * - figures changed otherwise: read performance, at most once per PERFORMANCE_PACE_INTERVALS watch intervals;
 * - figures whose `updated_at` moved (the target group itself was changed: in the exchange's UI, by another tool,
 *   by studyflow): read the state for drift;
 * - the fallback timer (first at twice the watch interval plus an offset within one interval by the workflow's id,
 *   so target groups launched together spread their checks; then doubling up to MAX_QUIET_MS): read the state for
 *   drift from the study file (and performance if the figures never came: a study that does not watch). Once the
 *   figures carry `updated_at`, the fallback waits MAX_QUIET_MS, its first wait spread over that span by the
 *   workflow's id (`slowFallback`): a safety net for a missed change, not the way drift is found.
 */
export async function watchOnce(state: TargetGroupState, api: Api): Promise<void> {
  const watchMs = state.revision.desired.timing.watchIntervalMs;
  const paceMs = PERFORMANCE_PACE_INTERVALS * watchMs;
  if (state.nextReadAt === 0 && state.watching) {
    state.quietMs = 2 * watchMs;
    // Spread over one interval by the workflow's id: target groups launched together do not all check at once.
    state.nextReadAt = Date.now() + state.quietMs + spreadMs(workflowInfo().workflowId, watchMs);
  }
  const wakeAt = state.unread ? Math.min(state.nextReadAt, state.lastPerformanceAt + paceMs) : state.nextReadAt;
  const wait = state.watching ? wakeAt - Date.now() : watchMs;
  if (wait > 0) await condition(() => state.pendingRevision !== undefined || state.controls.length > 0 || state.events.length > 0 || state.figures !== undefined, wait);
  // A change made in the exchange (its UI, another tool) is checked at once, not at the next reading.
  let changedRemotely = false;
  if (state.events.length > 0) {
    while (state.events.length > 0) {
      const event = state.events.shift() as WebhookEventSignal;
      changedRemotely ||= event.type === TARGET_GROUP_UPDATED_EVENT;
      recordEvent(state, event);
    }
    state.publish();
    await judgeGuards(state, api, 'sessions');
  }
  while (state.controls.length > 0) await applyControl(state, api, state.controls.shift() as FieldingControlRequest['action']);
  const figures = state.figures;
  state.figures = undefined;
  let changedItself = false;
  if (figures) {
    state.unread = true;
    state.figuresSeen = true;
    if (figures.updatedAt !== undefined && figures.updatedAt !== state.updatedAt) {
      // The first such figures are checked too: a change made between the launch and them is found now.
      if (state.updatedAt === undefined) slowFallback(state, workflowInfo().workflowId);
      changedItself = true;
      state.updatedAt = figures.updatedAt;
    }
  }
  if (state.watching) {
    const now = Date.now();
    const statusChanged = figures !== undefined && figures.status !== state.status.phase;
    const fallback = now >= state.nextReadAt;
    if (fallback) {
      state.quietMs = Math.min(2 * state.quietMs, MAX_QUIET_MS);
      state.nextReadAt = now + state.quietMs;
    }
    const performanceDue = statusChanged || (state.unread && now >= state.lastPerformanceAt + paceMs) || (fallback && !state.figuresSeen);
    // A run scheduled in the exchange collects nothing yet: only its state is read, to see it start.
    if (performanceDue && state.status.phase !== 'scheduled') {
      state.unread = false;
      state.lastPerformanceAt = now;
      await readPerformance(state, api);
    }
    if (state.watching && (statusChanged || fallback || changedItself)) await checkDrift(state, api);
    else if (state.watching && changedRemotely) {
      // Not a completion: the session events of the last completes may still be on their way (the exchange's
      // status_change can overtake them), so a completion is taken at the next reading, with its performance.
      await checkDrift(state, api, { takeCompletion: false });
    }
  }
  // The last figures of a target group that just completed (one reading made once the phase was completed).
  if (state.status.phase === 'completed' && state.report.performance?.phase !== 'completed') await readPerformance(state, api);
  // Changes recorded without a reading (a control, a resume, drift, an event) reach the study's report now.
  else if (state.report.seq > state.report.sentSeq) await sendReport(state);
}

/**
 * The study's list now tells when this target group changes: the fallback check becomes a slow safety net, every
 * MAX_QUIET_MS, the first within that span at an offset by the workflow's id (10,000 target groups launched within
 * minutes do not all check at once).
 */
function slowFallback(state: TargetGroupState, workflowId: string): void {
  state.quietMs = MAX_QUIET_MS;
  state.nextReadAt = Math.max(state.nextReadAt, Date.now() + spreadMs(workflowId, MAX_QUIET_MS));
}

function recordEvent(state: TargetGroupState, event: WebhookEventSignal): void {
  const ev = state.status.events;
  ev.received += 1;
  ev.lastType = event.type;
  for (const session of event.sessions ?? []) {
    if (!TERMINAL_STATUSES.has(session.status)) continue;
    const firstTerminal = !session.respondent_last_date_change || session.respondent_last_date_change === session.respondent_update_date;
    const bucket = firstTerminal ? ev.sessionsByStatus : (ev.reconciled ??= {});
    bucket[session.status] = (bucket[session.status] ?? 0) + 1;
    if (!ev.lastSessionUpdate || session.respondent_update_date > ev.lastSessionUpdate) ev.lastSessionUpdate = session.respondent_update_date;
  }
  for (const change of event.changes ?? []) (ev.changes ??= []).push({ ...change, time: event.time });
  if (ev.changes && ev.changes.length > MAX_RECORDED_CHANGES) ev.changes.splice(0, ev.changes.length - MAX_RECORDED_CHANGES);
  if (event.changes?.length) {
    const objects = event.changes.map((c) => [c.object, c.supplier_id && `supplier ${c.supplier_id}`, c.allocation_group_id && `group ${c.allocation_group_id}`].filter(Boolean).join(' '));
    state.addChange('event', `${event.type}: ${objects.join(', ')}`);
  }
}

/**
 * Reads the target group and reports drift from the study file (never overwriting it) and a phase changed in
 * the API. A launched group's fields come from its details, which lack some draft fields (allocations, the
 * fielding window, …): only the fields the read carries are compared.
 */
async function checkDrift(state: TargetGroupState, api: Api, options: { takeCompletion?: boolean } = {}): Promise<void> {
  const { state: remote } = await api().readTargetGroupState({ ...state.base, reads: ['status', 'fields'] });
  const drift = fieldChanges(state.revision.desired.draft, remote.fields, remote.fieldsRead).map((c) => ({ field: c.field, expected: c.to, actual: c.from }));
  const found = eventOfRemote(remote.status);
  const event = found === 'found_completed' && options.takeCompletion === false ? eventOfRemote(state.status.phase) : found;
  const fields = (list: { field: string }[] | undefined) => (list ?? []).map((d) => d.field).join(', ');
  if (fields(drift) !== fields(state.status.drift)) {
    state.addChange('drift', drift.length ? `drift: ${drift.map((d) => `${d.field} is ${JSON.stringify(d.actual)} in the API, ${JSON.stringify(d.expected)} in the study file`).join('; ')}` : 'drift cleared');
  }
  if (drift.length !== (state.status.drift?.length ?? 0) || TRANSITIONS[event].phase !== state.status.phase) {
    state.enter(event, { drift: drift.length ? drift : undefined });
  } else {
    state.status.drift = drift.length ? drift : undefined;
  }
  noticeDrift(state);
}

/** Reads performance (best effort) and sends the study what is new for its report. */
async function readPerformance(state: TargetGroupState, api: Api): Promise<void> {
  let point: CompletesPoint | undefined;
  try {
    const { performance } = await api(`performance ${state.revision.desired.key}`, 'best_effort').getTargetGroupPerformance(state.base);
    const snapshot = performanceSnapshot(performance, new Date().toISOString(), state.status.phase);
    state.report.performance = snapshot;
    delete state.report.performanceError;
    point = { t: snapshot.readAt, completes: snapshot.completes };
    state.report.series = appendPoint(state.report.series, point);
  } catch (error) {
    if (isCancellation(error)) throw error;
    state.report.performanceError = failureOf(error).message;
  }
  if (point) await judgeGuards(state, api, 'performance');
  await sendReport(state, point);
}

/** Sends the study the report's news: the reading (when one was made) and the changes it was not sent yet. */
async function sendReport(state: TargetGroupState, point?: CompletesPoint): Promise<void> {
  const data = state.reportData();
  const changes = state.report.changes.filter((c) => c.seq > state.report.sentSeq);
  state.report.sentSeq = state.report.seq;
  try {
    await getExternalWorkflowHandle(state.input.studyWorkflowId).signal(targetGroupReportSignal, {
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
