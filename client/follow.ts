// Following submitted revisions until they settle, as a stream of events a view renders: the studies'
// statuses as they change, Temporal going away and coming back, and at the end what became of each study.
// Each study's revision is awaited with one update that the workflow completes when the revision settles;
// the status is asked for only to show progress (once a second), never to find out that it is done. While
// Temporal is unreachable (a restart, a network cut) the wait goes on, up to the timeout, and says so;
// stopping then names the cause. The exit-code policy of apply is here too (applyExitCode).
import { revisionOutcome, type StudyStatus } from '../workflows/messages';
import { StudyClientError } from './errors';
import { gateBlockedOf } from './study-outcome';
import { awaitRevision, describeTemporalError, isTemporalUnreachable, queryStatus } from './study-runs';
import type { TemporalSession } from './temporal-session';
import { mark } from './timeline';

/** How often the statuses are asked for while the revisions run (when progress is wanted). */
const PROGRESS_INTERVAL_MS = 1000;
/** How long one status query for progress may take (Temporal unreachable: it fails then, and the wait goes on). */
const QUERY_DEADLINE_MS = 2000;

/** A revision Temporal accepted: the study's file, its workflow and the revision to follow. */
export interface Submitted {
  file: string;
  workflowId: string;
  revision: string;
}

/** What became of a followed revision. */
export type FollowOutcome = 'running' | 'settled' | 'superseded' | 'detached' | 'timeout';

export interface Followed extends Submitted {
  status?: StudyStatus;
  outcome: FollowOutcome;
}

export type FollowEvent =
  /** The statuses changed (a study settled, or a progress tick read them). */
  | { type: 'progress'; studies: { name: string; status?: StudyStatus }[] }
  /** Temporal stopped answering; the wait goes on. */
  | { type: 'unreachable'; address: string; cause: string }
  /** Temporal answers again after `downS` seconds. */
  | { type: 'reachable'; address: string; downS: number }
  /** The end: every study's outcome, and the outage that stopped the wait, if one did. */
  | { type: 'finished'; studies: Followed[]; outage?: string };

export interface FollowOptions {
  timeoutMs: number;
  /** Resolves when the user detaches (Ctrl-C): the studies go on. */
  detach?: Promise<unknown>;
  /** Read the statuses once a second and report Temporal outages as they happen (off for machine output). */
  progress: boolean;
}

/** Whether Temporal answers, as the waiting sees it: since when it has not, and the last error that said so. */
interface Reachability {
  unreachableSince?: number;
  cause?: string;
}

