// Timings read from a workflow history: the server stamps every event, so the gaps between events
// show where a workflow's time goes without instrumenting the workflow.
import proto from '@temporalio/proto';
import { PROGRESS_PACING_SUMMARY } from '../workflows/target-group-workflow';

// @temporalio/proto is CommonJS: Node's ESM loader exposes it as a default export only.
const EventType = proto.temporal.api.enums.v1.EventType;
const TimeoutType = proto.temporal.api.enums.v1.TimeoutType;
type History = proto.temporal.api.history.v1.IHistory;

export interface TimedEvent {
  eventId: number;
  type: number;
  /** Server time of the event in ms since the epoch (sub-ms precision kept). */
  timeMs: number;
  /** For TimerStarted: the requested duration in ms. */
  timerMs?: number;
  /** For TimerStarted: the timer's summary, when the workflow gave one. */
  summary?: string;
  /** The events this one closes (activity and workflow task ends, timer fired, external signal done). */
  scheduledEventId?: number;
  startedEventId?: number;
  initiatedEventId?: number;
  /** For WorkflowTaskTimedOut: which timeout (1 start-to-close, 2 schedule-to-start). */
  timeoutType?: number;
}

interface RawTimestamp {
  seconds?: number | { toNumber(): number } | null;
  nanos?: number | null;
}

function timestampMs(t: RawTimestamp | null | undefined): number {
  if (!t) return NaN;
  const seconds = typeof t.seconds === 'number' ? t.seconds : (t.seconds?.toNumber() ?? 0);
  return seconds * 1000 + (t.nanos ?? 0) / 1e6;
}

type RawId = number | { toNumber(): number } | null | undefined;

function idOf(value: RawId): number | undefined {
  if (value === null || value === undefined) return undefined;
  const id = typeof value === 'number' ? value : value.toNumber();
  return id > 0 ? id : undefined;
}

/** The events of a fetched history (`handle.fetchHistory()`) with their times. */
export function timedEvents(history: History): TimedEvent[] {
  return (history.events ?? []).map((e) => {
    const timer = e.timerStartedEventAttributes?.startToFireTimeout as RawTimestamp | undefined;
    const refs = (e.activityTaskStartedEventAttributes ??
      e.activityTaskCompletedEventAttributes ??
      e.workflowTaskStartedEventAttributes ??
      e.workflowTaskCompletedEventAttributes ??
      e.timerFiredEventAttributes ??
      e.externalWorkflowExecutionSignaledEventAttributes ??
      {}) as { scheduledEventId?: RawId; startedEventId?: RawId; initiatedEventId?: RawId };
    const event: TimedEvent = {
      eventId: Number(e.eventId ?? 0),
      type: Number(e.eventType ?? 0),
      timeMs: timestampMs(e.eventTime as RawTimestamp),
    };
    if (timer) event.timerMs = timestampMs(timer);
    const summary = e.timerStartedEventAttributes ? e.userMetadata?.summary?.data : undefined;
    if (summary && summary.length > 0) event.summary = String(JSON.parse(Buffer.from(summary).toString('utf8')));
    const timedOut = e.workflowTaskTimedOutEventAttributes;
    if (timedOut) event.timeoutType = Number(timedOut.timeoutType ?? 0);
    const scheduled = idOf(refs.scheduledEventId);
    const started = idOf(refs.startedEventId);
    const initiated = idOf(refs.initiatedEventId);
    if (scheduled !== undefined) event.scheduledEventId = scheduled;
    if (started !== undefined) event.startedEventId = started;
    if (initiated !== undefined) event.initiatedEventId = initiated;
    return event;
  });
}

/** Where a workflow's time went, in ms summed over its spans (spans of one kind may overlap in a parallel workflow). */
export interface TimeBreakdown {
  /** Activity tasks waiting to be picked up by a worker. */
  activityDispatchMs: number;
  /** Activities running (for a Demand API activity: the HTTP call plus the SDK's bookkeeping). */
  activityRunMs: number;
  /** Workflow tasks from scheduled to completed (waiting for a worker, running the workflow code, the server recording the result). */
  workflowTaskMs: number;
  /** Signals sent to another workflow, from initiated until the server confirmed delivery. */
  signalWaitMs: number;
  /** Durable timers from started to fired. */
  timerMs: number;
  activities: number;
  signals: number;
  timers: number;
  workflowTasks: number;
}

