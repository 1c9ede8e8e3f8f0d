import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { WithStartWorkflowOperation, type Client } from '@temporalio/client';
import type { ApplyScope } from '../plan/scope';
import type { Fingerprints } from '../plan/plan-file';
import type { DesiredStudy } from '../plan/types';
import {
  applyUpdate,
  awaitRevisionUpdate,
  revisionOutcome,
  statusQuery,
  studyWorkflowId,
  type ApplyAccepted,
  type StudyStatus,
} from '../workflows/messages';
import { ACCOUNT_ID, STUDY_ID } from '../workflows/search-attributes';
import type { studyWorkflow } from '../workflows/study-workflow';

/** Update-with-start: starts the study's workflow if it is not running and hands it the revision. */
export async function submitRevision(
  client: Client,
  desired: DesiredStudy,
  options: { taskQueue: string; gitRevision?: string; sourceFile?: string; scope?: ApplyScope; planned?: { fingerprints: Fingerprints }; approveCloseout?: string },
): Promise<{ workflowId: string; accepted: ApplyAccepted }> {
  const workflowId = studyWorkflowId(desired.accountId, desired.studyId);
  const startWorkflowOperation = new WithStartWorkflowOperation<typeof studyWorkflow>('studyWorkflow', {
    workflowId,
    taskQueue: options.taskQueue,
    args: [{ accountId: desired.accountId, studyId: desired.studyId }],
    workflowIdConflictPolicy: 'USE_EXISTING',
    typedSearchAttributes: [
      { key: STUDY_ID, value: desired.studyId },
      { key: ACCOUNT_ID, value: desired.accountId },
    ],
    staticSummary: `Study ${desired.studyId} (account ${desired.accountId})`,
    staticDetails: [
      `**Study** ${desired.studyId}, account ${desired.accountId}, business unit ${desired.businessUnitId}`,
      options.sourceFile ? `**File** ${options.sourceFile}` : undefined,
      `**Target groups** ${desired.targetGroups.map((t) => t.key).join(', ')}`,
      `**API version** ${desired.apiVersion}`,
    ]
      .filter(Boolean)
      .join('\n\n'),
  });
  const handle = await client.workflow.startUpdateWithStart(applyUpdate, {
    args: [{ desired, gitRevision: options.gitRevision, ...(options.scope ? { scope: options.scope } : {}), ...(options.planned ? { planned: options.planned } : {}), ...(options.approveCloseout ? { approveCloseout: options.approveCloseout } : {}) }],
    waitForStage: 'ACCEPTED',
    startWorkflowOperation,
  });
  return { workflowId, accepted: await handle.result() };
}

export async function queryStatus(client: Client, workflowId: string): Promise<StudyStatus> {
  return await client.workflow.getHandle(workflowId).query(statusQuery);
}

/** What awaitRevision tells its caller while Temporal does not answer, and when it answers again. */
export interface AwaitRevisionOptions {
  /** Stops waiting (the in-flight call is cancelled): the promise rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Temporal could not be reached (`error` says why) and has not answered since `sinceMs` (Date.now()); asked again shortly. */
  onUnreachable?: (error: unknown, sinceMs: number) => void;
  /** Temporal answered again after being unreachable. */
  onReachable?: () => void;
}

/** The longest pause between two attempts to reach Temporal while it is down. */
const MAX_RETRY_PAUSE_MS = 5000;

/**
 * The study's status once `revision` is no longer running: one update that the workflow completes when the
 * revision settles (asked again if the workflow continued as new meanwhile), so the answer comes as soon as
 * the workflow knows it, with no polling. While Temporal is unreachable (a server restart, a network cut:
 * gRPC UNAVAILABLE or a deadline, after the client's own retries) the same update is asked again, by its id,
 * so the workflow holds one waiting update however long the outage, until Temporal answers or `signal` stops it.
 */
