// Turns the JSON in bench/out/ into docs/benchmarks.md and docs/benchmarks-apply.svg. The
// rendering is pure (renderMarkdown, renderApplySvg; unit-tested in test/bench/); writeReport
// reads and writes the files. `node bin/run-ts.js bench/report.ts` regenerates the docs from the
// last results without running anything.
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { BATCH_SIZE } from '../plan/batches';
import type {
  ApplyLatencyResult,
  ApplyLatencyRow,
  BenchResults,
  BuyerViewResult,
  BuyerViewRow,
  CliStartupFigures,
  OutsideViewResult,
  S3BlobMemoryFigures,
  WrappedResult,
  EngineOverheadResult,
  FanOutFloorResult,
  FanOutFloorRow,
  OverheadVariant,
  ResultHeader,
  ThroughputResult,
  ValidationResult,
} from './result-types';

const REPO_ROOT = path.resolve(import.meta.dirname, '..');
export const APPLY_SVG_NAME = 'benchmarks-apply.svg';

// ---------------------------------------------------------------------------------------------
// Formatting

/** `1,234 ms` below ten seconds, `12.3 s` above. */
export function formatMs(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return '–';
  if (Math.abs(ms) >= 10_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.round(ms).toLocaleString('en-US')} ms`;
}

function formatNumber(value: number | null | undefined, digits = 0): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return '–';
  return value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

function formatBytes(bytes: number): string {
  if (Math.abs(bytes) >= 2 ** 20) return `${(bytes / 2 ** 20).toFixed(1)} MiB`;
  if (Math.abs(bytes) >= 2 ** 10) return `${(bytes / 2 ** 10).toFixed(1)} KiB`;
  return `${bytes} B`;
}

function formatLoad(load: readonly number[] | undefined): string {
  return load ? load.map((v) => v.toFixed(2)).join(' / ') : '–';
}

/** A Markdown table; `|` inside cells is escaped. */
export function markdownTable(headers: readonly string[], rows: readonly (readonly string[])[]): string {
  const cell = (v: string) => v.replace(/\|/g, '\\|').replace(/\n/g, ' ');
  const line = (cells: readonly string[]) => `| ${cells.map(cell).join(' | ')} |`;
  return [line(headers), line(headers.map(() => '---')), ...rows.map(line)].join('\n');
}

/** The benchmark studies' job poll intervals, e.g. `50–100` (results from before they were recorded used 100–200 ms). */
function pollRangeMs(apply: ApplyLatencyResult): string {
  return apply.jobPollMs ? `${apply.jobPollMs.initial}–${apply.jobPollMs.max}` : '100–200';
}

/** How the benchmark studies poll their jobs, in words. */
function pollScheduleText(apply: ApplyLatencyResult): string {
  const poll = apply.jobPollMs;
  if (!poll) return `job polls every ${pollRangeMs(apply)} ms`;
  const settings = `(\`job_poll_initial: ${poll.initial}ms\`, \`job_poll_max: ${poll.max}ms\`)`;
  if (poll.initial === poll.max) return `job polls at once, then every ${poll.max} ms after the previous poll started ${settings}`;
  return `job polls at once, then ${poll.initial} ms after the previous poll started, growing by half up to every ${poll.max} ms ${settings}`;
}

function provenance(result: ResultHeader): string {
  const m = result.machine;
  return [
    `Command: \`${result.command}\``,
    `Run: ${result.startedAt.replace('T', ' ').slice(0, 19)} UTC on ${m.cpus} cores (${m.cpuModel}), ${m.memoryGiB} GiB, Node ${m.node}; load average at start ${formatLoad(result.loadAverageAtStart)} (1 / 5 / 15 min).`,
  ].join('  \n');
}

function yesNo(met: boolean, measured: number | null): string {
  if (measured === null) return 'not measured';
  return met ? 'met' : 'NOT met';
}

// ---------------------------------------------------------------------------------------------
// Sections

function machineSection(results: BenchResults): string[] {
  const any = [results.applyLatency, results.fanOutFloor, results.engineOverhead, results.throughput, results.validation, results.upload, results.webhook].find(Boolean);
  if (!any) return ['No benchmark results were found in bench/out/.'];
  const m = any.machine;
  const loads = [results.applyLatency, results.fanOutFloor, results.engineOverhead, results.throughput, results.validation, results.upload, results.webhook]
    .filter((r): r is NonNullable<typeof r> => Boolean(r))
    .map((r) => r.loadAverageAtStart[0]);
  const lines = [
    `Machine: ${m.cpus} cores (${m.cpuModel}), ${m.memoryGiB} GiB memory, Node ${m.node}, ${m.platform}.`,
    '',
    `**Machine load.** Every result records \`os.loadavg()\` when it started; here the 1-minute load ranged from ${Math.min(...loads).toFixed(2)} to ${Math.max(...loads).toFixed(2)}. ` +
      (Math.max(...loads) >= m.cpus
        ? `Other processes shared the ${m.cpus} cores while these figures were taken (a load above ${m.cpus} means runnable processes waited for a core), so every time below is an upper bound of what the code needs, and the engine figures (CPU- and scheduling-bound) suffer most. Run \`npm run bench\` on an idle machine to compare.`
        : `That is fewer runnable processes than the ${m.cpus} cores on average, counting the benchmarks' own; the CPU the benchmarked processes used is in "Where the time goes".`),
  ];
  if (results.run) {
    lines.push('', `The whole run (\`npm run bench\`) took ${formatMs(results.run.totalSeconds * 1000)} and started ${results.run.startedAt.replace('T', ' ').slice(0, 19)} UTC.`);
    const failed = results.run.benchmarks.filter((b) => b.error);
    if (failed.length) lines.push('', `Did not complete: ${failed.map((b) => `${b.name} (${b.error})`).join('; ')}.`);
  }
  return lines;
}

function targetsSection(results: BenchResults): string[] {
  const rows: string[][] = [];
  const apply = results.applyLatency;
  const targetNames = ['50 target groups live within 1.5x the bound', '200 target groups live within 2x the bound', 'at least 10x faster than the sequential baseline at 50'];
  for (const name of targetNames) {
    const t = apply?.targets.find((x) => x.name === name);
    const extrapolated = name.includes('baseline') && apply?.results.find((r) => r.targetGroups === 50)?.baselineExtrapolated;
    rows.push([name, t?.measured === null || t === undefined ? '–' : `${t.measured}x${extrapolated ? ' (baseline extrapolated)' : ''}`, t ? yesNo(t.met, t.measured) : 'not measured']);
  }
  const o = results.engineOverhead;
  rows.push([
    'median engine overhead under 15 ms per activity',
    o ? `${o.target.measuredMedianMs} ms (separate activity queue, as studyflow); ${o.studyflowDevServer.sameQueue.overheadMedianMs} ms on the workflow's own queue` : '–',
    o ? yesNo(o.target.met, o.target.measuredMedianMs) : 'not measured',
  ]);
  const buyer = results.buyerView?.versions[0];
  for (const [n, limit] of BUYER_VIEW_TARGETS) {
    const r = buyer?.rows.find((x) => x.targetGroups === n);
    rows.push([
      `studyflow apply, end to end, within ${limit}x the hand-written client at ${n} target group${n === 1 ? '' : 's'}`,
      r?.ratioToHandWritten ? `${r.ratioToHandWritten}x (${formatMs(r.studyflowMs)} against ${formatMs(r.handWrittenMs)})` : '–',
      r?.ratioToHandWritten ? yesNo(r.ratioToHandWritten <= limit, r.ratioToHandWritten) : 'not measured',
    ]);
  }
  const outside = results.outsideView;
  for (const [n, limit] of OUTSIDE_VIEW_TARGETS) {
    const r = outside?.rows.find((x) => x.targetGroups === n);
    rows.push([
      `outside view (\`studyflow dev\`, the installed command): within ${limit}x the hand-written client at ${n} target group${n === 1 ? '' : 's'}`,
      r?.ratio ? `${r.ratio}x (${formatMs(r.studyflowMs)} against ${formatMs(r.handWrittenMs)}; paired ${r.pairedRatios.map((x) => `${x}x`).join(', ')}; load ${outside!.load1Range?.map((v) => v.toFixed(1)).join('–') ?? '?'})` : '–',
      r?.ratio ? yesNo(r.ratio <= limit, r.ratio) : 'not measured',
    ]);
  }
  if (buyer?.rows.length) {
    // Job polls are counted apart: how many any client makes is the job's duration over its poll interval.
    const worst = Math.max(...buyer.rows.map((r) => Number((r.callsPerTargetGroup - (r.pollsPerTargetGroup ?? 0)).toFixed(1))));
    const polls = Math.max(...buyer.rows.map((r) => r.pollsPerTargetGroup ?? 0));
    rows.push(['at most 8 API calls per target group on a first apply (job polls apart)', `${worst} at most, plus up to ${polls} job polls`, yesNo(worst <= 8, worst)]);
    const reapplied = buyer.rows.reduce((a, r) => a + r.reapplyWrites, 0);
    rows.push(['re-applies make 0 writes', `${reapplied}`, yesNo(reapplied === 0, reapplied)]);
  }
  for (const [label, limitMs] of CLI_STARTUP_TARGETS) {
    const compiled = cliStartupVariant(results.cliStartup?.figures, label, 'compiled');
    rows.push([
      `\`studyflow ${label}\` answers in under ${limitMs} ms`,
      compiled ? `${formatMs(compiled.medianMs)} (median of ${results.cliStartup!.figures.runs} processes)` : '–',
      compiled ? yesNo(compiled.medianMs < limitMs, compiled.medianMs) : 'not measured',
    ]);
  }
  const w = results.watchScale;
  const cores = w?.cpuCores.worker;
  rows.push([
    '10,000 live target groups watched by one worker: its CPU under half a core, its API calls within the rate limit (bench/watch-scale.ts, "Cost of watching at scale")',
    w && cores !== undefined
      ? `${cores} core; ${w.apiCallsPerHour.perSecond} calls/s = ${Math.round(w.apiCallsPerHour.shareOfRateLimit * 100)}% of ${w.apiCallsPerHour.rateLimitPerSecond}/s (${(w.settings.watchedTgs ?? w.settings.tgs).toLocaleString('en-US')} live)`
      : '–',
    w && cores !== undefined ? yesNo(cores < 0.5 && w.apiCallsPerHour.perSecond <= w.apiCallsPerHour.rateLimitPerSecond && (w.settings.watchedTgs ?? w.settings.tgs) >= 10_000, cores) : 'not measured',
  ]);
  return [markdownTable(['Target', 'Measured', 'Result'], rows)];
}

/** The same targets, measured from outside (bench/outside-view.ts). */
const OUTSIDE_VIEW_TARGETS: readonly (readonly [number, number])[] = [
  [1, 1.5],
  [50, 1.5],
  [200, 2],
];

/** End-to-end targets: target groups, and the most studyflow may take against the hand-written client. */
const BUYER_VIEW_TARGETS: readonly (readonly [number, number])[] = [
  [1, 1.5],
  [50, 1.5],
  [200, 2],
];

/** Where the wall time of the first run of each size went, phase by phase (bench/timeline.ts). */
function timelineTable(rows: readonly BuyerViewRow[]): string[] {
  const timed = rows.flatMap((r) => (r.runs[0]?.timeline ? [{ n: r.targetGroups, ms: r.runs[0].ms, t: r.runs[0].timeline }] : []));
  if (!timed.length) return [];
  return [
    '',
    'Where the time goes (the first run of each size, from the sandbox\'s request log and the study workflow\'s history; the phases add up to the wall time):',
    '',
    markdownTable(
      ['Target groups', 'Start-up (node, CLI, validate, connect, update-with-start)', 'Reads before the first write', 'Project, drafts, launches', 'Launch jobs (to the last poll)', 'Settle (to the update apply waits on)', 'CLI exit', 'Wall'],
      timed.map(({ n, ms, t }) => [String(n), formatMs(t.startUpMs), formatMs(t.beforeFirstWriteMs), formatMs(t.writesMs), formatMs(t.launchJobsMs), formatMs(t.settleMs), formatMs(t.exitMs), formatMs(ms)]),
    ),
  ];
}

/** Calls per target group with the job polls among them, studyflow's and the hand-written client's. */
function callsCell(r: BuyerViewRow): string {
  const polls = (calls: number, n: number | null | undefined) => (n === null || n === undefined ? `${calls}` : `${calls} (${n} polls)`);
  const hand = r.handWrittenCallsPerTargetGroup === null ? '' : `; hand: ${polls(r.handWrittenCallsPerTargetGroup, r.handWrittenPollsPerTargetGroup)}`;
  return `${polls(r.callsPerTargetGroup, r.pollsPerTargetGroup)}${hand}`;
}

/** The headline: `studyflow apply` as its own process against the fastest hand-written client and the bound. */
function buyerViewSection(b: BuyerViewResult | undefined): string[] {
  const out = ['## Speed as a buyer sees it', ''];
  if (!b) return [...out, 'Not run.'];
  const spread = (runs: number[]) => (runs.length > 1 ? ` (${formatMs(Math.min(...runs))}–${formatMs(Math.max(...runs))})` : '');
  const [main, ...others] = b.versions;
  out.push(
    provenance(b),
    '',
    `\`studyflow apply FILE --require-live\` runs as a process of its own, timed from spawn to exit, until every target group is live. Beside it, on the same sandbox in the same run, bench/hand-written-client.mjs: the fastest client a buyer could write by hand (no Temporal, no reads before writes, every target group in parallel: one token, one project, then per target group a draft create with a feasibility check beside it, the launch, and a poll every ${b.pollMs} ms until the job is done). The sandbox answers every call after ${b.latencyMs} ms and keeps each launch job Processing for ${formatMs(b.jobMs)}. The bound is the least any client must do: ${b.boundCalls.join(' → ')}, ${b.boundCalls.length} × ${b.latencyMs} ms plus the job, **${formatMs(b.boundMs)}** at any size. Medians of ${b.runsPerSize} runs, with the fastest and slowest. Calls, history events and CPU are counted from the spawn until the worker and the Temporal server are idle again, so work the workflows do after the command returned (the watchers of target groups that went live start then) is in them; CPU is the worker's and the Temporal server's (the sandbox runs in its own process and is not counted).`,
    '',
    markdownTable(
      ['Target groups', 'Bound', 'Hand-written client', 'studyflow apply', 'vs hand-written', 'vs bound', 'Calls / TG', 'History events / TG', 'CPU / TG (worker + server)', 'Re-apply writes'],
      main.rows.map((r) => [
        String(r.targetGroups),
        formatMs(r.boundMs),
        r.handWrittenMs === null ? '–' : `${formatMs(r.handWrittenMs)}${spread(r.handWrittenRunsMs)}`,
        `${formatMs(r.studyflowMs)}${spread(r.studyflowRunsMs)}`,
        r.ratioToHandWritten === null ? '–' : `${r.ratioToHandWritten}x`,
        r.ratioToBound === null ? '–' : `${r.ratioToBound}x`,
        callsCell(r),
        String(r.historyEventsPerTargetGroup),
        `${formatMs(r.cpuMsPerTargetGroup.worker + r.cpuMsPerTargetGroup.temporalServer)} (${formatMs(r.cpuMsPerTargetGroup.worker)} + ${formatMs(r.cpuMsPerTargetGroup.temporalServer)})`,
        String(r.reapplyWrites),
      ]),
    ),
  );
  if (main.incomplete.length) out.push('', `Not measured within the time budget: ${main.incomplete.join(', ')} target groups.`);
  out.push(...timelineTable(main.rows));
  for (const other of others) {
    out.push(
      '',
      `**Compared in the same run: ${other.label}** (\`studyflow apply\` of ${other.root}, its own sandbox and worker):`,
      '',
      markdownTable(
        ['Target groups', `${other.label}`, main.label, 'change'],
        other.rows.map((r) => {
          const now = main.rows.find((m) => m.targetGroups === r.targetGroups);
          const change = now ? `${((now.studyflowMs / r.studyflowMs - 1) * 100).toFixed(0)}%` : '–';
          return [String(r.targetGroups), `${formatMs(r.studyflowMs)}${spread(r.studyflowRunsMs)}`, now ? `${formatMs(now.studyflowMs)}${spread(now.studyflowRunsMs)}` : '–', change];
        }),
      ),
    );
  }
  return out;
}

/**
 * The outside view: `studyflow dev` as a user runs it, the installed command in a second shell, the hand-written
 * client on the same sandbox, back to back in the same run (bench/outside-view.ts).
 */
export function outsideViewSection(o: OutsideViewResult | undefined): string[] {
  const out = ['## Speed as an outsider measures it', ''];
  if (!o) return [...out, 'Not run.'];
  const spread = (runs: number[]) => (runs.length > 1 ? ` (${formatMs(Math.min(...runs))}–${formatMs(Math.max(...runs))})` : '');
  const label = o.compare?.label;
  out.push(
    provenance(o),
    '',
    `\`studyflow dev\` runs as its own process, as a user starts it (the Temporal dev server with its UI, its SQLite file under .studyflow/ and its flags, the sandbox, one warm worker, payloads encrypted), with the sandbox answering every call after ${o.latencyMs} ms and keeping launch jobs Processing for ${formatMs(o.jobMs)} (its fielding simulation off, so live target groups of earlier runs stay quiet). In the same directory, as a second shell, the installed command (bin/studyflow.js through its shebang, as node_modules/.bin/studyflow runs it) applies a study with \`--require-live\`, timed from spawn to exit; bench/hand-written-client.mjs runs on the same sandbox back to back with it, the order rotating from run to run${label ? `, and so does ${label}` : ''}. Nothing of the stack runs in the benchmark's process. The 1-minute load average at the start of the runs was ${o.load1Range ? `${o.load1Range[0].toFixed(2)} to ${o.load1Range[1].toFixed(2)}` : 'not recorded'} on ${o.machine.cpus} cores. Medians of ${o.runsPerSize} runs, with the fastest and slowest; "paired" is each run's studyflow over the hand-written run beside it.`,
    '',
    markdownTable(
      ['Target groups', 'Hand-written client', 'studyflow apply', 'vs hand-written (paired)', ...(label ? [label, `${label} vs hand-written`] : []), 'First API call after spawn (hand / studyflow' + (label ? ` / ${label})` : ')')],
      o.rows.map((r) => [
        String(r.targetGroups),
        `${formatMs(r.handWrittenMs)}${spread(r.runs['hand-written'].map((x) => x.ms))}`,
        `${formatMs(r.studyflowMs)}${spread(r.runs.studyflow.map((x) => x.ms))}`,
        `${r.ratio}x (${r.pairedRatios.map((x) => `${x}x`).join(', ')})`,
        ...(label ? [`${formatMs(r.compareMs)}${spread((r.runs[label] ?? []).map((x) => x.ms))}`, r.compareRatio ? `${r.compareRatio}x` : '–'] : []),
        [r.firstCallMs.handWritten, r.firstCallMs.studyflow, ...(label ? [r.firstCallMs.compare] : [])].map((v) => formatMs(v)).join(' / '),
      ]),
    ),
  );
  if (o.incomplete.length) out.push('', `Not measured (time budget, or every run failed): ${o.incomplete.join(', ')} target groups.`);
  if (o.failures?.length) {
    // Results of an older outside-view kept stack and timeline text in their failures: one line each.
    const clean = (f: string) => f.replace(/\s*studyflow-timeline .*$/, '').replace(/\s*node:internal\S*\s+Error\.captureStackTrace\(err\);;?.*$/, ' fetch failed');
    out.push('', 'Runs that failed, left out with the other clients of the same run:', '', ...o.failures.map((f) => `- ${clean(f)}`));
  }
  // Where the CLI's own time goes (STUDYFLOW_TIMELINE), the first studyflow run of each size.
  const phases: [string, string][] = [
    ['processStart', 'Node started'],
    ['main', 'CLI entered (Node, bin, command tree)'],
    ['command-loaded', 'apply loaded (Temporal client, study format)'],
    ['validated', 'validated'],
    ['connected', 'Temporal connected'],
    ['accepted', 'update-with-start accepted'],
    ['settled', 'revision settled'],
    ['return', 'returned'],
  ];
  const timed = o.rows.filter((r) => r.runs.studyflow[0]?.phasesMs);
  if (timed.length) {
    out.push(
      '',
      'Where the CLI\'s time goes (its STUDYFLOW_TIMELINE marks, ms after the spawn, in the first run of each size; CPU is the CLI process\'s own, start to return):',
      '',
      markdownTable(
        ['Target groups', ...phases.map(([, name]) => name), 'First API call', 'Exit', 'CLI CPU'],
        timed.map((r) => {
          const run = r.runs.studyflow[0];
          return [String(r.targetGroups), ...phases.map(([key]) => formatMs(run.phasesMs?.[key])), formatMs(run.firstCallMs), formatMs(run.ms), formatMs(run.cpuMs)];
        }),
      ),
    );
  }
  return out;
}

/** Start-up targets: the command after `studyflow`, and the most its median may take. */
const CLI_STARTUP_TARGETS: readonly (readonly [string, number])[] = [
  ['--help', 150],
  ['validate examples/', 400],
];

function cliStartupVariant(figures: CliStartupFigures | undefined, label: string, build: 'compiled' | 'tsx') {
  return figures?.variants.find((v) => v.label === label && v.build === build);
}

function s3MemorySection(m: WrappedResult<S3BlobMemoryFigures> | undefined): string[] {
  const out = ['## S3 blob store: memory of a 100,000-ID list', ''];
  if (!m) return [...out, 'Not run.'];
  const f = m.figures;
  const mib = (value: number) => `${value.toFixed(1)} MiB`;
  out.push(
    provenance(m),
    '',
    `bench/s3-blob-memory.ts stores a list of ${formatNumber(f.ids)} random UUIDs (${mib(f.local.listMiB)} in canonical form, streamed in from a generator) and reads it back, in the local directory store and in the S3 store against versitygw on loopback. The figures are the peak of heap and array buffers over the baseline, sampled every 5 ms${f.gcForced ? ' after a forced GC' : ' (without --expose-gc: garbage included)'}. Both stores hold the set of distinct IDs while they normalize a list (at most ${formatNumber(f.ids)} IDs) and 64 KiB chunks on the way out; the S3 store streams the bodies of its PUT and GET, so the bound of the local store holds for it.`,
    '',
    markdownTable(
      ['Store', 'Put (normalize, digest, upload)', 'Read back (stream and hash)'],
      [
        ['local directory', mib(f.local.putPeakMiB), mib(f.local.readPeakMiB)],
        ['S3 (`STUDYFLOW_BLOB_URL=s3://…`)', mib(f.s3.putPeakMiB), mib(f.s3.readPeakMiB)],
      ],
    ),
  );
  return out;
}

function cliStartupSection(results: BenchResults): string[] {
  const out = ['## CLI start-up', ''];
  const c = results.cliStartup;
  if (!c) return [...out, 'Not run.'];
  const f = c.figures;
  const labels = [...new Set(f.variants.map((v) => v.label))];
  const cell = (v: CliStartupFigures['variants'][number] | undefined) => (v ? `${formatMs(v.medianMs)} (${formatMs(v.minMs)}–${formatMs(v.maxMs)})` : '–');
  out.push(
    provenance(c),
    '',
    `bench/cli-startup.ts starts each command ${f.runs} times as a new process and times it from spawn to exit (median, and the fastest and slowest run). "Compiled" is what the package installs: bin/studyflow.js running dist/ (\`npm run build\`). "From the sources" runs the same CLI from its TypeScript through tsx, the way bin/studyflow.js ran it before the compiled build.`,
    '',
    markdownTable(
      ['Command', 'Compiled', 'From the sources (tsx)'],
      labels.map((label) => [`\`studyflow ${label}\``, cell(cliStartupVariant(f, label, 'compiled')), cell(cliStartupVariant(f, label, 'tsx'))]),
    ),
  );
  return out;
}

/** A few sentences for a buyer, from the apply-latency figures. */
function summarySection(apply: ApplyLatencyResult | undefined): string[] {
  if (!apply || apply.results.length === 0) return [];
  const first = apply.results[0];
  const rest = apply.results.slice(1);
  const parts = [
    `**Summary.** ${first.targetGroups} target group${first.targetGroups === 1 ? ' was' : 's were'} live ${formatMs(first.timeToLiveMs)} after \`studyflow apply\` against a critical-path bound of ${formatMs(first.boundMs)} (${first.ratioToBound}x).`,
  ];
  if (rest.length) {
    parts.push(
      `Bigger studies took ${rest.map((r) => `${formatMs(r.timeToLiveMs)} for ${r.targetGroups}`).join(', ')} target groups: ` +
        (biggest(rest)!.engine.targetGroupWorkflowStartedMs.median > biggest(rest)!.timeToLiveMs
          ? `the study workflow reads the gates of new target groups beside the project, launches each from its draft batch and starts their workflows once they are live, so the engine's cost per target group${biggest(rest)?.cpu ? ` (about ${formatMs(biggest(rest)!.cpu!.enginePerTargetGroupMs)} of CPU)` : ''} comes mostly after live (see "Where the time goes"). `
          : biggest(rest)?.cpu
            ? `each target group costs the Temporal server and the worker about ${formatMs(biggest(rest)!.cpu!.enginePerTargetGroupMs)} of CPU and the study workflow records every child start one at a time, so past a few target groups the machine's ${biggest(rest)!.cpu!.cores} cores, not the API, set the pace (see "Where the time goes"). `
            : 'their target-group workflows are started through the one study workflow, whose state the server updates one change at a time (see "Where the time goes"); ') +
        `studyflow was ${rest.map((r) => `${r.speedupOverBaseline ?? '–'}x`).join(', ')} as fast as a script making the same calls one target group at a time${rest.some((r) => r.baselineExtrapolated) ? ' (the largest baseline extrapolated)' : ''}.`,
    );
  }
  const last = apply.results[apply.results.length - 1];
  const reapplyWrites = apply.results.reduce((a, r) => a + r.reapply.writes, 0);
  parts.push(
    `A first apply made ${formatNumber(last.callsPerTargetGroup, 1)} API calls per target group at ${last.targetGroups} target groups (${formatNumber(last.writes)} writes); re-applying unchanged studies made ${reapplyWrites === 0 ? 'no writes' : `${reapplyWrites} writes`}; the worker used ${apply.tokenRequestsWholeRun} token request${apply.tokenRequestsWholeRun === 1 ? '' : 's'} for everything.`,
  );
  return [parts.join(' ')];
}

/** The row with the most target groups. */
function biggest(rows: readonly ApplyLatencyRow[]): ApplyLatencyRow | undefined {
  return rows.reduce<ApplyLatencyRow | undefined>((a, r) => (!a || r.targetGroups > a.targetGroups ? r : a), undefined);
}

function chainNotes(apply: ApplyLatencyResult): string[] {
  const chain = apply.chain;
  if (!chain) return [];
  const notes: string[] = [];
  const counts = new Map<string, number>();
  for (const step of chain.steps) counts.set(step, (counts.get(step) ?? 0) + 1);
  const repeated = [...counts].filter(([, n]) => n > 1).map(([step, n]) => `\`${step}\` ${n} times`);
  if (repeated.length) notes.push(`the chain repeats ${repeated.join(', ')} (a lookup before the create: the study workflow's observe step and the idempotent create each look the project up)`);
  const feasibility = chain.steps.some((s) => s.includes('calculate-feasibility'));
  const price = chain.steps.some((s) => s.includes('generate-price-prediction'));
  if (feasibility && price) notes.push('feasibility and the price prediction do not depend on each other but run one after the other; side by side they would take one call off the chain');
  const lookups = chain.steps.filter((s) => s.startsWith('GET') && !s.includes('{job_id}') && !s.includes('generate-price-prediction')).length;
  if (lookups) notes.push(`${lookups} of the ${chain.chainCalls} calls are reads that make the apply idempotent (find what exists before creating it)`);
  return notes;
}

function applySection(apply: ApplyLatencyResult | undefined, overhead?: EngineOverheadResult, throughput?: ThroughputResult): string[] {
  const out = ['## Apply latency against the critical-path bound', ''];
  if (!apply) return [...out, 'Not run (see the run summary above).'];
  out.push(
    provenance(apply),
    '',
    `Setup: the sandbox in its own process answers every call after ${apply.latencyMs} ms and keeps every job Processing for ${apply.jobMs} ms; ` +
      'one `studyflow worker` process; `studyflow apply <file> --require-live` runs in the benchmark process against a private Temporal dev server (SQLite). ' +
      `Study files have N target groups in six locales, launch \`auto\`, ${pollScheduleText(apply)}. \`STUDYFLOW_API_RATE_LIMIT\` is raised to ${apply.apiRatePerSecond}/s ` +
      `(the default of 20 activity starts per second would be the bound for big studies; see API economy). A warm-up study${apply.warmUpTargetGroups ? ` of ${apply.warmUpTargetGroups} target groups` : ''} runs first and is not counted.` +
      (apply.repeat && apply.repeat > 1 ? ` Every size is applied ${apply.repeat} times, as fresh studies; the table shows the median run (its figures everywhere below) and lists all runs.` : ''),
    '',
    '"Live after" is from the start of `studyflow apply` until the last target group was live, as the study workflow recorded it; "CLI returned" is when the command exited (it waits on the awaitRevision update of the study workflow, which completes when the revision settles; it runs inside the benchmark process here, so its start-up is not in it: "Speed as a buyer sees it" times it as its own process).',
    '',
  );
  if (apply.chain) {
    out.push(
      '### How the bound is computed',
      '',
      `The bound is the longest chain of calls in the ${apply.chain.derivedFrom} in which each call started only after the previous one answered; ` +
        'repeated polls of one job count once (only the poll that saw the job done is needed). ' +
        `A job starts when the sandbox processes the call that creates it (${apply.latencyMs} ms after it was sent) and the poll that sees it done is processed ${apply.latencyMs} ms after it is sent, ` +
        'so each job adds max(job, latency) − latency beyond its two calls. The target groups of a bigger study are independent once the project exists, so the same chain bounds every size. ' +
        `No client can be faster against this API than: **${apply.chain.formula} = ${formatMs(apply.chain.boundMs)}**.`,
      '',
      markdownTable(['#', 'Call on the chain'], apply.chain.steps.map((s, i) => [String(i + 1), s])),
      '',
    );
    const notes = chainNotes(apply);
    if (notes.length) out.push(`The chain is studyflow's, not the least any client could do: ${notes.join('; ')}.`, '');
  }
  out.push(
    markdownTable(
      ['Target groups', 'Live after', 'Bound', 'Ratio', 'All runs', 'CLI returned', 'Sequential baseline', 'Speed-up', 'Load (1/5/15)'],
      apply.results.map((r) => [
        String(r.targetGroups),
        formatMs(r.timeToLiveMs),
        formatMs(r.boundMs),
        r.ratioToBound === null ? '–' : `${r.ratioToBound}x`,
        r.runsMs?.length ? r.runsMs.map((ms) => formatMs(ms)).join(', ') : '–',
        formatMs(r.cliReturnMs),
        r.baselineMs === null ? '–' : `${formatMs(r.baselineMs)}${r.baselineExtrapolated ? ' (extrapolated)' : ''}`,
        r.speedupOverBaseline === null ? '–' : `${r.speedupOverBaseline}x`,
        formatLoad(r.loadAverage),
      ]),
    ),
    '',
  );
  for (const i of apply.incomplete) out.push(`- ${i.targetGroups} target groups: **did not finish** — ${i.reason}.`);
  if (apply.incomplete.length) out.push('');
  out.push(
    `![Time until all target groups are live, against the bound and the sequential baseline](${APPLY_SVG_NAME})`,
    '',
    `The sequential baseline is what a buyer would otherwise write: the same activity functions (same HTTP client, same calls: project, then per target group draft, feasibility, price, launch, polls every ${apply.jobPollMs?.initial ?? 100} ms) one target group after the other, without Temporal, with its own token.`,
  );
  const extrapolated = apply.results.filter((r) => r.baselineExtrapolated).map((r) => r.targetGroups);
  if (extrapolated.length) {
    out.push(
      `For ${extrapolated.join(', ')} target groups it was **not run** (it would not fit the time budget); its time is **extrapolated** from a straight line (least squares) through the measured sizes — one target group after the other makes it linear.`,
    );
  }
  out.push('', ...engineBreakdownSection(apply, overhead, throughput));
  return out;
}

function engineBreakdownSection(apply: ApplyLatencyResult, overhead?: EngineOverheadResult, throughput?: ThroughputResult): string[] {
  const rows: readonly ApplyLatencyRow[] = apply.results;
  if (rows.length === 0) return [];
  const out = [
    '### Where the time goes',
    '',
    `From the workflow histories (server timestamps). The study workflow observes the API; it creates the project and, beside it, reads the gates of new target groups that launch automatically; its draft batches then create the drafts and launch each whose gate passed, and it awaits the launch jobs, all in batch activities of ${BATCH_SIZE}, and then starts their workflows, which settle live and watch; a target group it does not launch (a gate that holds it, an approval, an upload, a failed item) runs its gate and launch in its own workflow. "Target-group workflow started" is when the child workflow of a target group began; the other columns are medians over the target groups of the time each one spent in its own workflow, until it was live, on each kind of step. Progress signals are in flight while the target group goes on with its calls, so their time is not on its path.`,
    '',
    markdownTable(
      ['Target groups', 'TG workflow started (median / last)', 'TG start → live', 'Signals in flight', 'Activity dispatch', 'Activities running', 'Workflow tasks', 'Timers', 'Mean signal delivery'],
      rows.map((r) => {
        const e = r.engine;
        const t = e.perTargetGroupUntilLiveMs;
        return [
          String(r.targetGroups),
          `${formatMs(e.targetGroupWorkflowStartedMs.median)} / ${formatMs(e.targetGroupWorkflowStartedMs.last)}`,
          t.total < 0 ? 'live before it started' : formatMs(t.total),
          formatMs(t.signalWait),
          formatMs(t.activityDispatch),
          formatMs(t.activityRun),
          formatMs(t.workflowTask),
          formatMs(t.timer),
          formatMs(e.meanSignalWaitMs),
        ];
      }),
    ),
    '',
  ];
  const small = rows[0];
  const big = rows[rows.length - 1];
  const findings: string[] = [];
  if (big.targetGroups > 1) {
    const timeouts = big.engine.studyWorkflowTaskTimeouts;
    const stalls = (timeouts?.scheduleToStart ?? 0) + (timeouts?.startToClose ?? 0);
    const oneWorker = throughput?.results.find((r) => r.workers === 1 && !r.timedOut);
    findings.push(
      `**Fan-out through one workflow.** At ${big.targetGroups} target groups the last target-group workflow started ${formatMs(big.engine.targetGroupWorkflowStartedMs.last)} after the apply (median ${formatMs(big.engine.targetGroupWorkflowStartedMs.median)}); at ${small.targetGroups} it was ${formatMs(small.engine.targetGroupWorkflowStartedMs.last)}. ` +
        (big.engine.targetGroupWorkflowStartedMs.median > big.timeToLiveMs
          ? `All ${big.targetGroups} were live ${formatMs(big.timeToLiveMs)} after the apply, before most of their workflows started: the study launched them in batches, and starting their workflows afterwards no longer holds the launches up. `
          : `Once started, a target group took a median of ${formatMs(big.engine.perTargetGroupUntilLiveMs.total)} to go live (${formatMs(small.engine.perTargetGroupUntilLiveMs.total)} alone): the time goes into starting them. `) +
        "The study workflow starts all its children in one workflow task, but the server records every child start, and every progress signal of every child, in the study workflow's own state, one update at a time " +
        `(${formatNumber(big.engine.studyWorkflowEvents)} events in its history at ${big.targetGroups} target groups).` +
        (stalls > 0
          ? ` The study workflow also stalled on ${stalls} workflow task time-out(s) (${timeouts.scheduleToStart} not picked up from the worker's sticky queue in time, ${timeouts.startToClose} not finished in time), 10 s each, while the worker was busy with the children's first tasks.`
          : '') +
        (oneWorker
          ? ` For comparison, ${oneWorker.studies * oneWorker.targetGroupsPerStudy} target groups spread over ${oneWorker.studies} studies of ${oneWorker.targetGroupsPerStudy} (Throughput, one worker) were all live after ${formatMs(oneWorker.allLiveMs)}.`
          : ''),
    );
  }
  if (big.targetGroups > 1) {
    findings.push(
      `**Progress without waiting, paced.** A target-group workflow sends its phase to the study workflow from a sender of its own (one signal in flight, carrying the latest status; \`sendProgress\` in workflows/target-group-workflow.ts) and goes on with its next call meanwhile; a phase it passes through goes at most once a second, a phase it settles in (live) at once. ` +
        (big.engine.signalsUntilLive === 0
          ? `Before the signals that said live, the ${big.targetGroups} target groups sent none: each told its study once, that it was live.`
          : `Before the signals that said live, the ${big.targetGroups} target groups sent ${formatNumber(big.engine.signalsUntilLive)} (${formatNumber(big.engine.signalsUntilLive / big.targetGroups, 2)} each: only a target group that took longer than a second sends a phase it passes through)` +
            (big.engine.meanSignalWaitMs !== null ? `; those took ${formatMs(big.engine.meanSignalWaitMs)} to arrive, time the target groups did not wait.` : '.')),
    );
  }
  const cpuRows = rows.filter((r) => r.cpu);
  if (cpuRows.length) {
    const top = biggest(cpuRows) as ApplyLatencyRow & { cpu: NonNullable<ApplyLatencyRow['cpu']> };
    const cores = top.cpu.cores;
    const cpuOf = (r: ApplyLatencyRow, name: string) => formatMs(r.cpu?.cpuMs[name] ?? 0);
    const allowed = [
      { n: 50, ratio: 1.5 },
      { n: 200, ratio: 2 },
    ].flatMap(({ n, ratio: r }) => {
      const row = rows.find((x) => x.targetGroups === n && x.cpu);
      if (!row) return [];
      const floorMs = (n * (row.cpu?.enginePerTargetGroupMs ?? 0)) / cores;
      // Only a bound on the time to live when the engine's work comes before live (not after it).
      if (row.timeToLiveMs < floorMs || row.engine.targetGroupWorkflowStartedMs.median > row.timeToLiveMs) return [];
      return [`${n} target groups need at least ${formatMs(floorMs)} of ${cores} cores at that cost, while ${r}x the bound is ${formatMs(r * row.boundMs)} (it would allow ${formatMs((r * row.boundMs * cores) / n)} of CPU per target group)`];
    });
    findings.push(
      `**${allowed.length ? 'The machine is the limit.' : 'Where the CPU goes.'}** During the first apply of ${top.targetGroups} target groups the Temporal dev server used ${cpuOf(top, 'temporalServer')} of CPU and the worker ${cpuOf(top, 'worker')}: ` +
        `${formatMs(top.cpu.enginePerTargetGroupMs)} per target group (${cpuRows.map((r) => `${formatMs(r.cpu?.enginePerTargetGroupMs)} at ${r.targetGroups}`).join(', ')}), ${top.engine.activitiesPerTargetGroup > 0 ? `for about ${formatNumber(top.engine.activitiesPerTargetGroup)} activities, their workflow tasks, timers and signals each` : "for its own workflow (which makes no call once the study has launched it), its share of the study's batch activities, and their workflow tasks and signals"}. ` +
        `With the sandbox and the CLI, the processes used ${Math.round(top.cpu.machineShare * 100)}% of the machine's ${cores} cores over the apply (${cpuRows.map((r) => `${Math.round((r.cpu?.machineShare ?? 0) * 100)}% at ${r.targetGroups}`).join(', ')}). ` +
        (allowed.length ? `${allowed.join('; ')}. ` : '') +
        (allowed.length
          ? 'On this machine the targets would need less engine work per target group, not faster calls; how much of it one workflow per target group costs by itself is measured in "The floor of one workflow per target group".'
          : 'Most of that work now comes after the target groups are live (starting their workflows, which then watch), so it no longer bounds the time to live; "The floor of one workflow per target group" measures it by itself.'),
    );
  }
  const lateness = overhead?.studyflowDevServer?.timers.lateness.medianMs;
  if (small.engine.perTargetGroupUntilLiveMs.timer === 0) {
    findings.push(
      `**Jobs.** A job is awaited inside one activity that polls it on the study file's schedule (${pollRangeMs(apply)} ms here, from one poll's start to the next; the study awaits the launch jobs its draft batches started in \`awaitJobsBatch\`, and \`launchAndAwait\` sends a launch and waits for its job in one activity), so the ${apply.jobMs} ms launch job cost no durable timer and no poll activities on the way to live. ` +
        `At ${small.targetGroups} target group the apply made ${small.apiCalls} calls against a chain of ${apply.chain?.chainCalls ?? '?'}: the extra calls are the earlier polls of the job and the reads the chain does not need. ` +
        (lateness !== undefined ? `A job still running after a minute is polled on durable timers, which fire ${formatMs(lateness)} late on this dev server (Engine overhead).` : ''),
    );
  } else if (lateness !== undefined) {
    findings.push(
      lateness > 100
        ? `**Timers.** Job polls wait on durable timers of ${pollRangeMs(apply)} ms, but this dev server fires them ${formatMs(lateness)} late (Engine overhead), so a job done ${apply.jobMs} ms after the launch is seen about a second later.`
        : `**Timers.** Job polls wait on durable timers of ${pollRangeMs(apply)} ms, which fire on time (${formatMs(lateness)} late, Engine overhead); the ${formatMs(small.engine.perTargetGroupUntilLiveMs.timer)} of timers at ${small.targetGroups} target group is the poll schedule waiting for the ${apply.jobMs} ms job. ` +
          `At ${small.targetGroups} target group the apply made ${small.apiCalls} calls against a chain of ${apply.chain?.chainCalls ?? '?'}: the extra calls are the earlier polls of the job (and any read made after it was live).`,
    );
  }
  if (findings.length) out.push(...findings.flatMap((f) => [`- ${f}`]), '');
  return out;
}

function economySection(apply: ApplyLatencyResult | undefined): string[] {
  const out = ['## API economy', ''];
  if (!apply) return [...out, 'Not run.'];
  out.push(
    'From the sandbox request log of the same runs. Writes are calls that change state (every method but GET, except the read-only POSTs such as calculate-feasibility). ' +
      'Calls per target group include the study\'s own calls (project lookups and create) spread over its target groups and every poll of the launch jobs; the window runs from the start of `studyflow apply` until it returned.',
    '',
    markdownTable(
      ['Target groups', 'Calls (first apply)', 'Calls per TG', 'Writes', 'Token requests', 'Median call (ms, incl. latency)', 'Re-apply: calls', 'Re-apply: writes', 'Re-apply took'],
      apply.results.map((r) => [
        String(r.targetGroups),
        formatNumber(r.apiCalls),
        formatNumber(r.callsPerTargetGroup, 2),
        formatNumber(r.writes),
        formatNumber(r.tokenRequests),
        formatNumber(r.apiCallMs.medianMs, 0),
        formatNumber(r.reapply.apiCalls),
        `${r.reapply.writes}${r.reapply.writes === 0 ? ' (none, as required)' : ' (SHOULD BE 0)'}`,
        formatMs(r.reapply.wallMs),
      ]),
    ),
    '',
    `Token requests: ${apply.tokenRequestsWholeRun} for the whole benchmark (every apply and re-apply of every size); the worker fetches one token and reuses it until shortly before it expires.`,
  );
  const big = apply.results[apply.results.length - 1];
  if (big) {
    const perTg = big.engine.activitiesPerTargetGroup;
    out.push(
      '',
      `Quota: a first apply schedules about ${perTg} Demand API activities per target group (plus ${big.engine.studyWorkflowActivities} in the study workflow: observing the API, the project, the drafts ${BATCH_SIZE} to an activity). ` +
        `With studyflow's default \`STUDYFLOW_API_RATE_LIMIT\` of 20 activity starts per second, a study of ${big.targetGroups} target groups needs at least ${formatMs((big.engine.studyWorkflowActivities + perTg * big.targetGroups) * 50)} for its activities to start, whatever the latency.`,
    );
    const reapplyPerTg = big.reapply.apiCalls / big.targetGroups;
    out.push(
      '',
      `Re-apply time grows with the study: the observe step reads about ${reapplyPerTg.toFixed(1)} calls per target group, 8 target groups at a time (activities/observe-study.ts), so ${big.targetGroups} target groups take ${formatMs(big.reapply.wallMs)} to re-apply with no change ` +
        `(${formatMs((reapplyPerTg * big.targetGroups * apply.latencyMs) / 8)} of it is ${apply.latencyMs} ms calls, 8 at a time).`,
    );
  }
  return out;
}

function overheadSection(o: EngineOverheadResult | undefined): string[] {
  const out = ['## Engine overhead per activity', ''];
  if (!o) return [...out, 'Not run.'];
  const row = (server: string, label: string, v: OverheadVariant) => [
    server,
    label,
    String(v.activities),
    `${v.perActivity.medianMs} / ${v.perActivity.p95Ms}`,
    `${v.overheadMedianMs} / ${v.overheadP95Ms}`,
    `${v.dispatch.medianMs}`,
    `${v.run.medianMs}`,
    `${v.decide.medianMs}`,
  ];
  const ours = o.studyflowDevServer;
  const defaults = o.temporalDefaults;
  const config = Object.entries(ours.dynamicConfig).map(([k, v]) => `\`${k}=${JSON.stringify(v)}\``).join(', ');
  const pragmas = ours.sqlitePragmas?.length ? ` and SQLite ${ours.sqlitePragmas.map((p) => `\`${p}\``).join(', ')}` : '';
  out.push(
    provenance(o),
    '',
    'A fixture workflow (bench/fixtures/overhead-workflows.ts) calls one cheap activity N times in sequence on a private dev server; the same function called directly costs ' +
      `${o.directCall.meanUsOver10000Calls} µs on average. Per activity = from one ActivityTaskScheduled event to the next (dispatch to a worker, run, report, the workflow task that schedules the next); overhead = that minus the direct call. ` +
      `First on a dev server as studyflow starts it (dev/temporal-dev-server.ts sets ${config}${pragmas}), then on one with Temporal's default settings.`,
    '',
    markdownTable(['Dev server', 'Activity on', 'Activities', 'Per activity median / p95 (ms)', 'Overhead median / p95 (ms)', 'Dispatch median (ms)', 'Run median (ms)', 'Workflow task median (ms)'], [
      row('studyflow settings', "a separate queue (as studyflow's Demand API activities)", ours.separateQueue),
      row('studyflow settings', "the workflow's own queue (eager dispatch allowed)", ours.sameQueue),
      row('Temporal defaults', 'a separate queue', defaults.separateQueue),
      row('Temporal defaults', "the workflow's own queue", defaults.sameQueue),
    ]),
    '',
    markdownTable(['Dev server', `${ours.timers.count} sequential timers of ${ours.timers.requestedMs} ms: late by, median / p95`], [
      ['studyflow settings', `${formatMs(ours.timers.lateness.medianMs)} / ${formatMs(ours.timers.lateness.p95Ms)}`],
      ['Temporal defaults', `${formatMs(defaults.timers.lateness.medianMs)} / ${formatMs(defaults.timers.lateness.p95Ms)}`],
    ]),
    '',
    'With its defaults the server reads its transfer queue (the hand-off of every new activity and workflow task) at most 20 times a second ' +
      '(`history.transferProcessorMaxPollRPS`) and never fires a timer less than a second after creating it (`history.timerProcessorMaxTimeShift`): ' +
      `here a sequential workflow step cost about ${Math.round(defaults.separateQueue.perActivity.medianMs)} ms and a ${defaults.timers.requestedMs} ms timer fired ${formatMs(defaults.timers.lateness.medianMs)} late. ` +
      "Those defaults suit a cluster of many hosts; studyflow's dev server (`studyflow dev`, the tests, these benchmarks) overrides them. " +
      'It also lets a task wait up to 10 s for a busy workflow (`history.cacheNonUserContextLockTimeout`, 500 ms by default, after which the task backs off for seconds: child starts queue on the study workflow) ' +
      'and keeps SQLite in write-ahead-log mode synced at checkpoints rather than on every commit (a killed server loses nothing; a lost machine may lose its last commits). ' +
      'A Temporal cluster you run yourself keeps the defaults unless its operator changes them.',
  );
  return out;
}

