// Soak: many studies of four target groups applied at once against the sandbox with faults, under
// a downstream rate limit. Checks that every study converges with exactly the desired resources and
// that the request rate the API sees stays under the limit; prints the figures as JSON.
//
//   node bin/run-ts.js scripts/soak.ts --studies 50 [--rate 15] [--workers 2] [--timeout 600]
//
// Without --temporal-address it starts its own Temporal dev server (SQLite in a temp dir). The CI
// form runs from test/integration/soak.test.ts through runSoak() on the suite's server.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { Client } from '@temporalio/client';
import { applyStudies, describeError, withStudyClient, type AppliedStudies } from '../client';
import type { Faults, RequestLogEntry, RunningSandbox } from '../sandbox';
import { startEmbeddedStack } from '../dev/embedded-stack';
import { connectClient } from '../temporal/temporal-connection';
import { startTemporalDevServer, type RunningDevServer } from '../dev/temporal-dev-server';
import { statusQuery, studyWorkflowId, type StudyStatus } from '../workflows/messages';

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/**
 * The faults of the soak: 10 % 503, 10 % 429 with Retry-After 1 s, 5 % of committed writes lose
 * their response. The sandbox's latency is one fixed value, so the 20-200 ms range is represented by
 * its midpoint, 110 ms, on every call.
 */
export const SOAK_FAULTS: Partial<Faults> = {
  error_rate: 0.1,
  rate_limit_rate: 0.1,
  retry_after_seconds: 1,
  drop_after_commit_rate: 0.05,
  latency_ms: 110,
  job_duration_ms: 1000,
  seed: 20_251_218,
};

/** Target groups of every soak study. */
export const SOAK_TARGET_GROUPS = ['us', 'uk', 'de', 'fr'] as const;
const LOCALES: Record<(typeof SOAK_TARGET_GROUPS)[number], string> = { us: 'en_US', uk: 'en_GB', de: 'de_DE', fr: 'fr_FR' };
/** Respondent IDs excluded from the `us` target group of every study (also scanned for in logs). */
/** RSIDs are UUIDs (the reference's format): these 200 differ in their last group. */
export const SOAK_RSIDS = Array.from({ length: 200 }, (_, i) => `50a4c0de-0000-4000-8000-${String(i).padStart(12, '0')}`);

/**
 * Allowed excess of an observed one-second peak of API requests over the limit: each worker paces its own
 * requests with a bucket that refills at a window's edge, so a few more than the limit can arrive within
 * one aligned second.
 */
export const RATE_TOLERANCE = 5;

/**
 * The burst Temporal's matching service allows a rate-limited task queue: its token bucket holds
 * `ceil(rate)` tokens (server v1.29 service/matching/ratelimit_manager.go: `max(ceil(rps),
 * matching.minTaskThrottlingBurstSize = 1)`). After a pause the bucket is full, so one second can start a
 * full bucket plus a second's refill; over any span the starts are at most rate × span + this burst.
 */
export function taskQueueBurst(ratePerSecond: number): number {
  return Math.max(Math.ceil(ratePerSecond), 1);
}

/** The span over which the sustained rate of activity starts is judged. */
export const SUSTAINED_WINDOW_S = 10;

/** Options of one soak run. */
export interface SoakOptions {
  /** Number of studies applied at once (four target groups each). */
  studies: number;
  /** STUDYFLOW_API_RATE_LIMIT: API activity starts per second across all workers. */
  apiRatePerSecond: number;
  /** `studyflow worker` processes sharing the task queues. */
  workers: number;
  /** Sandbox faults (default SOAK_FAULTS). */
  faults?: Partial<Faults>;
  /** A running Temporal server to use; without it, a dev server is started in a temp dir. */
  temporalAddress?: string;
  /** Give up following the apply after this long. */
  timeoutMs: number;
  /** Progress lines (stderr in the script). */
  log?: (line: string) => void;
  /** Runs against the live stack after the checks, before teardown (tests scan histories here). */
  inspect?: (stack: SoakStack) => Promise<void>;
}

/** What `inspect` sees. */
export interface SoakStack {
  client: Client;
  taskQueue: string;
  env: Record<string, string>;
  sandbox: RunningSandbox;
  /** Everything the worker processes wrote to stderr so far. */
  workerStderr(): string;
}

