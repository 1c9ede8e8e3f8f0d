// The Demand API task queue and its downstream rate limit. No imports: safe to copy into workflow code.

/** Task queue of the Demand API activities; the worker sets `maxTaskQueueActivitiesPerSecond` on it. */
export const API_TASK_QUEUE = 'studyflow-api';

/** Default downstream rate limit: activities started per second across all workers of {@link API_TASK_QUEUE}. */
export const DEFAULT_API_ACTIVITIES_PER_SECOND = 20;