function throughputSection(t: ThroughputResult | undefined): string[] {
  const out = ['## Throughput: studies per minute', ''];
  if (!t) return [...out, 'Not run.'];
  out.push(
    provenance(t),
    '',
    `Each round applies fresh studies of ${t.results[0]?.targetGroupsPerStudy ?? '?'} target groups at once (\`studyflow apply <dir> --require-live\`), same sandbox settings (${t.latencyMs} ms per call, ${t.jobMs} ms jobs). First with one \`studyflow worker\` process, then a second one joins.`,
    '',
    markdownTable(
      ['Workers', 'Studies', 'All live after', 'Studies / min', 'Target groups / min', 'API calls', 'Load (1/5/15)'],
      t.results.map((r) => [
        String(r.workers),
        r.timedOut ? `${r.studiesLive} of ${r.studies} (time limit)` : String(r.studies),
        formatMs(r.allLiveMs),
        formatNumber(r.studiesPerMinute, 1),
        formatNumber(r.targetGroupsPerMinute, 1),
        formatNumber(r.apiCalls),
        formatLoad(r.loadAverage),
      ]),
    ),
    '',
    `Two workers over one: ${t.scaling}x. On a 2-core machine the workers share the cores with the Temporal server, the sandbox and any other processes, so a second worker process adds little CPU; the shared study-workflow hot spot (see above) does not apply here, as each study has its own.`,
  );
  return out;
}