/** The soak's figures. */
export interface SoakReport {
  studies: number;
  targetGroups: number;
  /** Studies whose status is converged with every target group live (or completed by the simulated fielding). */
  converged: number;
  /** Studies and target groups by their final phase (status query). */
  studyPhases: Record<string, number>;
  targetGroupPhases: Record<string, number>;
  /** `apply --require-live` exit code: 0 when every study settled with every target group live or completed. */
  applyExitCode: number;
  /** `apply --json` outcomes per study (settled, timeout, superseded) with the phase, or the error it printed. */
  applyOutcomes: Record<string, number>;
  /** Demand API requests (/v1), and token requests, as the sandbox logged them. */
  requests: number;
  tokenRequests: number;
  /** Injected faults by kind, counted from the request log (API and token calls). */
  faultsInjected: { rateLimited429: number; serverError503: number; droppedAfterCommit: number };
  /** Activity attempts after the first, summed over every workflow history. */
  retries: number;
  activities: number;
  rateLimitPerSecond: number;
  rateTolerancePerSecond: number;
  /** Most /v1 requests that arrived in one second: aligned seconds, and any 1000 ms span. */
  peakRequestsPerSecond: { alignedWindow: number; slidingWindow: number };
  /**
   * Most API activity starts in one second, from the histories' ActivityTaskStarted events (last
   * attempts only: a lower bound). The limit Temporal enforces applies to these.
   */
  peakActivityStartsPerSecond: { alignedWindow: number; slidingWindow: number };
  /** Most API activity starts in any span of SUSTAINED_WINDOW_S seconds (the sustained rate the limit holds). */
  peakActivityStartsSustained: number;
  /** Temporal's token bucket for the API task queue ({@link taskQueueBurst}). */
  activityStartBurst: number;
  /** /v1 requests per activity attempt: the factor between the two peaks. */
  requestsPerActivityAttempt: number;
  /** Mean /v1 requests per second between the first and the last. */
  meanRequestsPerSecond: number;
  /** Resources found twice or more for one desired resource (projects, target groups, exclusion groups, fielding runs, ID lists). */
  duplicatesFound: number;
  /** Resources in the sandbox that no study asked for. */
  orphansFound: number;
  /** Desired resources not found, or not in the desired state. */
  missingOrWrong: number;
  problems: string[];
  workers: number;
  durationSeconds: number;
  applySeconds: number;
  requestLogComplete: boolean;
  faults: Partial<Faults>;
  node: string;
  cpus: number;
}

function studyId(run: string, index: number): string {
  return `soak-${run}-${String(index).padStart(3, '0')}`;
}
const projectReference = (id: string) => `PO-${id.toUpperCase()}`;
const groupName = (id: string) => `Soak waves ${id}`;

/** One soak study: four target groups, an exclusion group over two of them, an ID list on `us`. */
export function soakStudyYaml(id: string): string {
  const tgs = SOAK_TARGET_GROUPS.map(
    (key, i) => `  ${key}:
    locale: ${LOCALES[key]}
    live_url: https://survey.example.com/s/${id}/${key}?rid=[%RID%]
    filling_goal: ${40 + i * 5}
${key === 'us' ? '    exclusions:\n      respondent_ids: { file: soak-rsids.txt }\n' : ''}`,
  ).join('');
  return `format: studyflow/v1
study: ${id}
account: "1001"
business_unit: "2001"
project:
  name: Soak ${id}
  project_customer_reference_number: ${projectReference(id)}
defaults:
  expected_incidence_rate: 0.6
  expected_length_of_interview_minutes: 8
  project_manager_id: "6f1c2a4e-3001-4c8e-9d2b-000000003001"
  collects_pii: false
  launch: { mode: auto }
  timing: { job_poll_initial: 250ms, job_poll_max: 1s }
exclusion_groups:
  waves:
    name: ${groupName(id)}
    target_groups: [uk, de]
target_groups:
${tgs}`;
}

/** Most entries in an aligned window of `windowMs` (1 s by default), and in any span of that length. */
export function peakRate(times: number[], windowMs = 1000): { alignedWindow: number; slidingWindow: number } {
  const sortedTimes = [...times].sort((a, b) => a - b);
  const perWindow = new Map<number, number>();
  for (const t of sortedTimes) perWindow.set(Math.floor(t / windowMs), (perWindow.get(Math.floor(t / windowMs)) ?? 0) + 1);
  let sliding = 0;
  for (let start = 0, end = 0; end < sortedTimes.length; end++) {
    while (sortedTimes[end] - sortedTimes[start] >= windowMs) start++;
    sliding = Math.max(sliding, end - start + 1);
  }
  return { alignedWindow: Math.max(0, ...perWindow.values()), slidingWindow: sliding };
}

