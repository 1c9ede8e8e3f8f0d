// The JSON each benchmark writes to bench/out/<name>.json, as bench/report.ts reads it.
import type { RunContext } from './bench-stack';
import type { Distribution } from './stats';
import type { ApplyTimeline } from './timeline';

/** Fields every result carries: what ran, where, when, under which load. */
export interface ResultHeader extends RunContext {
  benchmark: string;
  /** The exact command that produced the result. */
  command: string;
}

export interface TargetCheck {
  name: string;
  measured: number | null;
  limit: number;
  met: boolean;
}

export interface EngineBreakdown {
  studyWorkflowActivities: number;
  studyWorkflowEvents: number;
  /** Workflow tasks of the study workflow that timed out (each costs the task's timeout, 10 s by default). */
  studyWorkflowTaskTimeouts: { scheduleToStart: number; startToClose: number };
  activitiesPerTargetGroup: number;
  targetGroupWorkflowStartedMs: { median: number; last: number };
  perTargetGroupUntilLiveMs: { total: number; signalWait: number; activityDispatch: number; activityRun: number; workflowTask: number; timer: number };
  signalsUntilLive: number;
  meanSignalWaitMs: number | null;
}

export interface ApplyLatencyRow {
  targetGroups: number;
  loadAverage: [number, number, number];
  /** From the start of `studyflow apply` until the last target group was live: the median run. */
  timeToLiveMs: number;
  /** The same for every run of this size, in the order they ran (absent in results from before repeats). */
  runsMs?: number[];
  /** When `studyflow apply --require-live` returned (it polls the status every 500 ms). */
  cliReturnMs: number;
  boundMs: number;
  ratioToBound: number | null;
  baselineMs: number | null;
  baselineExtrapolated: boolean;
  speedupOverBaseline: number | null;
  apiCalls: number;
  callsPerTargetGroup: number;
  writes: number;
  tokenRequests: number;
  apiCallMs: Distribution;
  engine: EngineBreakdown;
  /** CPU the processes used during the first apply (until the CLI returned). */
  cpu?: CpuUse;
  reapply: { wallMs: number; apiCalls: number; writes: number };
}

export interface CpuUse {
  /** CPU milliseconds by process: temporalServer, worker, sandbox, benchmark (this process, which runs the CLI). */
  cpuMs: Record<string, number>;
  wallMs: number;
  cores: number;
  /** All of that CPU over wall time x cores: near 1 means the machine was the limit. */
  machineShare: number;
  /** Temporal server + worker CPU per target group. */
  enginePerTargetGroupMs: number;
}

export interface ApplyLatencyResult extends ResultHeader {
  benchmark: 'apply-latency';
  latencyMs: number;
  jobMs: number;
  /** The benchmark studies' job poll schedule (`job_poll_initial`, `job_poll_max`). */
  jobPollMs?: { initial: number; max: number };
  /** Runs per size (fresh studies each); the rows report the median run. */
  repeat?: number;
  /** Target groups of the unmeasured warm-up study. */
  warmUpTargetGroups?: number;
  apiRatePerSecond: number;
  tokenRequestsWholeRun: number;
  chain?: { derivedFrom: string; steps: string[]; chainCalls: number; jobs: number; formula: string; boundMs: number };
  /** Seconds the whole benchmark may take; sizes that do not fit are listed in `incomplete`. */
  budgetS: number;
  results: ApplyLatencyRow[];
  incomplete: { targetGroups: number; timedOutAfterMs: number; liveTargetGroups: number; reason: string }[];
  targets: TargetCheck[];
}

export interface OverheadVariant {
  taskQueue: string;
  activities: number;
  wallMs: number;
  wallPerActivityMs: number;
  perActivity: Distribution;
  dispatch: Distribution;
  run: Distribution;
  decide: Distribution;
  overheadMedianMs: number;
  overheadP95Ms: number;
}

/** The overhead measurements on one dev server. */
export interface OverheadServerRun {
  /** The server's dynamic config values ({} = Temporal's defaults). */
  dynamicConfig: Record<string, number | string>;
  /** SQLite pragmas of the dev server ([] = its own). */
  sqlitePragmas?: string[];
  sameQueue: OverheadVariant;
  separateQueue: OverheadVariant;
  timers: { count: number; requestedMs: number; lateness: Distribution };
}

