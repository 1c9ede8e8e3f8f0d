// The critical-path bound of an apply, read from the sandbox's request log of a one-target-group
// run: the longest chain of calls each of which started only after the previous one had answered.
// Pure functions, unit-tested in test/bench/.
import type { RequestLogEntry } from '../sandbox';

/** One Demand API call as the sandbox logged it, on a ms timeline. */
export interface LoggedCall {
  method: string;
  /** Route template (`/v1/demand/accounts/{account_id}/…`), or the path when no route matched. */
  route: string;
  status: number;
  startMs: number;
  endMs: number;
}

/** A step of the dependent chain: one call, or the polls of one job collapsed into the poll that saw it done. */
export interface ChainStep {
  method: string;
  route: string;
  /** For a job poll: how many polls the run made (only the last one is on the bound). */
  polls?: number;
}

/** Log entries of the Demand API itself (`/v1`), without the token endpoint and the admin surface. */
export function apiCalls(entries: readonly RequestLogEntry[]): LoggedCall[] {
  return entries
    .filter((e) => e.path.startsWith('/v1/'))
    .map((e) => {
      const startMs = Date.parse(e.time);
      return { method: e.method, route: e.route ?? e.path, status: e.status, startMs, endMs: startMs + e.duration_ms };
    });
}

/** Token requests (`…/oauth/token`) in the log. */
export function tokenRequests(entries: readonly RequestLogEntry[]): number {
  return entries.filter((e) => e.path.endsWith('/oauth/token')).length;
}

/** POST routes of the Demand API that compute an answer and change nothing. */
const READ_ONLY_POSTS = [/\/calculate-feasibility$/, /\/profiles\/validate$/, /\/drafts\/generate-[a-z-]+$/, /-distribution\/draft$/, /\/suggest-days$/];

/** Whether a call changes state in the API: any method but GET, except the read-only POSTs (feasibility, validation, suggestions). */
export function isWrite(call: { method: string; route: string }): boolean {
  if (call.method === 'GET' || call.method === 'HEAD') return false;
  return !(call.method === 'POST' && READ_ONLY_POSTS.some((r) => r.test(call.route)));
}

/** Writes to the Demand API in the log (see {@link isWrite}). */
export function apiWrites(entries: readonly RequestLogEntry[]): number {
  return apiCalls(entries).filter(isWrite).length;
}

/**
 * Log entries that can belong to the project `projectId`: those under `/projects/{projectId}` and
 * those under no project at all (project lookup and create, feasibility, price). Calls other
 * studies make under their own projects are left out.
 */
export function entriesOfProject(entries: readonly RequestLogEntry[], projectId: string): RequestLogEntry[] {
  return entries.filter((e) => {
    const match = /\/projects\/([^/]+)/.exec(e.path);
    return !match || decodeURIComponent(match[1]) === projectId;
  });
}

/** Log entries that started in [fromMs, toMs). */
export function entriesBetween(entries: readonly RequestLogEntry[], fromMs: number, toMs = Infinity): RequestLogEntry[] {
  return entries.filter((e) => {
    const t = Date.parse(e.time);
    return t >= fromMs && t < toMs;
  });
}

/** A GET of a job's status: its route ends in a job id. */
export function isJobPoll(call: { method: string; route: string }): boolean {
  return call.method === 'GET' && /\{job_id\}$/.test(call.route);
}

/**
 * The longest chain of calls in which each call started after the previous one answered
 * (`toleranceMs` absorbs the log's millisecond rounding). Consecutive polls of one job route are
 * collapsed into one step: only the poll that saw the job done is on the critical path; the
 * others are a polling schedule's cost, not the API's.
 */
export function dependentChain(calls: readonly LoggedCall[], toleranceMs = 2): ChainStep[] {
  const sorted = [...calls].sort((a, b) => a.startMs - b.startMs || a.endMs - b.endMs);
  const best: number[] = [];
  const previous: number[] = [];
  for (let i = 0; i < sorted.length; i += 1) {
    best[i] = 1;
    previous[i] = -1;
    for (let j = 0; j < i; j += 1) {
      if (sorted[j].endMs <= sorted[i].startMs + toleranceMs && best[j] + 1 > best[i]) {
        best[i] = best[j] + 1;
        previous[i] = j;
      }
    }
  }
  let end = -1;
  for (let i = 0; i < sorted.length; i += 1) if (end < 0 || best[i] > best[end]) end = i;
  const chain: LoggedCall[] = [];
  for (let i = end; i >= 0; i = previous[i]) chain.unshift(sorted[i]);
  const steps: ChainStep[] = [];
  for (const call of chain) {
    const last = steps[steps.length - 1];
    if (last && isJobPoll(call) && last.route === call.route && last.method === call.method) {
      last.polls = (last.polls ?? 1) + 1;
      continue;
    }
    steps.push(isJobPoll(call) ? { method: call.method, route: call.route, polls: 1 } : { method: call.method, route: call.route });
  }
  return steps;
}

/**
 * The least time any client needs for this chain against an API that answers every call after
 * `latencyMs` and finishes a job `jobMs` after it processed the call that created it:
 *
 *   bound = steps × latency + jobs × (max(job, latency) − latency)
 *
 * The poll that sees a job done can be sent at the earliest `job` after the call that created it
 * was sent (the job starts when that call is processed, `latency` after sending; the poll is
 * processed `latency` after it is sent), so each job adds max(job, latency) − latency beyond the
 * latency of its creating call and its final poll. Jobs are the chain's collapsed poll steps.
 */
export function criticalPathBoundMs(chain: readonly ChainStep[], latencyMs: number, jobMs: number): number {
  const jobs = chain.filter((s) => s.polls !== undefined).length;
  return chain.length * latencyMs + jobs * (Math.max(jobMs, latencyMs) - latencyMs);
}

/** Short label of a step for tables: `POST …/target-groups/{target_group_id}/fielding-run-jobs/launch-from-draft`. */
export function stepLabel(step: ChainStep): string {
  const route = step.route.replace(/^\/v1\/demand\/accounts\/\{account_id\}/, '…');
  return `${step.method} ${route}${step.polls && step.polls > 1 ? ` (last of ${step.polls} polls)` : ''}`;
}