/** Follows `submitted` revisions until each settles, the timeout passes or `detach` resolves. */
export async function* followRevisions(temporal: TemporalSession, submitted: Submitted[], options: FollowOptions): AsyncGenerator<FollowEvent, void> {
  const client = await temporal.client();
  const address = temporal.settings.address;
  const followed: Followed[] = submitted.map((s) => ({ ...s, outcome: 'running' }));
  const queue: FollowEvent[] = [];
  let wake: () => void = () => undefined;
  const emit = (event: FollowEvent) => {
    queue.push(event);
    wake();
  };
  const snapshot = () => followed.map((f) => ({ name: f.file, status: f.status }));

  const temporalState: Reachability = {};
  const unreachable = (error: unknown, sinceMs = Date.now(), announce = true) => {
    const first = temporalState.unreachableSince === undefined;
    temporalState.unreachableSince ??= sinceMs;
    temporalState.cause = describeTemporalError(error);
    if (first && announce && options.progress) emit({ type: 'unreachable', address, cause: temporalState.cause });
  };
  const reachable = (announce = true) => {
    if (temporalState.unreachableSince === undefined) return;
    const downS = Math.round((Date.now() - temporalState.unreachableSince) / 1000);
    temporalState.unreachableSince = undefined;
    temporalState.cause = undefined;
    if (announce && options.progress) emit({ type: 'reachable', address, downS });
  };

  const waiting = new AbortController();
  const settled = Promise.all(
    followed.map(async (f) => {
      const status = await awaitRevision(client, f.workflowId, f.revision, {
        signal: waiting.signal,
        onUnreachable: (error, since) => unreachable(error, since),
        onReachable: () => reachable(),
      });
      f.status = status;
      f.outcome = revisionOutcome(status, f.revision);
      mark('settled');
      if (options.progress) emit({ type: 'progress', studies: snapshot() });
    }),
  );
  // Stopping (timeout, detach) aborts the waiting updates; their rejection is expected then.
  settled.catch(() => undefined);
  const refresh = async () => {
    await Promise.all(
      followed
        .filter((f) => f.outcome === 'running')
        .map(async (f) => {
          try {
            const status = await client.withDeadline(Date.now() + QUERY_DEADLINE_MS, () => queryStatus(client, f.workflowId));
            reachable();
            // The update may have brought the final status meanwhile; a query's answer never replaces it.
            if (f.outcome === 'running') f.status = status;
          } catch (error) {
            if (isTemporalUnreachable(error)) unreachable(error);
          }
        }),
    );
  };

  let stopped: 'detached' | 'timeout' | undefined;
  const timedOut = sleep(options.timeoutMs).then(() => 'timeout' as const);
  const detached = (options.detach ?? new Promise<never>(() => undefined)).then(() => 'detached' as const);
  try {
    while (!stopped && followed.some((f) => f.outcome === 'running')) {
      const tick = options.progress ? sleep(PROGRESS_INTERVAL_MS).then(() => 'tick' as const) : new Promise<never>(() => undefined);
      const woken = new Promise<'event'>((resolve) => (wake = () => resolve('event')));
      if (queue.length) wake();
      const next = await Promise.race([settled.then(() => 'settled' as const), timedOut, detached, tick, woken]);
      if (next === 'timeout' || next === 'detached') stopped = next;
      else if (next === 'tick') {
        await refresh();
        if (followed.some((f) => f.outcome === 'running')) emit({ type: 'progress', studies: snapshot() });
      }
      yield* queue.splice(0);
    }
  } catch (error) {
    // Temporal answered with a refusal (not an outage): say what it was, with its cause.
    throw new StudyClientError(`waiting for the revision to settle failed: ${describeTemporalError(error)}`);
  } finally {
    waiting.abort(new Error('stopped waiting'));
  }
  yield* queue.splice(0);
  if (stopped) {
    await refresh();
    for (const f of followed) if (f.outcome === 'running') f.outcome = stopped;
    // Whether Temporal answers now, asked directly: a query that timed out does not tell an outage from a busy worker.
    const connection = await temporal.connection();
    await connection
      .withDeadline(Date.now() + QUERY_DEADLINE_MS, () => connection.workflowService.getSystemInfo({}))
      .then(
        () => reachable(false),
        (error: unknown) => unreachable(error, Date.now(), false),
      );
  }
  const downS = temporalState.unreachableSince === undefined ? 0 : Math.round((Date.now() - temporalState.unreachableSince) / 1000);
  const outage =
    stopped && temporalState.unreachableSince !== undefined
      ? `Temporal unreachable at ${address}${downS >= 1 ? ` for the last ${downS} s` : ''}: ${temporalState.cause}`
      : undefined;
  yield { type: 'finished', studies: followed, ...(outage ? { outage } : {}) };
}

/** The target groups of a followed study short of live (or completed). */
export function notLiveOf(status: StudyStatus | undefined) {
  return Object.values(status?.targetGroups ?? {}).filter((t) => t.phase !== 'live' && t.phase !== 'completed');
}

/** Apply's exit codes besides 0 (docs/cli.md): a failure, and a revision applied with changes it did not make. */
export const APPLY_EXIT = { ok: 0, failed: 1, unapplied: 4, stalePlan: 5 } as const;

/** The changes a settled study did not make (blocked, refused by a gate, failed), each naming its field. */
export function unappliedOf(status: StudyStatus | undefined): NonNullable<StudyStatus['unapplied']> {
  return status?.phase === 'applying' || status?.phase === 'planning' ? [] : (status?.unapplied ?? []);
}

/**
 * Apply's exit code: 5 when a study's workflow found the plan file it applies stale (nothing written); 1 when a study failed (wholly or in part), timed out or was superseded, or, with
 * `requireLive`, ended with a target group short of live; else 4 when a study settled with changes the file
 * asks for that were not made (a blocked field, a refused gate, a failed operation; not what a partial apply left out) or with a target group its
 * launch gate holds (phase `gate_blocked`); else 0.
 */
export function applyExitCode(studies: Followed[], options: { requireLive?: boolean }): 0 | 1 | 4 | 5 {
  // A plan file the study workflow found stale after its reading (workflows/study/plan-file-check.ts): nothing written.
  if (studies.some((f) => f.status?.phase === 'failed' && f.status.error?.startsWith('StalePlan:'))) return APPLY_EXIT.stalePlan;
  const failed = studies.some((f) => {
    const phase = f.status?.phase;
    return (
      phase === 'failed' ||
      phase === 'partially_failed' ||
      f.outcome === 'timeout' ||
      f.outcome === 'superseded' ||
      (options.requireLive && notLiveOf(f.status).length > 0)
    );
  });
  if (failed) return APPLY_EXIT.failed;
  // What a partial apply left out (`left_out`) was asked not to be made: it stays pending, and is no failure of this apply.
  const notMade = (f: Followed) => unappliedOf(f.status).some((u) => u.reason !== 'left_out') || gateBlockedOf(f.status).length > 0;
  return studies.some((f) => f.outcome === 'settled' && notMade(f)) ? APPLY_EXIT.unapplied : APPLY_EXIT.ok;
}

/** A timer that does not keep the process alive (the command exits once the studies are followed). */
function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
