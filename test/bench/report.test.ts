import { describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { formatMs, handWrittenTail, logAxis, markdownTable, renderApplySvg, renderMarkdown, HAND_WRITTEN_HEADING } from '../../bench/report';
import type { ApplyLatencyResult, ApplyLatencyRow, BenchResults, EngineOverheadResult, FanOutFloorResult } from '../../bench/result-types';

const machine = { cpus: 2, cpuModel: 'Test CPU', memoryGiB: 8, node: 'v20.0.0', platform: 'linux test' };
const header = (benchmark: string, command: string, load: [number, number, number]) => ({
  benchmark,
  command,
  machine,
  startedAt: '2026-01-02T03:04:05.000Z',
  loadAverageAtStart: load,
});
const dist = (median: number) => ({ count: 10, medianMs: median, p95Ms: median * 2, minMs: 1, maxMs: median * 3, meanMs: median });

function row(n: number, live: number, baseline: number | null, extrapolated = false): ApplyLatencyRow {
  return {
    targetGroups: n,
    loadAverage: [1.5, 1.25, 1],
    timeToLiveMs: live,
    runsMs: [live + 40, live, live + 90],
    cliReturnMs: live + 300,
    boundMs: 950,
    ratioToBound: Number((live / 950).toFixed(2)),
    baselineMs: baseline,
    baselineExtrapolated: extrapolated,
    speedupOverBaseline: baseline === null ? null : Number((baseline / live).toFixed(1)),
    apiCalls: n * 10,
    callsPerTargetGroup: 10,
    writes: n * 2 + 1,
    tokenRequests: 0,
    apiCallMs: dist(51),
    engine: {
      studyWorkflowActivities: n + 2,
      studyWorkflowEvents: 50 * n,
      studyWorkflowTaskTimeouts: { scheduleToStart: n > 10 ? 1 : 0, startToClose: 0 },
      activitiesPerTargetGroup: 7,
      targetGroupWorkflowStartedMs: { median: 400 * n, last: 500 * n },
      perTargetGroupUntilLiveMs: { total: 1000, signalWait: 10 * n, activityDispatch: 30, activityRun: 400, workflowTask: 200, timer: 250 },
      signalsUntilLive: 3 * n,
      meanSignalWaitMs: 5 * n,
    },
    cpu: { cpuMs: { temporalServer: 100 * n, worker: 50 * n, sandbox: 10 * n, benchmark: 5 }, wallMs: live, cores: 2, machineShare: n > 1 ? 0.8 : 0.2, enginePerTargetGroupMs: 150 },
    reapply: { wallMs: 100 * n, apiCalls: 2 * n + 1, writes: 0 },
  };
}

const applyLatency: ApplyLatencyResult = {
  ...header('apply-latency', 'node bin/run-ts.js bench/apply-latency.ts --sizes 1,50,200', [3.5, 2.25, 1.75]),
  benchmark: 'apply-latency',
  latencyMs: 50,
  jobMs: 500,
  jobPollMs: { initial: 50, max: 100 },
  repeat: 3,
  warmUpTargetGroups: 10,
  apiRatePerSecond: 1000,
  budgetS: 290,
  tokenRequestsWholeRun: 1,
  chain: {
    derivedFrom: 'sandbox request log of the 1-target-group first apply',
    steps: ['GET …/projects', 'GET …/projects', 'POST …/projects', 'POST …/target-groups/calculate-feasibility', 'GET …/business-units/{business_unit_id}/generate-price-prediction', 'GET …/x/{job_id} (last of 2 polls)'],
    chainCalls: 6,
    jobs: 1,
    formula: '6 x 50 ms + 1 x (max(500, 50) - 50) ms',
    boundMs: 750,
  },
  results: [row(1, 1400, 1000), row(50, 5000, 45_000)],
  incomplete: [{ targetGroups: 200, timedOutAfterMs: 120_000, liveTargetGroups: 150, reason: '150 of 200 live when the 120 s left of the budget ran out' }],
  targets: [
    { name: '50 target groups live within 1.5x the bound', measured: 5.26, limit: 1.5, met: false },
    { name: '200 target groups live within 2x the bound', measured: null, limit: 2, met: false },
    { name: 'at least 10x faster than the sequential baseline at 50', measured: 9, limit: 10, met: false },
  ],
};

const variant = (median: number) => ({ taskQueue: 'q', activities: 100, wallMs: median * 100, wallPerActivityMs: median, perActivity: dist(median), dispatch: dist(2), run: dist(3), decide: dist(9), overheadMedianMs: median, overheadP95Ms: median * 2 });
const engineOverhead: EngineOverheadResult = {
  ...header('engine-overhead', 'node bin/run-ts.js bench/engine-overhead.ts --calls 100', [0.5, 0.5, 0.5]),
  benchmark: 'engine-overhead',
  directCall: { ...dist(0), meanUsOver10000Calls: 0.4 },
  studyflowDevServer: {
    dynamicConfig: { 'history.transferProcessorMaxPollRPS': 1000, 'history.timerProcessorMaxTimeShift': '10ms' },
    sameQueue: variant(14),
    separateQueue: variant(12.5),
    timers: { count: 10, requestedMs: 100, lateness: dist(2) },
  },
  temporalDefaults: { dynamicConfig: {}, sameQueue: variant(99), separateQueue: variant(101), timers: { count: 10, requestedMs: 100, lateness: dist(880) } },
  target: { medianOverheadBelowMs: 15, measuredMedianMs: 12.5, met: true },
};

const results: BenchResults = {
  applyLatency,
  engineOverhead,
  run: {
    startedAt: '2026-01-02T03:00:00.000Z',
    totalSeconds: 480.5,
    benchmarks: [
      { name: 'apply-latency', command: 'x', seconds: 300, exitCode: 0 },
      { name: 'throughput', command: 'y', seconds: 150, exitCode: null, error: 'stopped after its 150 s limit' },
    ],
  },
};

describe('formatting', () => {
  it('shows ms below ten seconds and seconds above, a dash for nothing', () => {
    expect(formatMs(1234.4)).toBe('1,234 ms');
    expect(formatMs(12_345)).toBe('12.3 s');
    expect(formatMs(null)).toBe('–');
  });

  it('builds a Markdown table and escapes pipes', () => {
    expect(markdownTable(['a', 'b'], [['1', 'x|y']])).toBe('| a | b |\n| --- | --- |\n| 1 | x\\|y |');
  });
});

describe('renderMarkdown', () => {
  const md = renderMarkdown(results);

  it('states the machine, the shared-machine caveat with the load range, and what did not complete', () => {
    expect(md).toContain('Machine: 2 cores (Test CPU), 8 GiB memory, Node v20.0.0, linux test.');
    expect(md).toContain('the 1-minute load ranged from 0.50 to 3.50');
    expect(md).toContain('Did not complete: throughput (stopped after its 150 s limit).');
  });

  it('reports each target as measured, including the ones not met or not measured', () => {
    expect(md).toContain('| 50 target groups live within 1.5x the bound | 5.26x | NOT met |');
    expect(md).toContain('| 200 target groups live within 2x the bound | – | not measured |');
    expect(md).toContain('| at least 10x faster than the sequential baseline at 50 | 9x | NOT met |');
    expect(md).toMatch(/\| median engine overhead under 15 ms per activity \| 12\.5 ms .* \| met \|/);
  });

  it('sums up for a buyer: time to live against the bound, bigger studies, calls and re-apply writes', () => {
    expect(md).toContain('**Summary.** 1 target group was live 1,400 ms after `studyflow apply` against a critical-path bound of 950 ms (1.47x).');
    expect(md).toContain('Bigger studies took 5,000 ms for 50 target groups');
    expect(md).toContain("the study workflow reads the gates of new target groups beside the project, launches each from its draft batch and starts their workflows once they are live, so the engine's cost per target group (about 150 ms of CPU) comes mostly after live");
    expect(md).toContain('studyflow was 9x as fast as a script making the same calls one target group at a time.');
    expect(md).toContain('A first apply made 10.0 API calls per target group at 50 target groups (101 writes); re-applying unchanged studies made no writes; the worker used 1 token request for everything.');
  });

  it('calls the CPU no limit when it came after live (the engine work exceeds the time to live)', () => {
    const fast = { ...applyLatency, results: [row(1, 1400, 1000), row(50, 1300, 45_000)] };
    const fastMd = renderMarkdown({ ...results, applyLatency: fast });
    expect(fastMd).toContain('**Where the CPU goes.**');
    expect(fastMd).toContain('Most of that work now comes after the target groups are live');
    expect(fastMd).not.toContain('need at least');
  });

  it('says when the machine is the limit: engine CPU per target group against what the targets allow', () => {
    expect(md).toContain('the Temporal dev server used 5,000 ms of CPU and the worker 2,500 ms: 150 ms per target group (150 ms at 1, 150 ms at 50)');
    expect(md).toContain("the processes used 80% of the machine's 2 cores over the apply (20% at 1, 80% at 50)");
    // Only when the target groups' workflows started before they were live does their CPU bound the time.
    expect(md).not.toContain('need at least');
    const early = (n: number, live: number) => ({ ...row(n, live, null), engine: { ...row(n, live, null).engine, targetGroupWorkflowStartedMs: { median: 100, last: 200 } } });
    const earlyMd = renderMarkdown({ ...results, applyLatency: { ...applyLatency, results: [early(1, 1400), early(50, 5000)] } });
    expect(earlyMd).toContain('**The machine is the limit.**');
    expect(earlyMd).toContain('50 target groups need at least 3,750 ms of 2 cores at that cost, while 1.5x the bound is 1,425 ms (it would allow 57 ms of CPU per target group)');
  });

  it('says when the target groups were live before most of their workflows started (the study launched them)', () => {
    expect(md).toContain('All 50 were live 5,000 ms after the apply, before most of their workflows started: the study launched them in batches');
    const late = { ...applyLatency, results: [row(1, 1400, 1000), { ...row(50, 5000, 45_000), engine: { ...row(50, 5000, 45_000).engine, targetGroupWorkflowStartedMs: { median: 900, last: 1200 } } }] };
    const lateMd = renderMarkdown({ ...results, applyLatency: late });
    expect(lateMd).toContain('Once started, a target group took a median of 1,000 ms to go live');
    expect(lateMd).toContain('each target group costs the Temporal server and the worker about 150 ms of CPU');
  });

  it('counts the progress signals sent before live, which pacing keeps to slow target groups', () => {
    expect(md).toContain('Before the signals that said live, the 50 target groups sent 150 (3.00 each: only a target group that took longer than a second sends a phase it passes through); those took 250 ms to arrive, time the target groups did not wait.');
  });

  it('has a row per size with the exact command and the load, and the chain the bound comes from', () => {
    expect(md).toContain('Command: `node bin/run-ts.js bench/apply-latency.ts --sizes 1,50,200`');
    expect(md).toContain('Run: 2026-01-02 03:04:05 UTC on 2 cores (Test CPU), 8 GiB, Node v20.0.0; load average at start 3.50 / 2.25 / 1.75 (1 / 5 / 15 min).');
    expect(md).toContain('| 50 | 5,000 ms | 950 ms | 5.26x | 5,040 ms, 5,000 ms, 5,090 ms | 5,300 ms | 45.0 s | 9x | 1.50 / 1.25 / 1.00 |');
    expect(md).toContain('job polls at once, then 50 ms after the previous poll started, growing by half up to every 100 ms (`job_poll_initial: 50ms`, `job_poll_max: 100ms`)');
    expect(renderMarkdown({ ...results, applyLatency: { ...applyLatency, jobPollMs: { initial: 50, max: 50 } } })).toContain(
      'job polls at once, then every 50 ms after the previous poll started (`job_poll_initial: 50ms`, `job_poll_max: 50ms`)',
    );
    expect(md).toContain('A warm-up study of 10 target groups runs first and is not counted. Every size is applied 3 times, as fresh studies; the table shows the median run');
    expect(md).toContain('**6 x 50 ms + 1 x (max(500, 50) - 50) ms = 750 ms**');
    expect(md).toContain('| 6 | GET …/x/{job_id} (last of 2 polls) |');
    expect(md).toContain('the chain repeats `GET …/projects` 2 times');
    expect(md).toContain('feasibility and the price prediction do not depend on each other');
  });

  it('says when a size did not finish and when a baseline is extrapolated', () => {
    expect(md).toContain('200 target groups: **did not finish** — 150 of 200 live');
    const withExtrapolation = renderMarkdown({ ...results, applyLatency: { ...applyLatency, results: [row(1, 1400, 1000), row(10, 3000, 9000), row(200, 20_000, 180_000, true)] } });
    expect(withExtrapolation).toContain('180.0 s (extrapolated)');
    expect(withExtrapolation).toContain('For 200 target groups it was **not run**');
    expect(md).not.toContain('(extrapolated)');
  });

  it('states what the default rate limit means for the biggest study: its activities at 20 a second', () => {
    // 7 activities per target group at 50, plus the study workflow's 52: (52 + 350) x 50 ms.
    expect(md).toContain('Quota: a first apply schedules about 7 Demand API activities per target group (plus 52 in the study workflow: observing the API, the project, the drafts 50 to an activity).');
    expect(md).toContain('a study of 50 target groups needs at least 20.1 s for its activities to start, whatever the latency.');
  });

  it('flags re-apply writes that are not zero', () => {
    const bad = row(10, 3000, null);
    bad.reapply.writes = 2;
    expect(renderMarkdown({ ...results, applyLatency: { ...applyLatency, results: [bad] } })).toContain('| 2 (SHOULD BE 0) |');
    expect(md).toContain('0 (none, as required)');
  });

  it('compares the dev server as studyflow starts it with Temporal\'s defaults', () => {
    expect(md).toContain('dev/temporal-dev-server.ts sets `history.transferProcessorMaxPollRPS=1000`, `history.timerProcessorMaxTimeShift="10ms"`');
    expect(md).toContain("| studyflow settings | a separate queue (as studyflow's Demand API activities) | 100 | 12.5 / 25 | 12.5 / 25 |");
    expect(md).toContain('| Temporal defaults | a separate queue | 100 | 101 / 202 | 101 / 202 |');
    expect(md).toContain('| Temporal defaults | 880 ms / 1,760 ms |');
    expect(md).toContain('which fire on time (2 ms late, Engine overhead)');
  });

  it('says "Not run." for a benchmark without results, and links the chart', () => {
    expect(md).toContain('## Throughput: studies per minute\n\nNot run.');
    expect(md).toContain('![Time until all target groups are live, against the bound and the sequential baseline](benchmarks-apply.svg)');
    expect(renderMarkdown({})).toContain('No benchmark results were found in bench/out/.');
  });
});

describe('the floor of one workflow per target group', () => {
  const floorRow = (children: number, wallMs: number, lastChildStartedMs: number) => ({
    children, wallMs, lastChildStartedMs, parentEvents: 3 * children + 20, cpuMs: { temporalServer: 24 * children, workerAndClient: 12 * children }, cpuPerChildMs: 36, machineShare: 0.88, loadAverage: [1, 1, 1] as [number, number, number],
  });
  const fanOutFloor: FanOutFloorResult = {
    ...header('fan-out-floor', 'node bin/run-ts.js bench/fan-out-floor.ts --sizes 50,200', [1, 1, 1]),
    benchmark: 'fan-out-floor',
    dynamicConfig: {},
    sqlitePragmas: [],
    results: [floorRow(50, 1000, 800), floorRow(200, 4000, 3800)],
  };
  // Three calls up to the draft: a target group needs 750 - 3 x 50 = 600 ms after its workflow starts.
  const chain = {
    ...applyLatency.chain!,
    steps: ['GET …/projects', 'POST …/projects', 'POST …/projects/{project_id}/target-groups', 'POST …/target-groups/calculate-feasibility', 'POST …/x/launch-from-draft', 'GET …/x/{job_id} (last of 2 polls)'],
  };
  const md = renderMarkdown({ applyLatency: { ...applyLatency, chain }, fanOutFloor });

  it('has a row per size with the CPU the engine used', () => {
    expect(md).toContain('## The floor of one workflow per target group');
    expect(md).toContain('Command: `node bin/run-ts.js bench/fan-out-floor.ts --sizes 50,200`');
    expect(md).toContain('| 200 | 4,000 ms | 3,800 ms | 620 | 4,800 ms | 2,400 ms | 36 ms | 88% |');
  });

  it('says what the design needs at least against what each target allows, and which is out of reach', () => {
    expect(md).toContain(
      '50 target groups within 1.5x the bound means 1,125 ms; here the last of 50 children started 800 ms after its parent, and a target group needs 600 ms after its workflow starts (the calls of the bound after its draft), so target groups that launch from their own workflows are live no sooner than 1,400 ms (1.87x the bound): out of reach on this machine while each launch runs in its target group\'s own workflow.',
    );
    expect(md).toContain('200 target groups within 2x the bound means 1,500 ms; here the last of 200 children started 3,800 ms');
    expect(md).toContain('| 50 target groups live within 1.5x the bound | 5.26x | NOT met |');
    expect(md).toContain('for them the floor comes after live');
    // Not measured stays "not measured": a floor is no measurement of studyflow.
    expect(md).toContain('| 200 target groups live within 2x the bound | – | not measured |');
  });

  it('says nothing is out of reach when the floor fits the target', () => {
    const fast = renderMarkdown({ applyLatency: { ...applyLatency, chain }, fanOutFloor: { ...fanOutFloor, results: [floorRow(50, 300, 200)] } });
    expect(fast).toContain('are live no sooner than 800 ms (1.07x the bound), within the target.');
    expect(fast).not.toContain('out of reach');
  });
});

describe('renderApplySvg', () => {
  const svg = renderApplySvg(applyLatency);
  const bars = [...svg.matchAll(/<rect class="bar-(\w+)" data-ms="(\d+)" x="[\d.]+" y="([\d.]+)" width="[\d.]+" height="([\d.]+)"([^>]*)>/g)].map((m) => ({
    series: m[1],
    ms: Number(m[2]),
    y: Number(m[3]),
    height: Number(m[4]),
    extra: m[5],
  }));

  it('draws the bound, studyflow and the baseline for every finished size', () => {
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    expect(svg.trimEnd().endsWith('</svg>')).toBe(true);
    expect(bars.map((b) => `${b.series}:${b.ms}`)).toEqual(['bound:950', 'studyflow:1400', 'baseline:1000', 'bound:950', 'studyflow:5000', 'baseline:45000']);
    expect(svg).toContain('>1 target group</text>');
    expect(svg).toContain('>50 target groups</text>');
  });

  it('scales bars logarithmically: ten times the time is one decade taller', () => {
    const height = (ms: number) => bars.find((b) => b.ms === ms)!.height;
    expect(height(5000)).toBeGreaterThan(height(1400));
    const decade = logAxis(950, 45_000, 290).y(1000) - logAxis(950, 45_000, 290).y(10_000);
    expect(height(45_000) - height(1000)).toBeCloseTo(decade * Math.log10(45), 0);
  });

  it('marks a size that did not finish and an extrapolated baseline', () => {
    expect(svg).toContain('did not finish');
    expect(bars.every((b) => !b.extra.includes('stroke-dasharray'))).toBe(true);
    const extrapolated = renderApplySvg({ ...applyLatency, incomplete: [], results: [row(1, 1400, 1000), row(200, 20_000, 180_000, true)] });
    expect(extrapolated).toMatch(/class="bar-baseline" data-ms="180000"[^>]*stroke-dasharray/);
    expect(extrapolated).toContain('* extrapolated, not run.');
  });

  it('escapes text', () => {
    expect(renderApplySvg({ ...applyLatency, command: 'a <b> & "c"' })).toContain('a &lt;b&gt; &amp; &quot;c&quot;');
  });
});

describe('logAxis', () => {
  it('spans whole decades around the values and puts a tick on each', () => {
    const axis = logAxis(950, 45_000, 300);
    expect([axis.lo, axis.hi]).toEqual([100, 100_000]);
    expect(axis.ticks).toEqual([100, 1000, 10_000, 100_000]);
    expect(axis.y(100)).toBe(300);
    expect(axis.y(100_000)).toBe(0);
    expect(axis.y(1000) - axis.y(10_000)).toBeCloseTo(100, 10);
  });
});

describe('the CLI start-up section', () => {
  const variant = (label: string, build: 'compiled' | 'tsx', medianMs: number) => ({
    label,
    build,
    shown: `studyflow ${label}`,
    command: `node bin/studyflow.js ${label}`,
    runsMs: [medianMs - 5, medianMs, medianMs + 20],
    medianMs,
    minMs: medianMs - 5,
    maxMs: medianMs + 20,
  });
  const md = renderMarkdown({
    cliStartup: {
      ...header('cli-startup', 'node bin/run-ts.js bench/cli-startup.ts --runs 3', [0.5, 0.5, 0.5]),
      figures: {
        runs: 3,
        variants: [variant('--help', 'compiled', 90), variant('--help', 'tsx', 480), variant('validate examples/', 'compiled', 420), variant('validate examples/', 'tsx', 1100)],
      },
    },
  });

  it('compares the compiled CLI with the sources through tsx, per command, with the spread', () => {
    expect(md).toContain('## CLI start-up');
    expect(md).toContain('| `studyflow --help` | 90 ms (85 ms–110 ms) | 480 ms (475 ms–500 ms) |');
    expect(md).toContain('| `studyflow validate examples/` | 420 ms (415 ms–440 ms) | 1,100 ms (1,095 ms–1,120 ms) |');
  });

  it('judges the start-up targets on the compiled CLI, and says which is not met', () => {
    expect(md).toMatch(/\| `studyflow --help` answers in under 150 ms \| 90 ms \(median of 3 processes\) \| met \|/);
    expect(md).toMatch(/\| `studyflow validate examples\/` answers in under 400 ms \| 420 ms \(median of 3 processes\) \| NOT met \|/);
    expect(renderMarkdown({})).not.toContain('answers in under 150 ms | 90');
  });
});

describe('the buyer-view headline', () => {
  const run = (ms: number) => ({ ms, calls: 17, polls: 10, writes: 4, historyEvents: 60, cpuMs: { worker: 40, temporalServer: 60 } });
  const bvRow = (n: number, studyflowMs: number, handMs: number, reapplyWrites = 0) => ({
    targetGroups: n,
    boundMs: 750,
    handWrittenMs: handMs,
    handWrittenRunsMs: [handMs, handMs + 10, handMs - 10],
    handWrittenCallsPerTargetGroup: 15,
    handWrittenPollsPerTargetGroup: 10,
    studyflowMs,
    studyflowRunsMs: [studyflowMs - 100, studyflowMs, studyflowMs + 200],
    ratioToHandWritten: Number((studyflowMs / handMs).toFixed(2)),
    ratioToBound: Number((studyflowMs / 750).toFixed(2)),
    callsPerTargetGroup: n === 1 ? 19 : 17,
    pollsPerTargetGroup: 10,
    writesPerTargetGroup: 4,
    historyEventsPerTargetGroup: 60,
    cpuMsPerTargetGroup: { worker: 40, temporalServer: 60 },
    reapplyWrites,
    runs: [{ ...run(studyflowMs), timeline: { startUpMs: 300, beforeFirstWriteMs: 60, writesMs: 110, launchJobsMs: 520, settleMs: 60, exitMs: studyflowMs - 1050 } }],
  });
  const md = renderMarkdown({
    buyerView: {
      ...header('buyer-view', 'node bin/run-ts.js bench/buyer-view.ts --sizes 1,50,200', [1, 1, 1]),
      benchmark: 'buyer-view',
      latencyMs: 50,
      jobMs: 500,
      pollMs: 50,
      boundMs: 750,
      boundCalls: ['a', 'b', 'c', 'd', 'e'],
      runsPerSize: 3,
      versions: [
        { label: 'studyflow', root: '/repo', rows: [bvRow(1, 1000, 800), bvRow(50, 1400, 900), bvRow(200, 2600, 1200, 2)], incomplete: [] },
        { label: 'before', root: '/before', rows: [bvRow(1, 1100, 800), bvRow(50, 1300, 900)], incomplete: [] },
      ],
    },
  });

  it('puts studyflow beside the hand-written client and the bound, with the durability costs per target group', () => {
    expect(md).toContain('## Speed as a buyer sees it');
    expect(md).toContain('a → b → c → d → e, 5 × 50 ms plus the job, **750 ms** at any size');
    expect(md).toContain('| 50 | 750 ms | 900 ms (890 ms–910 ms) | 1,400 ms (1,300 ms–1,600 ms) | 1.56x | 1.87x | 17 (10 polls); hand: 15 (10 polls) | 60 | 100 ms (40 ms + 60 ms) | 0 |');
  });

  it('judges the end-to-end, calls and re-apply targets, and says which are not met', () => {
    expect(md).toMatch(/\| studyflow apply, end to end, within 1\.5x the hand-written client at 1 target group \| 1\.25x .* \| met \|/);
    expect(md).toMatch(/within 1\.5x the hand-written client at 50 target groups \| 1\.56x .* \| NOT met \|/);
    expect(md).toMatch(/within 2x the hand-written client at 200 target groups \| 2\.17x .* \| NOT met \|/);
    expect(md).toMatch(/\| at most 8 API calls per target group on a first apply \(job polls apart\) \| 9 at most, plus up to 10 job polls \| NOT met \|/);
    expect(md).toMatch(/\| re-applies make 0 writes \| 2 \| NOT met \|/);
  });

  it('says where the time of the first run of each size went, phase by phase', () => {
    expect(md).toContain('Where the time goes');
    expect(md).toContain('| 50 | 300 ms | 60 ms | 110 ms | 520 ms | 60 ms | 350 ms | 1,400 ms |');
  });

  it('compares another version in the same run, size by size', () => {
    expect(md).toContain('**Compared in the same run: before**');
    expect(md).toContain('| 1 | 1,100 ms (1,000 ms–1,300 ms) | 1,000 ms (900 ms–1,200 ms) | -9% |');
    expect(md).toContain('| 50 | 1,300 ms (1,200 ms–1,500 ms) | 1,400 ms (1,300 ms–1,600 ms) | 8% |');
  });
});

describe('the S3 memory section', () => {
  it('tables the peak memory of both stores, with how it was sampled', () => {
    const md = renderMarkdown({
      s3BlobMemory: {
        ...header('s3-blob-memory', 'node --expose-gc bin/run-ts.js bench/s3-blob-memory.ts', [0.5, 0.5, 0.5]),
        figures: { ids: 100_000, gcForced: true, node: 'v20.0.0', local: { listMiB: 3.5, putPeakMiB: 9.4, readPeakMiB: 0.2 }, s3: { listMiB: 3.5, putPeakMiB: 10.1, readPeakMiB: 0 } },
      },
    });
    expect(md).toContain('## S3 blob store: memory of a 100,000-ID list');
    expect(md).toContain('| local directory | 9.4 MiB | 0.2 MiB |');
    expect(md).toContain('| S3 (`STUDYFLOW_BLOB_URL=s3://…`) | 10.1 MiB | 0.0 MiB |');
    expect(md).toContain('after a forced GC');
  });
});

describe('the outside view', () => {
  const client = (ms: number, first: number, phases?: Record<string, number>) => ({ ms, firstCallMs: first, load1: 3.5, ...(phases ? { phasesMs: phases, cpuMs: 620 } : {}) });
  const outsideRow = (n: number, hand: number, sf: number, before: number) => ({
    targetGroups: n,
    handWrittenMs: hand,
    studyflowMs: sf,
    ratio: Number((sf / hand).toFixed(2)),
    pairedRatios: [Number((sf / hand).toFixed(2)), Number(((sf + 50) / hand).toFixed(2))],
    firstCallMs: { handWritten: 60, studyflow: 610, compare: 820 },
    compareMs: before,
    compareRatio: Number((before / hand).toFixed(2)),
    runs: {
      'hand-written': [client(hand, 60), client(hand + 20, 65)],
      studyflow: [client(sf, 610, { processStart: 20, main: 110, 'command-loaded': 420, validated: 470, connected: 560, accepted: 600, settled: sf - 30, return: sf - 25 }), client(sf + 50, 640)],
      before: [client(before, 820), client(before + 10, 830)],
    },
  });
  const results: BenchResults = {
    outsideView: {
      ...header('outside-view', 'node bin/run-ts.js bench/outside-view.ts --sizes 1,50,200 --runs 2', [3.5, 3, 2.5]),
      benchmark: 'outside-view',
      latencyMs: 50,
      jobMs: 500,
      pollMs: 50,
      boundMs: 750,
      boundCalls: ['POST …/oauth/token', 'POST …/projects'],
      runsPerSize: 2,
      compare: { label: 'before', bin: '/tmp/before/bin/studyflow.js' },
      load1Range: [3.5, 4.25],
      rows: [outsideRow(1, 850, 1400, 1650), outsideRow(50, 950, 1500, 1700), outsideRow(200, 1300, 2500, 2700)],
      incomplete: [],
    },
  };
  const md = renderMarkdown(results);

  it('puts studyflow against `studyflow dev` beside the hand-written client, paired, with the load and the command', () => {
    expect(md).toContain('## Speed as an outsider measures it');
    expect(md).toContain('Command: `node bin/run-ts.js bench/outside-view.ts --sizes 1,50,200 --runs 2`');
    expect(md).toContain('was 3.50 to 4.25 on 2 cores');
    expect(md).toContain('| 1 | 850 ms (850 ms–870 ms) | 1,400 ms (1,400 ms–1,450 ms) | 1.65x (1.65x, 1.71x) | 1,650 ms (1,650 ms–1,660 ms) | 1.94x | 60 ms / 610 ms / 820 ms |');
  });

  it('says where the CLI\'s time went, phase by phase after the spawn, with its CPU', () => {
    expect(md).toContain('| 1 | 20 ms | 110 ms | 420 ms | 470 ms | 560 ms | 600 ms | 1,370 ms | 1,375 ms | 610 ms | 1,400 ms | 620 ms |');
  });

  it('judges the targets from outside and says which are not met', () => {
    expect(md).toMatch(/outside view .* within 1.5x the hand-written client at 1 target group \| 1.65x .* \| NOT met/);
    expect(md).toMatch(/outside view .* within 2x the hand-written client at 200 target groups \| 1.92x .* \| met/);
  });
});

describe('the watch at scale (bench/watch-scale.ts, run apart)', () => {
  const watch = (worker: number, perSecond: number, watchedTgs = 10_000) => ({
    settings: { tgs: 10_000, watchedTgs },
    apiCallsPerHour: { perSecond, rateLimitPerSecond: 20, shareOfRateLimit: perSecond / 20 },
    cpuCores: { worker },
  });
  const row = (md: string) => md.split('\n').find((l) => l.startsWith('| 10,000 live target groups watched by one worker'));

  it('judges the 10,000 target: worker under half a core and calls within the rate limit, at 10,000 watched', () => {
    expect(row(renderMarkdown({ ...results, watchScale: watch(0.46, 9) }))).toMatch(/\| 0\.46 core; 9 calls\/s = 45% of 20\/s \(10,000 live\) \| met \|$/);
    expect(row(renderMarkdown({ ...results, watchScale: watch(0.52, 9) }))).toMatch(/\| NOT met \|$/);
    expect(row(renderMarkdown({ ...results, watchScale: watch(0.3, 21) }))).toMatch(/\| NOT met \|$/);
    expect(row(renderMarkdown({ ...results, watchScale: watch(0.3, 9, 9_500) }))).toMatch(/\(9,500 live\) \| NOT met \|$/);
    expect(row(renderMarkdown(results))).toMatch(/\| – \| not measured \|$/);
  });

  it('keeps the hand-written sections of docs/benchmarks.md from their heading on, and nothing when there are none', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'report-tail-'));
    try {
      const file = path.join(dir, 'benchmarks.md');
      expect(handWrittenTail(file)).toBe('');
      fs.writeFileSync(file, `# Benchmarks\n\ngenerated\n\n${HAND_WRITTEN_HEADING}\n\nby hand | table\n`);
      expect(handWrittenTail(file)).toBe(`\n${HAND_WRITTEN_HEADING}\n\nby hand | table\n`);
      fs.writeFileSync(file, '# Benchmarks\n\ngenerated only\n');
      expect(handWrittenTail(file)).toBe('');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