interface Counted {
  duplicates: number;
  orphans: number;
  missingOrWrong: number;
  problems: string[];
}

/** Compares what the sandbox holds with what the studies ask for, by customer reference numbers and names. */
export function countAgainstDesired(sandbox: RunningSandbox, ids: string[]): Counted {
  const state = sandbox.state();
  const result: Counted = { duplicates: 0, orphans: 0, missingOrWrong: 0, problems: [] };
  const expectOne = <T>(what: string, found: T[]): T | undefined => {
    if (found.length === 0) {
      result.missingOrWrong += 1;
      result.problems.push(`${what}: missing`);
    } else if (found.length > 1) {
      result.duplicates += found.length - 1;
      result.problems.push(`${what}: ${found.length} found`);
    }
    return found[0];
  };
  const projects = Object.values(state.projects);
  const tgs = Object.values(state.target_groups);
  const groups = Object.values(state.exclusion_groups);
  const runs = Object.values(state.fielding_runs);
  const ownedProjects = new Set<string>();
  const ownedTgs = new Set<string>();
  const ownedGroups = new Set<string>();
  for (const id of ids) {
    const foundProjects = projects.filter((p) => p.project_customer_reference_number === projectReference(id));
    foundProjects.forEach((p) => ownedProjects.add(p.id));
    const project = expectOne(`${id} project`, foundProjects);
    if (!project) continue;
    const byKey: Record<string, string> = {};
    for (const key of SOAK_TARGET_GROUPS) {
      const found = tgs.filter((t) => t.target_group_customer_reference_number === `${id}_${key}`);
      found.forEach((t) => ownedTgs.add(t.id));
      const tg = expectOne(`${id}/${key} target group`, found);
      if (!tg) continue;
      byKey[key] = tg.id;
      // Live, or already filled: the sandbox's fielding simulation completes small goals within minutes.
      if (tg.project_id !== project.id || (tg.status !== 'live' && tg.status !== 'completed')) {
        result.missingOrWrong += 1;
        result.problems.push(`${id}/${key}: ${tg.status} in ${tg.project_id === project.id ? 'its project' : 'another project'}`);
      }
      expectOne(`${id}/${key} fielding run`, runs.filter((r) => r.target_group_id === tg.id));
    }
    const rsids = byKey.us ? (state.id_exclusion_lists[byKey.us]?.rsid ?? []) : [];
    if (rsids.length !== SOAK_RSIDS.length || new Set(rsids).size !== rsids.length) {
      result.missingOrWrong += 1;
      result.problems.push(`${id}/us: ${rsids.length} excluded RSIDs (${new Set(rsids).size} distinct), ${SOAK_RSIDS.length} wanted`);
    }
    const foundGroups = groups.filter((g) => g.tag === groupName(id));
    foundGroups.forEach((g) => ownedGroups.add(g.id));
    const group = expectOne(`${id} exclusion group`, foundGroups);
    if (group && [...group.target_group_ids].sort().join() !== [byKey.uk, byKey.de].sort().join()) {
      result.missingOrWrong += 1;
      result.problems.push(`${id} exclusion group: members ${group.target_group_ids.length}`);
    }
  }
  const orphan = (what: string) => {
    result.orphans += 1;
    if (result.problems.length < 50) result.problems.push(`orphan ${what}`);
  };
  for (const p of projects) if (!ownedProjects.has(p.id)) orphan(`project ${p.id}`);
  for (const t of tgs) if (!ownedTgs.has(t.id)) orphan(`target group ${t.id}`);
  for (const g of groups) if (!ownedGroups.has(g.id)) orphan(`exclusion group ${g.id}`);
  for (const r of runs) if (!ownedTgs.has(r.target_group_id)) orphan(`fielding run ${r.id}`);
  return result;
}