export interface EngineOverheadResult extends ResultHeader {
  benchmark: 'engine-overhead';
  directCall: Distribution & { meanUsOver10000Calls: number };
  /** With studyflow's dev server settings (dev/temporal-dev-server.ts DEV_SERVER_DYNAMIC_CONFIG). */
  studyflowDevServer: OverheadServerRun;
  /** The same, shorter, with Temporal's default settings. */
  temporalDefaults: OverheadServerRun;
  target: { medianOverheadBelowMs: number; measuredMedianMs: number; met: boolean };
}

export interface FanOutFloorRow {
  children: number;
  /** From starting the parent until it returned (every child reported). */
  wallMs: number;
  /** When the last ChildWorkflowExecutionStarted was recorded, after the parent started. */
  lastChildStartedMs: number;
  parentEvents: number;
  /** CPU used meanwhile: the Temporal server, and this process (the worker and the client). */
  cpuMs: { temporalServer: number; workerAndClient: number };
  cpuPerChildMs: number;
  machineShare: number;
  loadAverage: [number, number, number];
}

export interface FanOutFloorResult extends ResultHeader {
  benchmark: 'fan-out-floor';
  dynamicConfig: Record<string, number | string>;
  sqlitePragmas: string[];
  results: FanOutFloorRow[];
}

export interface ThroughputRow {
  workers: number;
  studies: number;
  targetGroupsPerStudy: number;
  loadAverage: [number, number, number];
  allLiveMs: number;
  cliReturnMs: number;
  studiesPerMinute: number;
  targetGroupsPerMinute: number;
  apiCalls: number;
  /** The round hit --timeout-s; the rates count the studies that were live by then. */
  timedOut?: boolean;
  studiesLive?: number;
}

export interface ThroughputResult extends ResultHeader {
  benchmark: 'throughput';
  latencyMs: number;
  jobMs: number;
  apiRatePerSecond: number;
  results: ThroughputRow[];
  /** Studies per minute with two workers over one. */
  scaling: number;
}

export interface ValidationResult extends ResultHeader {
  benchmark: 'validation';
  studyFiles: { files: number; targetGroupsPerFile: number; totalBytes: number; medianMs: number; runsMs: number[]; filesPerSecond: number };
  idList: { kind: string; lines: number; bytes: number; medianMs: number; runsMs: number[]; linesPerSecond: number };
}

/** What bench/upload-100k.ts prints. */
export interface Upload100kFigures {
  ids: number;
  file_bytes: number;
  upload_ms: number;
  until_job_done_ms: number;
  job_status: string;
  remote_digest_matches: boolean;
  peak_extra_retained_bytes: number;
  peak_extra_rss_bytes: number;
  gc_exposed: boolean;
}

/** What bench/webhook-receiver.ts prints. */
export interface WebhookFigures {
  deliveries: number;
  seconds: number;
  perSecond: number;
  p50Ms: number;
  p95Ms: number;
  rssMb: number;
}

/** One `studyflow apply` run of bench/buyer-view.ts. */
export interface BuyerViewRun {
  /** Spawn to exit of `studyflow apply --require-live`. */
  ms: number;
  /** API calls during the run, job polls included. */
  calls: number;
  /** Of those, GETs of a job by its id. */
  polls: number;
  writes: number;
  /** Events in the histories of the study's workflows once worker and server were idle after the command. */
  historyEvents: number;
  cpuMs: { worker: number; temporalServer: number };
  /** The same file applied again at once (first run of each size). */
  reapply?: { ms: number; writes: number };
  /** Where the wall time went (first run of each size). */
  timeline?: ApplyTimeline;
}

export interface BuyerViewRow {
  targetGroups: number;
  boundMs: number;
  handWrittenMs: number | null;
  handWrittenRunsMs: number[];
  handWrittenCallsPerTargetGroup: number | null;
  handWrittenPollsPerTargetGroup: number | null;
  studyflowMs: number;
  studyflowRunsMs: number[];
  ratioToHandWritten: number | null;
  ratioToBound: number | null;
  callsPerTargetGroup: number;
  /** Job polls per target group (included in callsPerTargetGroup). */
  pollsPerTargetGroup: number;
  writesPerTargetGroup: number;
  historyEventsPerTargetGroup: number;
  cpuMsPerTargetGroup: { worker: number; temporalServer: number };
  reapplyWrites: number;
  runs: BuyerViewRun[];
}