/** The breakdown of the spans that opened before `untilMs` (default: all). */
export function timeBreakdown(events: readonly TimedEvent[], untilMs = Infinity): TimeBreakdown {
  const byId = new Map(events.map((e) => [e.eventId, e]));
  const out: TimeBreakdown = { activityDispatchMs: 0, activityRunMs: 0, workflowTaskMs: 0, signalWaitMs: 0, timerMs: 0, activities: 0, signals: 0, timers: 0, workflowTasks: 0 };
  const span = (close: TimedEvent, openId: number | undefined): number | undefined => {
    const open = openId === undefined ? undefined : byId.get(openId);
    return open && open.timeMs < untilMs ? close.timeMs - open.timeMs : undefined;
  };
  for (const e of events) {
    switch (e.type) {
      case EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED: {
        const ms = span(e, e.scheduledEventId);
        if (ms !== undefined) {
          out.activityDispatchMs += ms;
          out.activities += 1;
        }
        break;
      }
      case EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED:
        out.activityRunMs += span(e, e.startedEventId) ?? 0;
        break;
      case EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED: {
        const ms = span(e, e.scheduledEventId);
        if (ms !== undefined) {
          out.workflowTaskMs += ms;
          out.workflowTasks += 1;
        }
        break;
      }
      case EventType.EVENT_TYPE_EXTERNAL_WORKFLOW_EXECUTION_SIGNALED: {
        const ms = span(e, e.initiatedEventId);
        if (ms !== undefined) {
          out.signalWaitMs += ms;
          out.signals += 1;
        }
        break;
      }
      case EventType.EVENT_TYPE_TIMER_FIRED: {
        // The timer that paces progress signals runs beside the target group's work, not on its path.
        if (e.startedEventId !== undefined && byId.get(e.startedEventId)?.summary === PROGRESS_PACING_SUMMARY) break;
        const ms = span(e, e.startedEventId);
        if (ms !== undefined) {
          out.timerMs += ms;
          out.timers += 1;
        }
        break;
      }
      default:
        break;
    }
  }
  return out;
}

/** Workflow tasks that timed out: a worker did not pick one up (schedule-to-start) or did not finish it in time (start-to-close). */
export function workflowTaskTimeouts(events: readonly TimedEvent[]): { scheduleToStart: number; startToClose: number } {
  const timeouts = events.filter((e) => e.type === EventType.EVENT_TYPE_WORKFLOW_TASK_TIMED_OUT);
  return {
    scheduleToStart: timeouts.filter((e) => e.timeoutType === TimeoutType.TIMEOUT_TYPE_SCHEDULE_TO_START).length,
    startToClose: timeouts.filter((e) => e.timeoutType === TimeoutType.TIMEOUT_TYPE_START_TO_CLOSE).length,
  };
}

/** When the workflow execution started (its first event), in ms since the epoch. */
export function startedAtMs(events: readonly TimedEvent[]): number {
  const first = events.find((e) => e.type === EventType.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED);
  if (!first) throw new Error('the history has no WorkflowExecutionStarted event');
  return first.timeMs;
}

/** Ids of the event types the benchmarks count. */
export const EVENT_TYPES = {
  activityScheduled: EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED,
  signalInitiated: EventType.EVENT_TYPE_SIGNAL_EXTERNAL_WORKFLOW_EXECUTION_INITIATED,
  childStarted: EventType.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_STARTED,
} as const;

/** Per activity of a sequential workflow: schedule to start, start to completion, completion to the next schedule. */
export interface ActivityCycle {
  /** ActivityTaskScheduled -> ActivityTaskStarted: the task waiting to be picked up. */
  dispatchMs: number;
  /** ActivityTaskStarted -> ActivityTaskCompleted: running it and reporting the result. */
  runMs: number;
  /** ActivityTaskCompleted -> the next ActivityTaskScheduled: a workflow task to decide the next step. */
  decideMs: number;
  /** Scheduled -> next scheduled: the whole cost of one step. */
  cycleMs: number;
}

/**
 * The cycle of every activity but the last in a workflow that runs activities strictly one after
 * another. Events of other kinds between them are ignored.
 */
export function activityCycles(events: readonly TimedEvent[]): ActivityCycle[] {
  const scheduled = events.filter((e) => e.type === EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED);
  const started = events.filter((e) => e.type === EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED);
  const completed = events.filter((e) => e.type === EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED);
  const cycles: ActivityCycle[] = [];
  for (let i = 0; i + 1 < scheduled.length && i < started.length && i < completed.length; i += 1) {
    cycles.push({
      dispatchMs: started[i].timeMs - scheduled[i].timeMs,
      runMs: completed[i].timeMs - started[i].timeMs,
      decideMs: scheduled[i + 1].timeMs - completed[i].timeMs,
      cycleMs: scheduled[i + 1].timeMs - scheduled[i].timeMs,
    });
  }
  return cycles;
}

/** How late each timer fired: TimerFired - TimerStarted - requested duration, in ms. */
export function timerLateness(events: readonly TimedEvent[]): number[] {
  const started = events.filter((e) => e.type === EventType.EVENT_TYPE_TIMER_STARTED);
  const fired = events.filter((e) => e.type === EventType.EVENT_TYPE_TIMER_FIRED);
  return started.slice(0, fired.length).map((s, i) => fired[i].timeMs - s.timeMs - (s.timerMs ?? 0));
}