function validationSection(v: ValidationResult | undefined): string[] {
  const out = ['## Validation throughput', ''];
  if (!v) return [...out, 'Not run.'];
  out.push(
    provenance(v),
    '',
    markdownTable(['What', 'Size', 'Median time', 'Runs', 'Throughput'], [
      [
        '`loadStudies` on a directory of study files (parse, schema, rules, cross-file checks)',
        `${v.studyFiles.files} files × ${v.studyFiles.targetGroupsPerFile} target groups (${formatBytes(v.studyFiles.totalBytes)})`,
        formatMs(v.studyFiles.medianMs),
        v.studyFiles.runsMs.map((ms) => formatMs(ms)).join(', '),
        `${formatNumber(v.studyFiles.filesPerSecond)} files/s`,
      ],
      [
        '`checkIdListFile` on an ID list',
        `${formatNumber(v.idList.lines)} lines of ${v.idList.kind} (${formatBytes(v.idList.bytes)})`,
        formatMs(v.idList.medianMs),
        v.idList.runsMs.map((ms) => formatMs(ms)).join(', '),
        `${formatNumber(v.idList.linesPerSecond)} lines/s`,
      ],
    ]),
    '',
    'The first run includes compiling the code paths (JIT); the median is of all runs.',
  );
  return out;
}

