// The Demand API client's per-request hook, turned into studyflow_api_calls_total and studyflow_api_retries_total:
// the operation by the reference's id (a bounded label: never a path with ids in it) and the activity attempt.
import { currentActivityContext } from '../activities/activity-context';
import type { HttpMethod } from '../api/http/demand-api-client';
import type { ApiProfileName } from '../api/http/dialect';
import { wireOperationsFor } from '../api/wire/operations';
import type { StudyflowMetrics } from '../telemetry/studyflow-metrics';

interface Matcher {
  id: string;
  method: string;
  pattern: RegExp;
  /** Length of the template without its parameters: the more literal template wins (`…/launch` over `…/{id}`). */
  literal: number;
}

/** The operation id of a call, by method and path, from a table compiled once. */
export function operationMatcher(profile: ApiProfileName): (method: string, path: string) => string {
  const matchers: Matcher[] = Object.entries(wireOperationsFor(profile)).map(([id, op]) => ({
    id,
    method: op.method,
    pattern: new RegExp(`^/v1${op.path.replace(/\{[^}]+\}/g, '[^/]+')}$`),
    literal: op.path.replace(/\{[^}]+\}/g, '').length,
  }));
  return (method, path) => {
    const bare = path.split('?')[0];
    let best: Matcher | undefined;
    for (const m of matchers) {
      if (m.method === method && m.pattern.test(bare) && (!best || m.literal > best.literal)) best = m;
    }
    return best?.id ?? 'other';
  };
}

/** The client's `onRequestDone` for these metrics. */
export function apiCallObserver(metrics: StudyflowMetrics, profile: ApiProfileName) {
  const operationOf = operationMatcher(profile);
  return (done: { method: HttpMethod; path: string; status?: number; replay: boolean }): void => {
    const attempt = currentActivityContext()?.info.attempt ?? 1;
    const retry = done.replay ? 'token_replay' : attempt > 1 ? 'activity_attempt' : undefined;
    metrics.recordApiCall({ operation: operationOf(done.method, done.path), status: done.status, retry });
  };
}