export async function awaitRevision(client: Client, workflowId: string, revision: string, options: AwaitRevisionOptions = {}): Promise<StudyStatus> {
  const { signal } = options;
  let updateId = randomUUID();
  let unreachableSince: number | undefined;
  let failures = 0;
  for (;;) {
    signal?.throwIfAborted();
    try {
      const ask = () => client.workflow.getHandle(workflowId).executeUpdate(awaitRevisionUpdate, { args: [{ revision }], updateId });
      const status = signal ? await client.withAbortSignal(signal, ask) : await ask();
      if (unreachableSince !== undefined) options.onReachable?.();
      unreachableSince = undefined;
      failures = 0;
      if (revisionOutcome(status, revision) !== 'running') return status;
      // The workflow continued as new with the revision still running: ask its new run.
      updateId = randomUUID();
    } catch (error) {
      signal?.throwIfAborted();
      if (!isTemporalUnreachable(error) && !isRpcTimeout(error)) throw error;
      // A call that timed out is asked again, quietly: a busy server is slow, not gone.
      if (isTemporalUnreachable(error)) {
        unreachableSince ??= Date.now();
        options.onUnreachable?.(error, unreachableSince);
      }
      await pause(Math.min(MAX_RETRY_PAUSE_MS, 250 * 2 ** failures), signal);
      failures += 1;
    }
  }
}

/** gRPC UNAVAILABLE: the server was not reached (down, restarting, a network cut), after the client's own retries. */
const GRPC_UNAVAILABLE = 14;
const GRPC_DEADLINE_EXCEEDED = 4;

/** The errors `error` was caused by, itself first. */
function causeChain(error: unknown): unknown[] {
  const chain: unknown[] = [];
  for (let e = error; e && chain.length < 6; e = (e as { cause?: unknown }).cause) chain.push(e);
  return chain;
}

/**
 * True when `error` (or an error it was caused by) says Temporal could not be reached: the server is down or
 * restarting, or the network is cut. A refusal (not found, invalid, permission) is not, nor a call that timed out.
 */
export function isTemporalUnreachable(error: unknown): boolean {
  return causeChain(error).some((e) => {
    const code = (e as { code?: unknown }).code;
    return code === GRPC_UNAVAILABLE || code === 'ECONNREFUSED' || code === 'ECONNRESET';
  });
}

/** True when a call to Temporal ran out of time (its deadline, or the server's) without a refusal. */
export function isRpcTimeout(error: unknown): boolean {
  return causeChain(error).some((e) => (e as { code?: unknown }).code === GRPC_DEADLINE_EXCEEDED || (e instanceof Error && e.name === 'WorkflowUpdateRPCTimeoutOrCancelledError'));
}

/**
 * A Temporal client error on one line with what caused it: the client's own message ("Workflow Update failed")
 * says little; the gRPC status under it ("14 UNAVAILABLE: No connection established…") says what happened.
 */
export function describeTemporalError(error: unknown): string {
  const parts: string[] = [];
  for (const e of causeChain(error)) {
    // grpc-js ends an UNAVAILABLE message with an empty "Resolution note:".
    const line = (e instanceof Error ? e.message : String(e)).split('\n')[0].replace(/\s*Resolution note:\s*$/, '').trim();
    if (line && !parts.some((p) => p.includes(line))) parts.push(line);
  }
  return parts.join(': ') || 'unknown error';
}

/** Waits `ms` (without keeping the process alive), or until `signal` aborts. */
function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    timer.unref();
    signal?.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
  });
}

/** The commit the files come from: --git-revision, GITHUB_SHA, or `git rev-parse HEAD` where that works (asked while Temporal connects). */
export async function gitRevisionOf(explicit: string | undefined, env: NodeJS.ProcessEnv, cwd: string): Promise<string | undefined> {
  if (explicit) return explicit;
  if (env.GITHUB_SHA) return env.GITHUB_SHA;
  return await new Promise((resolve) => {
    execFile('git', ['rev-parse', '--short=12', 'HEAD'], { cwd, encoding: 'utf8' }, (error, stdout) => resolve(error ? undefined : stdout.trim() || undefined));
  });
}
