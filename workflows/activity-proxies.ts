import { proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { StudyflowActivities } from '../activities';
import type { observeStudyActivities } from '../activities/observe-study';

/** Every activity the workflows call. */
export type WorkflowActivities = StudyflowActivities & ReturnType<typeof observeStudyActivities>;

/** How an activity is called: one HTTP exchange, long work that heartbeats, or a read the workflow can do without. */
export type ActivityKind = 'call' | 'long' | 'best_effort';

/** The activities a workflow step is given: `api(summary, kind)` is the proxy for one call. */
export type Api = (summary?: string, kind?: ActivityKind) => WorkflowActivities;

/** The task queue of the Demand API activities that belong to a workflow task queue. */
export function apiTaskQueueOf(workflowTaskQueue: string): string {
  return `${workflowTaskQueue}-api`;
}

/**
 * Demand API activities, on the API task queue that belongs to this workflow's queue (its rate
 * limit protects the API quota). They classify errors themselves: retryable ones (429 with
 * Retry-After, 5xx, network, a running job) retry here with backoff; 400/404/422 are final.
 * `summary` is the one-line label the Temporal UI shows on the activity; `long` is for activities that
 * heartbeat (uploads, observing a study's lists); `best_effort` is for reads the workflow can do
 * without (report figures): three attempts, so a failing endpoint does not hold up the watch loop.
 */
export function apiActivities(summary?: string, kind: ActivityKind = 'call'): WorkflowActivities {
  if (kind === 'best_effort') {
    return proxyActivities<WorkflowActivities>({
      taskQueue: apiTaskQueueOf(workflowInfo().taskQueue),
      ...(summary ? { summary } : {}),
      startToCloseTimeout: '30 seconds',
      retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '10 seconds', maximumAttempts: 3 },
    });
  }
  return proxyActivities<WorkflowActivities>({
    taskQueue: apiTaskQueueOf(workflowInfo().taskQueue),
    ...(summary ? { summary } : {}),
    // One HTTP exchange per attempt: a lost worker is noticed after 30 s. Long work (streamed
    // uploads, reading every page of a list) heartbeats instead and may run for minutes.
    ...(kind === 'call'
      ? { startToCloseTimeout: '30 seconds' }
      : { startToCloseTimeout: '15 minutes', heartbeatTimeout: '20 seconds' }),
    retry: {
      initialInterval: '500 ms',
      backoffCoefficient: 2,
      maximumInterval: '30 seconds',
      maximumAttempts: 12,
    },
  });
}

/**
 * The notification activity (best effort, never in the lifecycle's way): on the API task queue, where the
 * worker's activities are registered; five attempts over about a minute, and none for a failure that would
 * repeat (an unset target, a refused or redirected URL: the activity marks those non-retryable).
 */
export function notificationActivities(summary?: string): Pick<WorkflowActivities, 'sendNotification'> {
  return proxyActivities<WorkflowActivities>({
    taskQueue: apiTaskQueueOf(workflowInfo().taskQueue),
    ...(summary ? { summary } : {}),
    startToCloseTimeout: '30 seconds',
    retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '30 seconds', maximumAttempts: 5 },
  });
}
