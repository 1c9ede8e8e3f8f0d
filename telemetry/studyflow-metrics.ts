// studyflow's own metrics, by name: what the worker and the receiver count besides the Temporal SDK's.
import { MetricsRegistry, type Counter, type Gauge } from './metrics';

/** One request the Demand API client sent (a replay after a refused token is a request of its own). */
export interface ApiCallRecord {
  /** The reference's operation id (`get_target_group_performance`), or `other` when the call is none of the table's. */
  operation: string;
  /** HTTP status, or undefined when no answer came (timeout, connection refused). */
  status?: number;
  /** Why this request is a retry: a replay with a fresh token, or a later attempt of its activity. */
  retry?: 'token_replay' | 'activity_attempt';
}

export interface StudyflowMetrics {
  readonly registry: MetricsRegistry;
  readonly apiCalls: Counter;
  readonly apiRetries: Counter;
  readonly targetGroups: Gauge;
  readonly guardTrips: Counter;
  readonly notificationsSent: Counter;
  readonly notificationsFailed: Counter;
  readonly notificationsDeduplicated: Counter;
  /** Counts one API request. */
  recordApiCall(call: ApiCallRecord): void;
  /** Sets the target groups by phase (phases not named drop to no sample): worker/target-group-phases.ts counts them. */
  setTargetGroupPhases(counts: Record<string, number>): void;
}

/** The metrics of a studyflow process, defined in `registry` (a fresh one by default). */
export function createStudyflowMetrics(registry = new MetricsRegistry()): StudyflowMetrics {
  const apiCalls = registry.counter('studyflow_api_calls_total', 'Demand API requests sent, by operation and HTTP status (status "none": no answer).', ['operation', 'status']);
  const apiRetries = registry.counter(
    'studyflow_api_retries_total',
    'Demand API requests that repeat an earlier one: token_replay (a refused token renewed) or activity_attempt (a retried activity).',
    ['operation', 'reason'],
  );
  const targetGroups = registry.gauge(
    'studyflow_target_groups',
    "Running target-group workflows of this worker's task queue by phase (StudyflowPhase), as Temporal's visibility counts them.",
    ['phase'],
  );
  const guardTrips = registry.counter('studyflow_guard_trips_total', 'Guards that tripped and paused a target group, by guard kind.', ['guard']);
  const notificationsSent = registry.counter('studyflow_notifications_sent_total', 'Notifications a webhook accepted, by event.', ['event']);
  const notificationsFailed = registry.counter('studyflow_notifications_failed_total', 'Notification attempts that failed, by event and reason.', ['event', 'reason']);
  const notificationsDeduplicated = registry.counter(
    'studyflow_notifications_deduplicated_total',
    'Notifications not sent again because their dedupe key was already delivered, by event.',
    ['event'],
  );
  return {
    registry,
    apiCalls,
    apiRetries,
    targetGroups,
    guardTrips,
    notificationsSent,
    notificationsFailed,
    notificationsDeduplicated,
    recordApiCall(call) {
      apiCalls.inc({ operation: call.operation, status: call.status === undefined ? 'none' : String(call.status) });
      if (call.retry) apiRetries.inc({ operation: call.operation, reason: call.retry });
    },
    setTargetGroupPhases(counts) {
      targetGroups.replaceAll(Object.entries(counts).map(([phase, value]) => ({ labels: { phase }, value })));
    },
  };
}