function uploadSection(results: BenchResults): string[] {
  const out = ['## 100,000-ID upload', ''];
  const u = results.upload;
  if (!u) return [...out, 'Not run.'];
  const f = u.figures;
  out.push(
    provenance(u),
    '',
    'bench/upload-100k.ts streams a list of 100,000 ACCESS_RESPONDENT_GUIDs to the sandbox (in its own process) through the upload activity and samples, after forced GCs, what the uploading process retains.',
    '',
    markdownTable(['IDs', 'File', 'Upload', 'Until the job was done', 'Job', 'Remote digest matches', 'Peak extra retained', 'Peak extra RSS'], [
      [
        formatNumber(f.ids),
        formatBytes(f.file_bytes),
        formatMs(f.upload_ms),
        formatMs(f.until_job_done_ms),
        f.job_status,
        f.remote_digest_matches ? 'yes' : 'NO',
        `${formatBytes(f.peak_extra_retained_bytes)}${f.gc_exposed ? '' : ' (no --expose-gc)'}`,
        formatBytes(f.peak_extra_rss_bytes),
      ],
    ]),
  );
  return out;
}

function webhookSection(results: BenchResults): string[] {
  const out = ['## Webhook receiver', ''];
  const w = results.webhook;
  if (!w) return [...out, 'Not run.'];
  const f = w.figures;
  out.push(
    provenance(w),
    '',
    'bench/webhook-receiver.ts sends signed deliveries (half gzip) over keep-alive connections to the receiver, whose handler does a trivial await; latency is per delivery, until the 202.',
    '',
    markdownTable(['Deliveries', 'Took', 'Deliveries / s', 'p50', 'p95', 'RSS'], [
      [formatNumber(f.deliveries), formatMs(f.seconds * 1000), formatNumber(f.perSecond), `${f.p50Ms} ms`, `${f.p95Ms} ms`, `${f.rssMb} MB`],
    ]),
  );
  return out;
}