export interface BuyerViewResult extends ResultHeader {
  benchmark: 'buyer-view';
  latencyMs: number;
  jobMs: number;
  pollMs: number;
  boundMs: number;
  boundCalls: string[];
  runsPerSize: number;
  /** The checkout under test first; then any --compare one (without the hand-written client). */
  versions: { label: string; root: string; rows: BuyerViewRow[]; incomplete: number[] }[];
}

/** One client's run in bench/outside-view.ts. */
export interface OutsideViewClientRun {
  /** Spawn to exit. */
  ms: number;
  /** Spawn to the first API call the run caused (the sandbox's request log). */
  firstCallMs: number | null;
  /** The 1-minute load average when it started. */
  load1: number;
  /** studyflow only (STUDYFLOW_TIMELINE): ms after the spawn at which the process started and reached each phase. */
  phasesMs?: Record<string, number>;
  /** studyflow only: CPU ms the CLI process used, start to return. */
  cpuMs?: number;
}

export interface OutsideViewRow {
  targetGroups: number;
  handWrittenMs: number;
  studyflowMs: number;
  /** Median studyflow over median hand-written. */
  ratio: number | null;
  /** studyflow over hand-written, run by run (the two ran back to back). */
  pairedRatios: number[];
  firstCallMs: { handWritten: number | null; studyflow: number | null; compare?: number | null };
  compareMs?: number | null;
  compareRatio?: number | null;
  runs: Record<string, OutsideViewClientRun[]>;
}

/** bench/outside-view.ts: `studyflow apply` against `studyflow dev`, as an outsider measures it. */
export interface OutsideViewResult extends ResultHeader {
  benchmark: 'outside-view';
  latencyMs: number;
  jobMs: number;
  pollMs: number;
  boundMs: number;
  boundCalls: string[];
  runsPerSize: number;
  compare?: { label: string; bin: string };
  /** The lowest and highest 1-minute load average at the start of a run. */
  load1Range: [number, number] | null;
  rows: OutsideViewRow[];
  incomplete: number[];
  /** Runs that failed (left out with the other clients of the same run). */
  failures?: string[];
}

/** What bench/cli-startup.ts prints: each command timed from spawn to exit, compiled and from the sources through tsx. */
export interface CliStartupFigures {
  runs: number;
  variants: {
    label: string;
    build: 'compiled' | 'tsx';
    /** What the user types. */
    shown: string;
    /** What the benchmark ran. */
    command: string;
    runsMs: number[];
    medianMs: number;
    minMs: number;
    maxMs: number;
  }[];
}

/** What bench/s3-blob-memory.ts prints: peak memory over the baseline while a 100,000-ID list is stored and read back. */
export interface S3BlobMemoryFigures {
  ids: number;
  gcForced: boolean;
  node: string;
  local: { listMiB: number; putPeakMiB: number; readPeakMiB: number };
  s3: { listMiB: number; putPeakMiB: number; readPeakMiB: number };
}

/** A benchmark that prints its figures as one JSON line, wrapped by bench/run-all.ts. */
export interface WrappedResult<T> extends ResultHeader {
  figures: T;
}

/** Every result the report knows; a benchmark that did not run or failed is absent. */
export interface BenchResults {
  applyLatency?: ApplyLatencyResult;
  fanOutFloor?: FanOutFloorResult;
  engineOverhead?: EngineOverheadResult;
  throughput?: ThroughputResult;
  validation?: ValidationResult;
  upload?: WrappedResult<Upload100kFigures>;
  webhook?: WrappedResult<WebhookFigures>;
  cliStartup?: WrappedResult<CliStartupFigures>;
  buyerView?: BuyerViewResult;
  outsideView?: OutsideViewResult;
  s3BlobMemory?: WrappedResult<S3BlobMemoryFigures>;
  /** bench/watch-scale.ts at 10,000 live target groups, the final version (not run by run-all: it takes about 45 minutes). */
  watchScale?: WatchScaleFigures;
  /** The run of bench/run-all.ts that produced them. */
  run?: RunSummary;
}

/** What the targets table reads of bench/out/watch-scale-after-10000.json. */
export interface WatchScaleFigures {
  settings: { tgs: number; watchedTgs?: number };
  apiCallsPerHour: { perSecond: number; rateLimitPerSecond: number; shareOfRateLimit: number };
  cpuCores: { worker?: number };
}

export interface RunSummary {
  startedAt: string;
  totalSeconds: number;
  benchmarks: { name: string; command: string; seconds: number; exitCode: number | null; error?: string }[];
}
