import { condition, getExternalWorkflowHandle, isCancellation, log, workflowInfo } from '@temporalio/workflow';
import { fieldChanges } from '../../plan/compare';
import { TARGET_GROUP_UPDATED_EVENT } from '../../shared/api-profile';
import { RESPONDENT_STATUSES } from '../../shared/respondent-status';
import type { Api } from '../activity-proxies';
import { failureOf } from '../failures';
import type { CompletesPoint, FieldingControlRequest, WebhookEventSignal } from '../messages';
import { targetGroupReportSignal } from '../child-protocol';
import { appendPoint, performanceSnapshot } from '../report-data';
import { applyControl } from './controls';
import { noticeDrift } from './notifications';
import { judgeGuards } from './guards';
import { watchQuotas } from './quotas';
import { softLaunchTurn, softLaunchWakeAt } from './soft-launch';
import { eventOfRemote, TRANSITIONS } from '../phases';
import { nextWatchAction } from '../../plan/watch-timing';
import type { TargetGroupState } from './state';

/** Respondent statuses a session ends in (the spec's list). */
const TERMINAL_STATUSES: ReadonlySet<string> = new Set(RESPONDENT_STATUSES);
const MAX_RECORDED_CHANGES = 50;

/**
 * One turn of the watch: wait for a new revision, a control, a webhook event, the study's word that the target
 * group's figures changed (the study reads all its target groups' figures in one list call per watch interval:
 * workflows/study/watch.ts), a paced performance read that is due, or the fallback timer; then take the events,
 * apply the controls, and read performance and check drift as the watch's timing says (plan/watch-timing.ts
 * nextWatchAction: the pacing, the fallback timer and their reasons are there).
 */
export async function watchOnce(state: TargetGroupState, api: Api): Promise<void> {
  const context = () => ({ intervalMs: state.revision.desired.timing.watchIntervalMs, workflowId: workflowInfo().workflowId, phase: state.status.phase });
  const turn = nextWatchAction(state.pacing, { kind: 'turn' }, Date.now(), context());
  state.pacing = turn.pacing;
  // A soft launch wakes the watch at its end (or at once: a module to assign, an operator's decision): ./soft-launch.ts.
  const softWake = softLaunchWakeAt(state);
  const until = turn.action.kind === 'sleep' ? (softWake === undefined ? turn.action.until : Math.min(turn.action.until, softWake)) : 0;
  const wait = until - Date.now();
  if (wait > 0) {
    await condition(
      () => state.pendingRevision !== undefined || state.controls.length > 0 || state.events.length > 0 || state.figures !== undefined || state.softLaunchDecisions.length > 0,
      wait,
    );
  }
  // A change made in the exchange (its UI, another tool) is checked at once, not at the next reading.
  let targetGroupUpdated = false;
  if (state.events.length > 0) {
    while (state.events.length > 0) {
      const event = state.events.shift() as WebhookEventSignal;
      targetGroupUpdated ||= event.type === TARGET_GROUP_UPDATED_EVENT;
      recordEvent(state, event);
    }
    state.publish();
    await judgeGuards(state, api, 'sessions');
  }
  while (state.controls.length > 0) await applyControl(state, api, state.controls.shift() as FieldingControlRequest['action']);
  const figures = state.figures;
  state.figures = undefined;
  const woke = nextWatchAction(state.pacing, { kind: 'woke', ...(figures ? { figures } : {}), targetGroupUpdated }, Date.now(), context());
  state.pacing = woke.pacing;
  let performanceRead = false;
  if (woke.action.kind === 'read') {
    const { performance, drift } = woke.action;
    if (performance) await readPerformance(state, api);
    performanceRead = performance;
    // The reading may have changed the phase (a guard paused it): drift is checked while it is still watched.
    if (drift !== 'none' && state.watching) await checkDrift(state, api, { takeCompletion: drift === 'check' });
  }
  // A target group that just completed is judged once more on its last figures (its soft launch ends with it).
  if (state.watching || state.status.phase === 'completed') await softLaunchTurn(state, api, performanceRead || state.status.phase === 'completed');
  // The last figures of a target group that just completed (one reading made once the phase was completed).
  if (state.status.phase === 'completed' && state.report.performance?.phase !== 'completed') await readPerformance(state, api);
  // Changes recorded without a reading (a control, a resume, drift, an event) reach the study's report now.
  else if (state.report.seq > state.report.sentSeq) await sendReport(state);
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
async function checkDrift(state: TargetGroupState, api: Api, options: { takeCompletion: boolean }): Promise<void> {
  const { state: remote } = await api().readTargetGroupState({ ...state.base, reads: ['status', 'fields'] });
  const drift = fieldChanges(state.revision.desired.draft, remote.fields, remote.fieldsRead).map((c) => ({ field: c.field, expected: c.to, actual: c.from }));
  const found = eventOfRemote(remote.status);
  const event = found === 'found_completed' && !options.takeCompletion ? eventOfRemote(state.status.phase) : found;
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
  // The quotas after the reading, at most once per watch interval (./quotas.ts), so quota_behind judges them.
  if (point) await watchQuotas(state, api);
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
