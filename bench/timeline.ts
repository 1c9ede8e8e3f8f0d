// Where the time of one `studyflow apply --require-live` goes, from the sandbox's request log and the study
// workflow's history, each as ms after the command was spawned: the phases that add up to its wall time.

/** An API call (its start) or a history event of the study workflow, ms after the spawn. */
export interface TimedCall {
  method: string;
  route: string;
  atMs: number;
}
export interface TimedEvent {
  /** The event type in lower case without the prefix, e.g. `workflow_execution_started`. */
  type: string;
  atMs: number;
}

/** The phases of one apply, in ms; they add up to the wall time. */
export interface ApplyTimeline {
  /** Spawn to the study workflow's start: node, loading the CLI, validating, connecting, update-with-start. */
  startUpMs: number;
  /** Workflow start to the first write: reading what exists (and the gates beside it). */
  beforeFirstWriteMs: number;
  /** First write to the last launch sent: project, drafts, launches. */
  writesMs: number;
  /** Last launch sent to the last job poll: the launch jobs (the sandbox keeps each one Processing). */
  launchJobsMs: number;
  /** Last job poll to the update that told the CLI the revision settled. */
  settleMs: number;
  /** That update to the process exit: the CLI's report and exit. */
  exitMs: number;
}

const isWrite = (c: TimedCall) => c.method !== 'GET';
const isLaunch = (c: TimedCall) => c.method === 'POST' && c.route.endsWith('/launch-from-draft');
/** A job poll: a GET of a job by its id (how many a client makes depends on the job's duration and the poll interval). */
export const isJobPoll = (c: { method: string; route: string }) => c.method === 'GET' && c.route.endsWith('{job_id}');

/**
 * The phases of a first apply that launched every target group. Undefined when a mark is missing (no
 * launch, no workflow start in the history): the run did something else and has no such timeline.
 */
export function applyTimeline(calls: readonly TimedCall[], events: readonly TimedEvent[], wallMs: number): ApplyTimeline | undefined {
  const started = events.find((e) => e.type === 'workflow_execution_started')?.atMs;
  const firstWrite = calls.filter(isWrite).map((c) => c.atMs).sort((a, b) => a - b)[0];
  const lastLaunch = Math.max(...calls.filter(isLaunch).map((c) => c.atMs));
  const lastPoll = Math.max(...calls.filter(isJobPoll).map((c) => c.atMs));
  // The update that completed last before the exit: the one apply waited on.
  const settled = Math.max(...events.filter((e) => e.type === 'workflow_execution_update_completed' && e.atMs <= wallMs).map((e) => e.atMs));
  const marks = [started, firstWrite, lastLaunch, lastPoll, settled];
  if (marks.some((m) => m === undefined || !Number.isFinite(m))) return undefined;
  const [s, w, l, p, u] = marks as number[];
  return {
    startUpMs: Math.round(s),
    beforeFirstWriteMs: Math.round(w - s),
    writesMs: Math.round(l - w),
    launchJobsMs: Math.round(p - l),
    settleMs: Math.round(u - p),
    exitMs: Math.round(wallMs - u),
  };
}
