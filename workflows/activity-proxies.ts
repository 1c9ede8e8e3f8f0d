import { proxyActivities } from '@temporalio/workflow';
import type { StudyflowActivities } from '../activities';

/** The task queue of activities that call the Demand API; its rate limit protects the API quota. */
export const API_TASK_QUEUE = 'studyflow-api';

/**
 * Demand API activities. They classify errors themselves: retryable ones (429 with Retry-After,
 * 5xx, network, a running job) retry here with backoff; 400/404/422 are non-retryable failures.
 */
export const api = proxyActivities<StudyflowActivities>({
  taskQueue: API_TASK_QUEUE,
  startToCloseTimeout: '2 minutes',
  heartbeatTimeout: '1 minute',
  retry: {
    initialInterval: '500 ms',
    backoffCoefficient: 2,
    maximumInterval: '30 seconds',
    maximumAttempts: 12,
  },
});
