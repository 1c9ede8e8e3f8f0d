import { proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { StudyflowActivities } from '../activities';
import type { observeStudyActivities } from '../activities/observe-study';

/** Every activity the workflows call. */
export type WorkflowActivities = StudyflowActivities & ReturnType<typeof observeStudyActivities>;

/** The task queue of the Demand API activities that belong to a workflow task queue. */
export function apiTaskQueueOf(workflowTaskQueue: string): string {
  return `${workflowTaskQueue}-api`;
}

/**
 * Demand API activities, on the API task queue that belongs to this workflow's queue (its rate
 * limit protects the API quota). They classify errors themselves: retryable ones (429 with
 * Retry-After, 5xx, network, a running job) retry here with backoff; 400/404/422 are final.
 * `summary` is the one-line label the Temporal UI shows on the activity; `long` is for activities that
 * heartbeat (uploads, observing a study's lists).
 */
export function apiActivities(summary?: string, kind: 'call' | 'long' = 'call'): WorkflowActivities {
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