/** Counts applied studies by outcome and phase, e.g. `{"settled converged": 50}`. */
export function applyOutcomes(applied: AppliedStudies | undefined, failure?: string): Record<string, number> {
  if (!applied) return { [`apply failed: ${(failure ?? 'unknown error').slice(0, 80)}`]: 1 };
  const counts: Record<string, number> = {};
  for (const s of applied.studies) {
    const key = `${s.outcome} ${s.status?.phase ?? 'unknown'}`;
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return counts;
}

/** Applies the study files under `dir` through the study client, as `studyflow apply --require-live` does. */
async function applyThroughClient(
  dir: string,
  env: Record<string, string>,
  timeoutMs: number,
): Promise<{ code: number; applied?: AppliedStudies; failure?: string }> {
  try {
    const applied = await withStudyClient({ ...process.env, ...env }, process.cwd(), (client) => applyStudies(client, [dir], { timeoutMs, requireLive: true }));
    return { code: applied.code, applied, failure: applied.outage };
  } catch (error) {
    return { code: 1, failure: describeError(error) };
  }
}

/** Activities, their retries, and the start times of their last attempts (earlier attempts leave no event). */
async function readActivityHistory(client: Client, taskQueue: string): Promise<{ retries: number; activities: number; lastAttemptStarts: number[] }> {
  let retries = 0;
  let activities = 0;
  const lastAttemptStarts: number[] = [];
  for await (const wf of client.workflow.list({ query: `TaskQueue = "${taskQueue}"` })) {
    const history = await client.workflow.getHandle(wf.workflowId, wf.runId).fetchHistory();
    for (const event of history.events ?? []) {
      if (event.activityTaskScheduledEventAttributes) activities += 1;
      const started = event.activityTaskStartedEventAttributes;
      if (!started) continue;
      if (started.attempt && started.attempt > 1) retries += started.attempt - 1;
      const seconds = Number(event.eventTime?.seconds ?? 0);
      if (seconds > 0) lastAttemptStarts.push(seconds * 1000 + Math.floor((event.eventTime?.nanos ?? 0) / 1e6));
    }
  }
  return { retries, activities, lastAttemptStarts };
}

/** Runs one soak and returns its figures; everything it started is stopped before it returns. */
export async function runSoak(options: SoakOptions): Promise<SoakReport> {
  const log = options.log ?? (() => undefined);
  const faults = options.faults ?? SOAK_FAULTS;
  const started = Date.now();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'studyflow-soak-'));
  const run = Math.random().toString(36).slice(2, 7);
  const taskQueue = `soak-${run}`;
  const stops: (() => Promise<void>)[] = [];
  const workers: ChildProcess[] = [];
  let workerStderr = '';
  try {
    let temporalAddress = options.temporalAddress;
    if (!temporalAddress) {
      const temporal: RunningDevServer = await startTemporalDevServer({ dbFile: path.join(dir, 'temporal.sqlite'), uiPort: false, stopWithParent: true });
      stops.push(() => temporal.stop());
      temporalAddress = temporal.address;
    }
    const stack = await startEmbeddedStack({ stateDir: dir, temporalAddress, taskQueue, sandboxPort: 0, inProcessWorker: false });
    stops.push(() => stack.stop());
    const env: Record<string, string> = {
      ...stack.env,
      STUDYFLOW_API_RATE_LIMIT: String(options.apiRatePerSecond),
      // Each worker process paces its own HTTP requests to its share of the limit.
      STUDYFLOW_API_REQUESTS_PER_SECOND: String(options.apiRatePerSecond / options.workers),
      STUDYFLOW_WATCH_INTERVAL_MS: '300000',
      NO_COLOR: '1',
    };
    const { client, connection } = await connectClient({ address: temporalAddress, namespace: 'default', connectionOptions: {} });
    stops.push(() => connection.close());

    for (let i = 0; i < options.workers; i++) {
      const child = spawn(process.execPath, [path.join(REPO_ROOT, 'bin/studyflow.js'), 'worker'], { cwd: dir, env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
      child.stderr?.on('data', (c: Buffer) => (workerStderr += c.toString()));
      workers.push(child);
    }
    stops.push(async () => {
      for (const w of workers) if (w.exitCode === null && w.signalCode === null) w.kill('SIGTERM');
      await Promise.all(workers.map((w) => (w.exitCode === null && w.signalCode === null ? new Promise((r) => w.once('exit', r)) : undefined)));
    });
    // Both workers poll before anything is applied, so the limit is shared from the first task.
    await waitFor(() => (workerStderr.split('worker polling').length - 1 >= options.workers ? true : undefined), 120_000);

    const ids = Array.from({ length: options.studies }, (_, i) => studyId(run, i));
    const studiesDir = path.join(dir, 'studies');
    fs.mkdirSync(studiesDir, { recursive: true });
    fs.writeFileSync(path.join(studiesDir, 'soak-rsids.txt'), `${SOAK_RSIDS.join('\n')}\n`);
    for (const id of ids) fs.writeFileSync(path.join(studiesDir, `${id}.yaml`), soakStudyYaml(id));

    stack.sandbox.setFaults(faults);
    log(`soak: applying ${ids.length} studies x ${SOAK_TARGET_GROUPS.length} target groups with ${options.workers} workers, limit ${options.apiRatePerSecond}/s`);
    const applyStarted = Date.now();
    const applied = await applyThroughClient(studiesDir, env, Math.ceil(options.timeoutMs / 1000) * 1000);
    const applySeconds = (Date.now() - applyStarted) / 1000;
    log(`soak: apply exited ${applied.code} after ${applySeconds.toFixed(1)} s`);
    if (applied.failure) log(`soak: apply said error: ${applied.failure}`);
    const requestLog: RequestLogEntry[] = stack.sandbox.requests();
    // Stop injecting so the checks below read the final state undisturbed.
    stack.sandbox.setFaults({});

    let converged = 0;
    const studyPhases: Record<string, number> = {};
    const targetGroupPhases: Record<string, number> = {};
    for (const id of ids) {
      const status: StudyStatus | undefined = await client.workflow.getHandle(studyWorkflowId('1001', id)).query(statusQuery).catch(() => undefined);
      const tgs = Object.values(status?.targetGroups ?? {});
      studyPhases[status?.phase ?? 'unknown'] = (studyPhases[status?.phase ?? 'unknown'] ?? 0) + 1;
      for (const tg of tgs) targetGroupPhases[tg.phase] = (targetGroupPhases[tg.phase] ?? 0) + 1;
      const launched = tgs.every((t) => t.phase === 'live' || t.phase === 'completed');
      if (status?.phase === 'converged' && tgs.length === SOAK_TARGET_GROUPS.length && launched) converged += 1;
    }
    const counted = countAgainstDesired(stack.sandbox, ids);
    const api = requestLog.filter((r) => r.path.startsWith('/v1'));
    const faultable = requestLog.filter((r) => r.path.startsWith('/v1') || r.path.startsWith('/auth'));
    const times = api.map((r) => Date.parse(r.time));
    const spanSeconds = times.length > 1 ? (Math.max(...times) - Math.min(...times)) / 1000 : 0;
    const { retries, activities, lastAttemptStarts } = await readActivityHistory(client, taskQueue);
    if (options.inspect) {
      await options.inspect({ client, taskQueue, env, sandbox: stack.sandbox, workerStderr: () => workerStderr });
    }
    for await (const wf of client.workflow.list({ query: `TaskQueue = "${taskQueue}" AND ExecutionStatus = "Running"` })) {
      await client.workflow.getHandle(wf.workflowId, wf.runId).terminate('soak finished').catch(() => undefined);
    }
    return {
      studies: ids.length,
      targetGroups: ids.length * SOAK_TARGET_GROUPS.length,
      converged,
      studyPhases,
      targetGroupPhases,
      applyExitCode: applied.code,
      applyOutcomes: applyOutcomes(applied.applied, applied.failure),
      requests: api.length,
      tokenRequests: requestLog.filter((r) => r.path.startsWith('/auth')).length,
      faultsInjected: {
        rateLimited429: faultable.filter((r) => r.status === 429).length,
        serverError503: faultable.filter((r) => r.status === 503).length,
        droppedAfterCommit: faultable.filter((r) => r.dropped).length,
      },
      retries,
      activities,
      rateLimitPerSecond: options.apiRatePerSecond,
      rateTolerancePerSecond: RATE_TOLERANCE,
      peakRequestsPerSecond: peakRate(times),
      peakActivityStartsPerSecond: peakRate(lastAttemptStarts),
      peakActivityStartsSustained: peakRate(lastAttemptStarts, SUSTAINED_WINDOW_S * 1000).slidingWindow,
      activityStartBurst: taskQueueBurst(options.apiRatePerSecond),
      requestsPerActivityAttempt: Math.round((api.length / Math.max(1, activities + retries)) * 100) / 100,
      meanRequestsPerSecond: spanSeconds > 0 ? Math.round((api.length / spanSeconds) * 10) / 10 : 0,
      duplicatesFound: counted.duplicates,
      orphansFound: counted.orphans,
      missingOrWrong: counted.missingOrWrong,
      problems: counted.problems.slice(0, 50),
      workers: options.workers,
      durationSeconds: Math.round((Date.now() - started) / 100) / 10,
      applySeconds: Math.round(applySeconds * 10) / 10,
      requestLogComplete: requestLog.length < 10_000,
      faults,
      node: process.version,
      cpus: os.cpus().length,
    };
  } finally {
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

async function waitFor<T>(check: () => T | undefined, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`soak: condition not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** What a report falls short of: every study converged with exactly the desired resources, both rates under the limit plus tolerance. */
export function soakFailures(report: SoakReport): string[] {
  const ceiling = report.rateLimitPerSecond + report.rateTolerancePerSecond;
  const failures: string[] = [];
  if (report.applyExitCode !== 0) failures.push(`apply exited ${report.applyExitCode}`);
  if (report.converged !== report.studies) failures.push(`${report.studies - report.converged} of ${report.studies} studies did not converge`);
  if (report.duplicatesFound + report.orphansFound + report.missingOrWrong > 0) {
    failures.push(`resources: ${report.duplicatesFound} duplicate(s), ${report.orphansFound} orphan(s), ${report.missingOrWrong} missing or wrong`);
  }
  // Temporal enforces the start rate with a token bucket: one second may start the limit plus a full bucket,
  // any longer span at most the limit times its length plus one bucket.
  const startsInASecond = report.rateLimitPerSecond + report.activityStartBurst;
  if (report.peakActivityStartsPerSecond.alignedWindow > startsInASecond) {
    failures.push(`activity starts: ${report.peakActivityStartsPerSecond.alignedWindow} in one second, above ${report.rateLimitPerSecond} + a bucket of ${report.activityStartBurst}`);
  }
  const sustained = report.rateLimitPerSecond * SUSTAINED_WINDOW_S + report.activityStartBurst;
  if (report.peakActivityStartsSustained > sustained) {
    failures.push(`activity starts: ${report.peakActivityStartsSustained} in ${SUSTAINED_WINDOW_S} s, above ${report.rateLimitPerSecond}/s × ${SUSTAINED_WINDOW_S} s + a bucket of ${report.activityStartBurst}`);
  }
  if (report.peakRequestsPerSecond.alignedWindow > ceiling) {
    failures.push(`API requests: ${report.peakRequestsPerSecond.alignedWindow} in one second, above ${report.rateLimitPerSecond} + ${report.rateTolerancePerSecond}`);
  }
  if (!report.requestLogComplete) failures.push('the sandbox request log overflowed: rates are incomplete');
  return failures;
}

async function cli(): Promise<void> {
  const { values } = parseArgs({
    options: {
      studies: { type: 'string', default: '50' },
      rate: { type: 'string', default: '15' },
      workers: { type: 'string', default: '2' },
      timeout: { type: 'string', default: '600' },
      'temporal-address': { type: 'string' },
    },
  });
  const positive = (name: string, text: string | undefined) => {
    const n = Number(text);
    if (!Number.isInteger(n) || n <= 0) {
      process.stderr.write(`soak: --${name} must be a positive whole number, got "${text}"\n`);
      process.exit(2);
    }
    return n;
  };
  const report = await runSoak({
    studies: positive('studies', values.studies),
    apiRatePerSecond: positive('rate', values.rate),
    workers: positive('workers', values.workers),
    timeoutMs: positive('timeout', values.timeout) * 1000,
    temporalAddress: values['temporal-address'],
    log: (line) => process.stderr.write(`${line}\n`),
  });
  const failedChecks = soakFailures(report);
  process.stdout.write(`${JSON.stringify({ passed: failedChecks.length === 0, failedChecks, ...report }, null, 2)}\n`);
  process.exitCode = failedChecks.length === 0 ? 0 : 1;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  cli().catch((error: unknown) => {
    process.stderr.write(`soak: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  });
}
