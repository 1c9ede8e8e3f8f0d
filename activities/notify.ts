// sendNotification: one event to one `notify:` target, best effort. The workflow passes the NAME of the
// environment variable that holds the webhook URL; the URL is read here, from the worker's environment, at
// send time, so it never enters a workflow's input, history or result. Temporal retries the activity with a
// bounded policy (workflows/activity-proxies.ts); a key that was delivered is not sent again within its
// attempt chain (the attempt records it in its heartbeat details, and the worker keeps recent keys), and the
// receiver gets the key as Idempotency-Key for its own dedupe.
import { ApplicationFailure } from '@temporalio/common';
import { activityCancellationSignal, currentActivityContext, heartbeatProgress } from './activity-context';
import { invalidInputFailure } from '../api/http/errors';
import { isNotifyEventKind, type NotificationEvent } from '../shared/notify-events';
import { slackMessage } from '../notify/slack-message';
import { NotificationDeliveryError, notificationUrl, postNotification } from '../notify/webhook-post';

export interface SendNotificationInput {
  /** The environment variable (on the worker) holding the webhook URL: `SLACK_WEBHOOK_URL`. */
  envName: string;
  event: NotificationEvent;
  /** Identifies this notification: the same key is delivered once. */
  dedupeKey: string;
}

export interface SendNotificationResult {
  /** False when the key had been delivered already (nothing sent). */
  delivered: boolean;
  status?: number;
}

/** Failure types of sendNotification (the `type` of its ApplicationFailure). */
export const NotificationFailureType = {
  /** The environment variable is not set on the worker. */
  targetUnset: 'NotificationTargetUnset',
  /** Not a usable URL, a redirect, or a refusal: another attempt would fail the same way. */
  undeliverable: 'NotificationUndeliverable',
  /** A 5xx, 429, timeout or network error: Temporal retries. */
  deliveryFailed: 'NotificationDeliveryFailed',
} as const;

export interface CounterLike {
  inc(labels: Record<string, string>): void;
}

/** What the notification activity needs from the worker. */
export interface NotificationDeps {
  /** Where `${NAME}` targets are read at send time. Default `process.env`. */
  env?: Record<string, string | undefined>;
  /** Counters (telemetry/studyflow-metrics.ts has them). */
  metrics?: { notificationsSent: CounterLike; notificationsFailed: CounterLike; notificationsDeduplicated: CounterLike };
  /** Per-request timeout. Default 10 s. */
  timeoutMs?: number;
  /** Keys remembered as delivered in this process. Default 10,000 (the oldest forgotten first). */
  rememberKeys?: number;
}

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const ACTIVITY = 'sendNotification';

function checkInput(input: SendNotificationInput | undefined): SendNotificationInput {
  if (!input || typeof input !== 'object') throw invalidInputFailure(ACTIVITY, 'input is missing');
  if (typeof input.envName !== 'string' || !ENV_NAME.test(input.envName)) throw invalidInputFailure(ACTIVITY, 'envName must be an environment variable name');
  if (typeof input.dedupeKey !== 'string' || input.dedupeKey.trim() === '' || input.dedupeKey.length > 512) {
    throw invalidInputFailure(ACTIVITY, 'dedupeKey must be text of 1 to 512 characters');
  }
  const event = input.event as Partial<NotificationEvent> | undefined;
  if (!event || typeof event !== 'object' || !isNotifyEventKind(event.kind)) throw invalidInputFailure(ACTIVITY, 'event.kind is not a notification event');
  if (typeof event.studyId !== 'string' || event.studyId === '') throw invalidInputFailure(ACTIVITY, 'event.studyId is missing');
  return input;
}

/** Keys delivered lately, oldest first out. */
class DeliveredKeys {
  private readonly keys = new Set<string>();
  constructor(private readonly max: number) {}
  has(key: string): boolean {
    return this.keys.has(key);
  }
  add(key: string): void {
    this.keys.add(key);
    while (this.keys.size > this.max) this.keys.delete(this.keys.values().next().value as string);
  }
}

function deliveredInEarlierAttempt(dedupeKey: string): boolean {
  const details = currentActivityContext()?.info.heartbeatDetails as { delivered?: unknown } | undefined;
  return details?.delivered === dedupeKey;
}

export function notifyActivities(deps: { notifications?: NotificationDeps }) {
  const options = deps.notifications ?? {};
  const delivered = new DeliveredKeys(options.rememberKeys ?? 10_000);
  return {
    async sendNotification(raw: SendNotificationInput): Promise<SendNotificationResult> {
      const input = checkInput(raw);
      const kind = input.event.kind;
      if (delivered.has(input.dedupeKey) || deliveredInEarlierAttempt(input.dedupeKey)) {
        options.metrics?.notificationsDeduplicated.inc({ event: kind });
        return { delivered: false };
      }
      const env = options.env ?? process.env;
      const text = env[input.envName];
      if (text === undefined || text.trim() === '') {
        options.metrics?.notificationsFailed.inc({ event: kind, reason: 'target_unset' });
        throw ApplicationFailure.create({
          type: NotificationFailureType.targetUnset,
          message: `notification target ${input.envName} is not set on this worker: export it where the worker runs (docs/operations.md, "Notifications")`,
          nonRetryable: true,
        });
      }
      try {
        const { status } = await postNotification({
          url: notificationUrl(text.trim(), input.envName),
          envName: input.envName,
          body: slackMessage(input.event),
          dedupeKey: input.dedupeKey,
          timeoutMs: options.timeoutMs,
          signal: activityCancellationSignal(),
        });
        delivered.add(input.dedupeKey);
        heartbeatProgress({ delivered: input.dedupeKey });
        options.metrics?.notificationsSent.inc({ event: kind });
        return { delivered: true, status };
      } catch (error) {
        if (!(error instanceof NotificationDeliveryError)) throw error;
        options.metrics?.notificationsFailed.inc({ event: kind, reason: error.reason });
        throw ApplicationFailure.create({
          type: error.retryable ? NotificationFailureType.deliveryFailed : NotificationFailureType.undeliverable,
          message: error.message,
          nonRetryable: !error.retryable,
          details: [{ reason: error.reason, status: error.status ?? null }],
        });
      }
    },
  };
}