/** docs/benchmarks.md from the results. */
export function renderMarkdown(results: BenchResults): string {
  const sections = [
    ['# Benchmarks', '', '> Generated by `npm run bench` (bench/run-all.ts, then bench/report.ts) from the JSON in bench/out/. Do not edit by hand: run `npm run bench` again.', ''],
    machineSection(results),
    ['', ...buyerViewSection(results.buyerView)],
    ['', ...outsideViewSection(results.outsideView)],
    ['', '## Targets', '', 'Reported as measured; a target that is not met says so.', '', ...targetsSection(results), '', ...summarySection(results.applyLatency)],
    ['', ...applySection(results.applyLatency, results.engineOverhead, results.throughput)],
    ['', ...floorSection(results.fanOutFloor, results.applyLatency)],
    ['', ...economySection(results.applyLatency)],
    ['', ...overheadSection(results.engineOverhead)],
    ['', ...throughputSection(results.throughput)],
    ['', ...validationSection(results.validation)],
    ['', ...uploadSection(results)],
    ['', ...webhookSection(results)],
    ['', ...s3MemorySection(results.s3BlobMemory)],
    ['', ...cliStartupSection(results)],
  ];
  return `${sections.flat().join('\n').replace(/\n{3,}/g, '\n\n')}\n`;
}

