// Raising a notification from a workflow: one sendNotification activity per `notify:` target that listens
// for the event's kind. It is best effort: the returned promise never rejects (a failed notification is an
// outcome, not an error), so awaiting it or not never changes the lifecycle. The targets carry the NAME of
// the environment variable with the URL; the worker reads the URL when it sends.
//
// The step that sees the event calls it (a target group's: workflows/target-group/notifications.ts, with the
// targets its revision carries). A workflow about to complete or continue as new awaits the promises of its
// notifications still in flight (bounded by the activity's retry policy), or the event may not be sent.
import { workflowInfo } from '@temporalio/workflow';
import type { NotificationEvent, NotifyTarget } from '../shared/notify-events';
import { notificationActivities } from './activity-proxies';

export interface NotifyOutcome {
  envName: string;
  /** `sent`: delivered now; `duplicate`: delivered before under the same key; `failed`: given up on. */
  outcome: 'sent' | 'duplicate' | 'failed';
  /** The failure's message (names the variable and the host, never the URL). */
  reason?: string;
}

/**
 * The dedupe key of an event for a target: the workflow (its id, and the first run of its chain, which stays the
 * same across continue-as-new but not for a new workflow under the same id, e.g. a relaunched target group's),
 * the event, what it is about, and `occurrence` (a count or revision that tells a second, real occurrence from
 * a retry of the first).
 */
export function notificationKey(event: NotificationEvent, envName: string, occurrence: string | number): string {
  const info = workflowInfo();
  return [info.workflowId, info.firstExecutionRunId, event.kind, event.targetGroup ?? '-', String(occurrence), envName].join(':');
}

/** Sends `event` to every target listening for its kind; resolves with one outcome per target, never rejects. */
export function notify(targets: readonly NotifyTarget[] | undefined, event: NotificationEvent, occurrence: string | number = event.at): Promise<NotifyOutcome[]> {
  const listening = (targets ?? []).filter((t) => t.events.includes(event.kind));
  return Promise.all(
    listening.map(async (target): Promise<NotifyOutcome> => {
      const activity = notificationActivities(`notify ${event.kind} → ${target.envName}`);
      try {
        const result = await activity.sendNotification({ envName: target.envName, event, dedupeKey: notificationKey(event, target.envName, occurrence) });
        return { envName: target.envName, outcome: result.delivered ? 'sent' : 'duplicate' };
      } catch (error) {
        const cause = (error as { cause?: { message?: string } }).cause;
        return { envName: target.envName, outcome: 'failed', reason: cause?.message ?? (error instanceof Error ? error.message : String(error)) };
      }
    }),
  );
}
