import proto from '@temporalio/proto';
import { describe, expect, it } from 'vitest';
import { activityCycles, startedAtMs, timeBreakdown, timedEvents, timerLateness, workflowTaskTimeouts } from '../../bench/history-timing';
import { PROGRESS_PACING_SUMMARY } from '../../workflows/target-group-workflow';

const E = proto.temporal.api.enums.v1.EventType;
/**
 * A history built from (type, ms since 1000 s, attributes) rows; ids count from 1. Plain numbers
 * stand in for the Longs the client decodes (timedEvents reads both).
 */
function history(rows: [number, number, Record<string, unknown>?][]): proto.temporal.api.history.v1.IHistory {
  return {
    events: rows.map(([type, ms, attrs], i) => ({
      eventId: i + 1,
      eventType: type,
      eventTime: { seconds: 1000 + Math.floor(ms / 1000), nanos: (ms % 1000) * 1e6 },
      ...attrs,
    })),
  } as unknown as proto.temporal.api.history.v1.IHistory;
}

// A workflow that signals its parent, runs one activity, waits on a 100 ms timer, runs another.
const events = timedEvents(
  history([
    [E.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED, 0],
    [E.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED, 0],
    [E.EVENT_TYPE_WORKFLOW_TASK_STARTED, 10, { workflowTaskStartedEventAttributes: { scheduledEventId: 2 } }],
    [E.EVENT_TYPE_WORKFLOW_TASK_COMPLETED, 30, { workflowTaskCompletedEventAttributes: { scheduledEventId: 2, startedEventId: 3 } }],
    [E.EVENT_TYPE_SIGNAL_EXTERNAL_WORKFLOW_EXECUTION_INITIATED, 30],
    [E.EVENT_TYPE_EXTERNAL_WORKFLOW_EXECUTION_SIGNALED, 230, { externalWorkflowExecutionSignaledEventAttributes: { initiatedEventId: 5 } }],
    [E.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED, 250],
    [E.EVENT_TYPE_ACTIVITY_TASK_STARTED, 270, { activityTaskStartedEventAttributes: { scheduledEventId: 7 } }],
    [E.EVENT_TYPE_ACTIVITY_TASK_COMPLETED, 330, { activityTaskCompletedEventAttributes: { scheduledEventId: 7, startedEventId: 8 } }],
    [E.EVENT_TYPE_TIMER_STARTED, 350, { timerStartedEventAttributes: { timerId: '1', startToFireTimeout: { seconds: 0, nanos: 100e6 } } }],
    [E.EVENT_TYPE_TIMER_FIRED, 1350, { timerFiredEventAttributes: { timerId: '1', startedEventId: 10 } }],
    [E.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED, 1400],
    [E.EVENT_TYPE_ACTIVITY_TASK_STARTED, 1405, { activityTaskStartedEventAttributes: { scheduledEventId: 12 } }],
    [E.EVENT_TYPE_ACTIVITY_TASK_COMPLETED, 1460, { activityTaskCompletedEventAttributes: { scheduledEventId: 12, startedEventId: 13 } }],
  ]),
);

describe('timedEvents', () => {
  it('reads times with sub-second precision and the ids an event closes', () => {
    expect(events[7]).toEqual({ eventId: 8, type: E.EVENT_TYPE_ACTIVITY_TASK_STARTED, timeMs: 1_000_270, scheduledEventId: 7 });
    expect(events[9].timerMs).toBe(100);
    expect(startedAtMs(events)).toBe(1_000_000);
  });
});

describe('timeBreakdown', () => {
  it('sums each kind of span', () => {
    expect(timeBreakdown(events)).toEqual({
      activityDispatchMs: 20 + 5,
      activityRunMs: 60 + 55,
      workflowTaskMs: 30,
      signalWaitMs: 200,
      timerMs: 1000,
      activities: 2,
      signals: 1,
      timers: 1,
      workflowTasks: 1,
    });
  });

  it('leaves out the timer that paces progress signals (it runs beside the work), known by its summary', () => {
    const summary = { metadata: { encoding: Buffer.from('json/plain') }, data: Buffer.from(JSON.stringify(PROGRESS_PACING_SUMMARY)) };
    const paced = timedEvents(
      history([
        [E.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED, 0],
        [E.EVENT_TYPE_TIMER_STARTED, 10, { timerStartedEventAttributes: { timerId: '1', startToFireTimeout: { seconds: 1, nanos: 0 } }, userMetadata: { summary } }],
        [E.EVENT_TYPE_TIMER_STARTED, 20, { timerStartedEventAttributes: { timerId: '2', startToFireTimeout: { seconds: 0, nanos: 200e6 } } }],
        [E.EVENT_TYPE_TIMER_FIRED, 220, { timerFiredEventAttributes: { timerId: '2', startedEventId: 3 } }],
        [E.EVENT_TYPE_TIMER_FIRED, 1010, { timerFiredEventAttributes: { timerId: '1', startedEventId: 2 } }],
      ]),
    );
    expect(paced[1].summary).toBe(PROGRESS_PACING_SUMMARY);
    expect(timeBreakdown(paced)).toMatchObject({ timerMs: 200, timers: 1 });
  });

  it('counts only spans that opened before the cut-off', () => {
    const until = timeBreakdown(events, 1_000_000 + 1000);
    expect(until.activities).toBe(1);
    expect(until.activityRunMs).toBe(60);
    expect(until.timerMs).toBe(1000);
  });
});

describe('activity cycles and timer lateness', () => {
  it('measures scheduled to next scheduled, split into dispatch, run and decide', () => {
    expect(activityCycles(events)).toEqual([{ dispatchMs: 20, runMs: 60, decideMs: 1070, cycleMs: 1150 }]);
  });

  it('is how much later than requested each timer fired', () => {
    expect(timerLateness(events)).toEqual([900]);
  });
});

describe('workflowTaskTimeouts', () => {
  it('counts workflow task timeouts by kind', () => {
    const timedOut = timedEvents(
      history([
        [E.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED, 0],
        [E.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED, 0],
        [E.EVENT_TYPE_WORKFLOW_TASK_TIMED_OUT, 10_000, { workflowTaskTimedOutEventAttributes: { scheduledEventId: 2, timeoutType: proto.temporal.api.enums.v1.TimeoutType.TIMEOUT_TYPE_SCHEDULE_TO_START } }],
        [E.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED, 10_000],
        [E.EVENT_TYPE_WORKFLOW_TASK_STARTED, 10_001, { workflowTaskStartedEventAttributes: { scheduledEventId: 4 } }],
        [E.EVENT_TYPE_WORKFLOW_TASK_TIMED_OUT, 20_001, { workflowTaskTimedOutEventAttributes: { scheduledEventId: 4, startedEventId: 5, timeoutType: proto.temporal.api.enums.v1.TimeoutType.TIMEOUT_TYPE_START_TO_CLOSE } }],
      ]),
    );
    expect(workflowTaskTimeouts(timedOut)).toEqual({ scheduleToStart: 1, startToClose: 1 });
    expect(workflowTaskTimeouts(events)).toEqual({ scheduleToStart: 0, startToClose: 0 });
  });
});