// ---------------------------------------------------------------------------------------------
// The floor of the design

/** The least time a target group needs after its workflow starts: the bound's calls after its draft. */
function afterDraftMs(apply: ApplyLatencyResult | undefined): number | undefined {
  const chain = apply?.chain;
  if (!apply || !chain) return undefined;
  const draft = chain.steps.lastIndexOf('POST …/projects/{project_id}/target-groups');
  return draft < 0 ? undefined : chain.boundMs - apply.latencyMs * (draft + 1);
}

interface FloorVerdict {
  targetGroups: number;
  ratio: number;
  /** What the target allows. */
  budgetMs: number;
  /** The least any implementation with one workflow per target group needs here. */
  floorMs: number;
  /** How floorMs follows from the measurements. */
  how: string;
}

/** For each size target, the least time one workflow per target group allows on this machine. */
function floorVerdicts(apply: ApplyLatencyResult | undefined, floor: FanOutFloorResult | undefined): FloorVerdict[] {
  const tail = afterDraftMs(apply);
  if (!apply?.chain || !floor || tail === undefined) return [];
  const boundMs = apply.chain.boundMs;
  return [
    { n: 50, ratio: 1.5 },
    { n: 200, ratio: 2 },
  ].flatMap(({ n, ratio }) => {
    const row = floor.results.find((r) => r.children === n);
    if (!row) return [];
    const floorMs = Math.max(row.wallMs, row.lastChildStartedMs + tail);
    const how =
      floorMs === row.wallMs
        ? `${n} children that make no API call took ${formatMs(row.wallMs)} to report`
        : `the last of ${n} children started ${formatMs(row.lastChildStartedMs)} after its parent, and a target group needs ${formatMs(tail)} after its workflow starts (the calls of the bound after its draft)`;
    return [{ targetGroups: n, ratio, budgetMs: ratio * boundMs, floorMs, how }];
  });
}

