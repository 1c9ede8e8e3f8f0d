// Temporal's activity context when there is one (heartbeats, cancellation), and a quiet no-op outside Temporal.
import { setMaxListeners } from 'node:events';
import { Context } from '@temporalio/activity';

/** The running activity's Context, or undefined when called outside a Temporal worker (tests, scripts). */
export function currentActivityContext(): Context | undefined {
  try {
    return Context.current();
  } catch {
    return undefined;
  }
}

/**
 * Listeners the calls of one activity may hold on its cancellation signal at once: every HTTP call and
 * every poll wait adds one while it runs, and a batch activity runs 50 target groups' calls side by
 * side (Node warns of a leak past 10).
 */
export const CANCELLATION_LISTENERS_MAX = 500;
const widened = new WeakSet<AbortSignal>();

/** Aborts when Temporal cancels the running activity; undefined outside Temporal. */
export function activityCancellationSignal(): AbortSignal | undefined {
  const signal = currentActivityContext()?.cancellationSignal;
  if (signal && !widened.has(signal)) {
    setMaxListeners(CANCELLATION_LISTENERS_MAX, signal);
    widened.add(signal);
  }
  return signal;
}

/** Records progress for Temporal (the SDK throttles the actual heartbeats); no-op outside Temporal. */
export function heartbeatProgress(details: Record<string, unknown>): void {
  const ctx = currentActivityContext();
  if (!ctx) return;
  try {
    ctx.heartbeat(details);
  } catch {
    // MockActivityEnvironment and local activities may refuse heartbeats; progress is best effort.
  }
}

/** Heartbeats while the activity works (its heartbeat timeout is 20 s; a poll delay may be longer). */
const HEARTBEAT_EVERY_MS = 5_000;

export async function withHeartbeats<T>(details: () => Record<string, unknown>, work: () => Promise<T>): Promise<T> {
  heartbeatProgress(details());
  const beat = setInterval(() => heartbeatProgress(details()), HEARTBEAT_EVERY_MS);
  try {
    return await work();
  } finally {
    clearInterval(beat);
  }
}
