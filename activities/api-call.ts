// The caller of one activity's API operations: the ctx's account, version and traceparent, the activity's
// cancellation, and its heartbeat as the operations' progress.
import { activityCancellationSignal, heartbeatProgress } from './activity-context';
import { apiCaller, type ApiCaller } from '../api/operations/caller';
import type { ActivityDeps } from './activity-deps';
import type { ActivityCtx } from './types';

export function activityCaller(deps: Pick<ActivityDeps, 'api'>, ctx: ActivityCtx): ApiCaller {
  return apiCaller(deps.api, {
    accountId: ctx.accountId,
    apiVersion: ctx.apiVersion,
    traceparent: ctx.traceparent,
    signal: activityCancellationSignal(),
    progress: heartbeatProgress,
  });
}