function floorSection(floor: FanOutFloorResult | undefined, apply: ApplyLatencyResult | undefined): string[] {
  const out = ['## The floor of one workflow per target group', ''];
  if (!floor) return [...out, 'Not run (see the run summary above).'];
  out.push(
    provenance(floor),
    '',
    'studyflow runs one child workflow per target group (DESIGN.md): each has its own retries, progress, search attributes and steering in the Temporal UI. bench/fan-out-floor.ts measures what that costs this machine before any API call: a parent workflow starts N children together; each runs one cheap activity on a separate task queue (where the Demand API activities run), signals the parent once and stays open (bench/fixtures/fan-out-workflows.ts), on a private dev server with studyflow\'s settings and one worker. No latency, no job, no study logic: less than any target group does.',
    '',
    markdownTable(
      ['Children', 'All reported after', 'Last child started', 'Parent history events', 'CPU: Temporal server', 'CPU: worker and client', 'CPU per child', 'Machine used'],
      floor.results.map((r) => [
        String(r.children),
        formatMs(r.wallMs),
        formatMs(r.lastChildStartedMs),
        formatNumber(r.parentEvents),
        formatMs(r.cpuMs.temporalServer),
        formatMs(r.cpuMs.workerAndClient),
        formatMs(r.cpuPerChildMs),
        `${Math.round(r.machineShare * 100)}%`,
      ]),
    ),
    '',
  );
  const big = floor.results.reduce<FanOutFloorRow | undefined>((a, r) => (!a || r.children > a.children ? r : a), undefined);
  const studyflow = biggest(apply?.results ?? []);
  const verdicts = floorVerdicts(apply, floor);
  const findings: string[] = [];
  if (big) {
    findings.push(
      `At ${big.children} children the engine alone kept ${Math.round(big.machineShare * 100)}% of the ${floor.machine.cpus} cores busy for ${formatMs(big.wallMs)}, ${formatMs(big.cpuPerChildMs)} of CPU per child` +
        (studyflow?.cpu
          ? `; a studyflow target group, with ${studyflow.engine.activitiesPerTargetGroup > 0 ? `its ${formatNumber(studyflow.engine.activitiesPerTargetGroup)} Demand API activities and its share of the study's batches` : "its share of the study's batch activities (its own workflow makes no call once the study has launched it)"}, their workflow tasks, its progress signal and search attributes, cost ${formatMs(studyflow.cpu.enginePerTargetGroupMs)} at ${studyflow.targetGroups} ("Where the time goes").`
          : '.'),
    );
  }
  for (const v of verdicts) {
    findings.push(
      `${v.targetGroups} target groups within ${v.ratio}x the bound means ${formatMs(v.budgetMs)}; here ${v.how}, so target groups that launch from their own workflows are live no sooner than ${formatMs(v.floorMs)} (${formatNumber(v.floorMs / (v.budgetMs / v.ratio), 2)}x the bound)` +
        (v.floorMs > v.budgetMs ? ': out of reach on this machine while each launch runs in its target group\'s own workflow.' : ', within the target.'),
    );
  }
  if (verdicts.some((v) => v.floorMs > v.budgetMs)) {
    findings.push(
      `This is why the study workflow reads the gates of new target groups that launch automatically and launches them itself, in batch activities of ${BATCH_SIZE} (from their draft batches, patches \`launch-batch-v1\`, \`early-gates-v1\`, \`draft-launch-v1\` and \`batch-size-50\`), and starts their workflows once they are live: for them the floor comes after live. A target group that needs its own workflow first (a gate that holds it, an approval, an upload, a failed launch) still runs its gate and launch there, with its own retries, progress and steering, and meets this floor.`,
    );
  }
  out.push(...findings.map((f) => `- ${f}`), '');
  return out;
}

