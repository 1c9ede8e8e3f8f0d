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
 * `summary` is the one-line label the Temporal UI shows on the activity.
 */
export function apiActivities(summary?: string): WorkflowActivities {
  return proxyActivities<WorkflowActivities>({
    taskQueue: apiTaskQueueOf(workflowInfo().taskQueue),
    ...(summary ? { summary } : {}),
    startToCloseTimeout: '2 minutes',
    heartbeatTimeout: '1 minute',
    retry: {
      initialInterval: '500 ms',
      backoffCoefficient: 2,
      maximumInterval: '30 seconds',
      maximumAttempts: 12,
    },
  });
}