// ---------------------------------------------------------------------------------------------
// Chart

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** Log-scale axis from the power of ten at or below `min` to the one at or above `max`. */
export function logAxis(min: number, max: number, pixels: number): { lo: number; hi: number; y: (v: number) => number; ticks: number[] } {
  const lo = 10 ** Math.floor(Math.log10(Math.max(1, min)));
  const hi = 10 ** Math.ceil(Math.log10(Math.max(lo * 10, max)));
  const span = Math.log10(hi) - Math.log10(lo);
  const y = (v: number) => pixels - ((Math.log10(Math.max(v, lo)) - Math.log10(lo)) / span) * pixels;
  const ticks: number[] = [];
  for (let t = lo; t <= hi; t *= 10) ticks.push(t);
  return { lo, hi, y, ticks };
}

function tickLabel(ms: number): string {
  return ms >= 1000 ? `${ms / 1000} s` : `${ms} ms`;
}

const SERIES = [
  { key: 'bound', label: 'Critical-path bound', color: '#9e9e9e' },
  { key: 'studyflow', label: 'studyflow: all live', color: '#1f77b4' },
  { key: 'baseline', label: 'Sequential baseline', color: '#ff7f0e' },
] as const;

/** docs/benchmarks-apply.svg: per study size, the bound, studyflow's time and the baseline's, on a log scale. */
export function renderApplySvg(apply: ApplyLatencyResult): string {
  const width = 760;
  const height = 420;
  const margin = { left: 80, right: 20, top: 70, bottom: 60 };
  const plotW = width - margin.left - margin.right;
  const plotH = height - margin.top - margin.bottom;
  const sizes = [...new Set([...apply.results.map((r) => r.targetGroups), ...apply.incomplete.map((i) => i.targetGroups)])].sort((a, b) => a - b);
  const values = apply.results.flatMap((r) => [r.boundMs, r.timeToLiveMs, r.baselineMs ?? r.timeToLiveMs]);
  const axis = logAxis(values.length ? Math.min(...values) : 100, values.length ? Math.max(...values) : 1000, plotH);
  const group = plotW / Math.max(1, sizes.length);
  const barW = Math.min(44, (group * 0.8) / SERIES.length);
  const parts: string[] = [];
  parts.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="12">`,
    '<title>Time until all target groups are live</title>',
    `<desc>${escapeXml(`studyflow against the critical-path bound (${apply.latencyMs} ms per call, ${apply.jobMs} ms jobs) and a sequential baseline; log scale. ${apply.command}`)}</desc>`,
    `<rect x="0" y="0" width="${width}" height="${height}" fill="#ffffff"/>`,
    `<text x="${width / 2}" y="22" text-anchor="middle" font-size="15" font-weight="bold">Time until all target groups are live (log scale)</text>`,
  );
  SERIES.forEach((s, i) => {
    const x = margin.left + i * 190;
    parts.push(`<rect x="${x}" y="36" width="14" height="14" fill="${s.color}"/>`, `<text x="${x + 20}" y="48">${escapeXml(s.label)}</text>`);
  });
  parts.push(`<g transform="translate(${margin.left},${margin.top})">`);
  for (const t of axis.ticks) {
    const y = axis.y(t).toFixed(1);
    parts.push(`<line x1="0" x2="${plotW}" y1="${y}" y2="${y}" stroke="#e0e0e0"/>`, `<text x="-8" y="${y}" text-anchor="end" dominant-baseline="middle">${tickLabel(t)}</text>`);
  }
  parts.push(`<line x1="0" x2="0" y1="0" y2="${plotH}" stroke="#555"/>`, `<line x1="0" x2="${plotW}" y1="${plotH}" y2="${plotH}" stroke="#555"/>`);
  sizes.forEach((n, gi) => {
    const row = apply.results.find((r) => r.targetGroups === n);
    const cx = gi * group + group / 2;
    parts.push(`<text x="${cx.toFixed(1)}" y="${plotH + 20}" text-anchor="middle">${n} target group${n === 1 ? '' : 's'}</text>`);
    if (!row) {
      parts.push(`<text class="incomplete" x="${cx.toFixed(1)}" y="${(plotH / 2).toFixed(1)}" text-anchor="middle" fill="#c62828">did not finish</text>`);
      return;
    }
    const bars: { key: string; value: number | null; extrapolated?: boolean }[] = [
      { key: 'bound', value: row.boundMs },
      { key: 'studyflow', value: row.timeToLiveMs },
      { key: 'baseline', value: row.baselineMs, extrapolated: row.baselineExtrapolated },
    ];
    bars.forEach((b, bi) => {
      if (b.value === null) return;
      const series = SERIES.find((s) => s.key === b.key)!;
      const x = cx - (SERIES.length * barW) / 2 + bi * barW;
      const y = axis.y(b.value);
      const style = b.extrapolated ? ` fill-opacity="0.35" stroke="${series.color}" stroke-dasharray="4 3"` : '';
      parts.push(
        `<rect class="bar-${b.key}" data-ms="${Math.round(b.value)}" x="${x.toFixed(1)}" y="${y.toFixed(1)}" width="${(barW - 2).toFixed(1)}" height="${(plotH - y).toFixed(1)}" fill="${series.color}"${style}>` +
          `<title>${escapeXml(`${series.label}, ${n} target groups: ${formatMs(b.value)}${b.extrapolated ? ' (extrapolated)' : ''}`)}</title></rect>`,
        `<text x="${(x + (barW - 2) / 2).toFixed(1)}" y="${(y - 4).toFixed(1)}" text-anchor="middle" font-size="10">${escapeXml(formatMs(b.value))}${b.extrapolated ? '*' : ''}</text>`,
      );
    });
  });
  parts.push('</g>');
  const footnote = apply.results.some((r) => r.baselineExtrapolated) ? '* extrapolated, not run. ' : '';
  parts.push(
    `<text x="${margin.left}" y="${height - 14}" font-size="11" fill="#555">${escapeXml(`${footnote}Sandbox: ${apply.latencyMs} ms per call, ${apply.jobMs} ms jobs. ${apply.startedAt.slice(0, 10)}, load ${formatLoad(apply.loadAverageAtStart)}.`)}</text>`,
    '</svg>',
  );
  return `${parts.join('\n')}\n`;
}

// ---------------------------------------------------------------------------------------------
// Files

function readJson<T>(file: string): T | undefined {
  return fs.existsSync(file) ? (JSON.parse(fs.readFileSync(file, 'utf8')) as T) : undefined;
}

/** The results in `outDir` (bench/out): whatever benchmarks wrote. */
export function loadResults(outDir: string): BenchResults {
  const at = (name: string) => path.join(outDir, `${name}.json`);
  return {
    applyLatency: readJson(at('apply-latency')),
    fanOutFloor: readJson(at('fan-out-floor')),
    engineOverhead: readJson(at('engine-overhead')),
    throughput: readJson(at('throughput')),
    validation: readJson(at('validation')),
    upload: readJson(at('upload-100k')),
    webhook: readJson(at('webhook-receiver')),
    cliStartup: readJson(at('cli-startup')),
    buyerView: readJson(at('buyer-view')),
    outsideView: readJson(at('outside-view')),
    s3BlobMemory: readJson(at('s3-blob-memory')),
    watchScale: readJson(at('watch-scale-after-10000')),
    run: readJson(at('run-all')),
  };
}

/** The heading from which docs/benchmarks.md is written by hand (bench/watch-scale.ts runs apart: about 45 minutes at 10,000). */
export const HAND_WRITTEN_HEADING = '## Cost of watching at scale';

/** The hand-written sections of the existing file, from HAND_WRITTEN_HEADING to its end (kept as they are), or nothing. */
export function handWrittenTail(file: string): string {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return '';
  }
  const at = text.indexOf(`\n${HAND_WRITTEN_HEADING}\n`);
  return at < 0 ? '' : `\n${text.slice(at + 1)}`;
}

/** Writes docs/benchmarks.md (and the chart when apply-latency ran); returns the files written. */
export function writeReport(outDir: string, docsDir = path.join(REPO_ROOT, 'docs')): string[] {
  const results = loadResults(outDir);
  const written: string[] = [];
  const md = path.join(docsDir, 'benchmarks.md');
  fs.writeFileSync(md, renderMarkdown(results) + handWrittenTail(md));
  written.push(md);
  if (results.applyLatency) {
    const svg = path.join(docsDir, APPLY_SVG_NAME);
    fs.writeFileSync(svg, renderApplySvg(results.applyLatency));
    written.push(svg);
  }
  return written;
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  const files = writeReport(path.join(REPO_ROOT, 'bench', 'out'));
  process.stdout.write(`wrote ${files.map((f) => path.relative(REPO_ROOT, f)).join(', ')}\n`);
}
