// `npm run bench`: every benchmark, one after the other, each in its own process with its own
// Temporal dev server and sandbox; their JSON goes to bench/out/ (git-ignored), then bench/report.ts
// regenerates docs/benchmarks.md and docs/benchmarks-apply.svg from it. A benchmark that fails or
// overruns its time limit is reported as such; the others still run. Exit code 1 when one failed.
//
//   npm run bench            (node bin/run-ts.js bench/run-all.ts)
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { REPO_ROOT, runContext, writeResult } from './bench-stack';
import { writeReport } from './report';
import type { RunSummary } from './result-types';

interface Step {
  name: string;
  /** Node flags before bin/run-ts.js. */
  nodeArgs?: string[];
  script: string;
  args: string[];
  /** Killed after this long. */
  limitS: number;
  /** The script prints one JSON line (its figures) instead of writing bench/out itself. */
  wrap?: boolean;
}

/** The whole run stays under 16 minutes on a 2-core machine: a step gets at most what is left of this. */
const TOTAL_BUDGET_S = 950;

// Cheap ones first; apply-latency enforces its own budget (--budget-s) below its limit.
const STEPS: Step[] = [
  { name: 'cli-startup', script: 'bench/cli-startup.ts', args: ['--runs', '15'], limitS: 150, wrap: true },
  // The headline: studyflow apply as its own process against the fastest hand-written client. STUDYFLOW_BENCH_COMPARE=LABEL=DIR
  // adds another built checkout (e.g. the code before a change) to the same run; STUDYFLOW_BENCH_HAND_WRITTEN=no leaves
  // the hand-written client out while the sandbox does not yet accept the reference's shapes it sends.
  {
    name: 'buyer-view',
    script: 'bench/buyer-view.ts',
    args: [
      ...['--sizes', '1,10,50,200', '--runs', '3', '--latency', '50', '--job', '500', '--budget-s', '360'],
      ...(process.env.STUDYFLOW_BENCH_COMPARE ? ['--compare', process.env.STUDYFLOW_BENCH_COMPARE] : []),
      ...(process.env.STUDYFLOW_BENCH_HAND_WRITTEN === 'no' ? ['--hand-written', 'no'] : []),
    ],
    limitS: 420,
  },
  // The same, measured from outside: `studyflow dev` as a user runs it, the installed command in a second shell.
  { name: 'outside-view', script: 'bench/outside-view.ts', args: ['--sizes', '1,50,200', '--runs', '3', '--latency', '50', '--job', '500', '--budget-s', '300'], limitS: 360 },
  { name: 'validation', script: 'bench/validation.ts', args: ['--files', '300', '--target-groups', '8', '--ids', '100000'], limitS: 45 },
  { name: 's3-blob-memory', nodeArgs: ['--expose-gc'], script: 'bench/s3-blob-memory.ts', args: [], limitS: 240, wrap: true },
  { name: 'upload-100k', nodeArgs: ['--expose-gc'], script: 'bench/upload-100k.ts', args: [], limitS: 60, wrap: true },
  { name: 'closeout-100k', nodeArgs: ['--expose-gc'], script: 'bench/closeout-100k.ts', args: [], limitS: 60, wrap: true },
  { name: 'webhook-receiver', script: 'bench/webhook-receiver.ts', args: ['5000', '32'], limitS: 45, wrap: true },
  { name: 'apply-latency', script: 'bench/apply-latency.ts', args: ['--sizes', '1,10,50,200', '--repeat', '3', '--latency', '50', '--job', '500', '--budget-s', '290'], limitS: 320 },
  { name: 'fan-out-floor', script: 'bench/fan-out-floor.ts', args: ['--sizes', '1,10,50,200'], limitS: 90 },
  { name: 'engine-overhead', script: 'bench/engine-overhead.ts', args: ['--calls', '100', '--timers', '10', '--default-calls', '40'], limitS: 120 },
  { name: 'throughput', script: 'bench/throughput.ts', args: ['--studies', '12', '--target-groups', '4', '--timeout-s', '45'], limitS: 150 },
];

function commandOf(step: Step): string {
  return ['node', ...(step.nodeArgs ?? []), 'bin/run-ts.js', step.script, ...step.args].join(' ');
}

async function runStep(step: Step, limitS: number): Promise<{ exitCode: number | null; stdout: string; error?: string }> {
  const child = spawn(process.execPath, [...(step.nodeArgs ?? []), 'bin/run-ts.js', step.script, ...step.args], {
    cwd: REPO_ROOT,
    // The upload benchmark targets STUDYFLOW_API_BASE_URL when set; here it always uses its own sandbox.
    env: { ...process.env, STUDYFLOW_API_BASE_URL: '' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let stdout = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  let killed = false;
  const timer = setTimeout(() => {
    killed = true;
    child.kill('SIGTERM');
    setTimeout(() => child.kill('SIGKILL'), 10_000).unref();
  }, limitS * 1000);
  const exitCode = await new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  clearTimeout(timer);
  return { exitCode, stdout, ...(killed ? { error: `stopped after its ${limitS} s limit` } : exitCode !== 0 ? { error: `exited with ${exitCode}` } : {}) };
}

const outDir = path.join(REPO_ROOT, 'bench', 'out');
fs.mkdirSync(outDir, { recursive: true });
// Results of an earlier run must not pass for this one's.
for (const file of fs.readdirSync(outDir)) if (file.endsWith('.json')) fs.rmSync(path.join(outDir, file));

const summary: RunSummary = { startedAt: new Date().toISOString(), totalSeconds: 0, benchmarks: [] };
const started = performance.now();
for (const step of STEPS) {
  const leftS = Math.floor(TOTAL_BUDGET_S - (performance.now() - started) / 1000);
  if (leftS < 15) {
    summary.benchmarks.push({ name: step.name, command: commandOf(step), seconds: 0, exitCode: null, error: `not run: ${leftS} s of the ${TOTAL_BUDGET_S} s budget left` });
    continue;
  }
  process.stderr.write(`\n== ${step.name}: ${commandOf(step)}\n`);
  const context = runContext();
  const stepStarted = performance.now();
  const result = await runStep(step, Math.min(step.limitS, leftS));
  let error = result.error;
  if (step.wrap && result.exitCode === 0) {
    try {
      const figures: unknown = JSON.parse(result.stdout.trim().split('\n').pop() ?? '');
      writeResult(step.name, { benchmark: step.name, command: commandOf(step), ...context, figures });
    } catch {
      error = 'printed no JSON line';
    }
  }
  const seconds = Number(((performance.now() - stepStarted) / 1000).toFixed(1));
  summary.benchmarks.push({ name: step.name, command: commandOf(step), seconds, exitCode: result.exitCode, ...(error ? { error } : {}) });
  process.stderr.write(`== ${step.name}: ${error ?? 'done'} in ${seconds} s\n`);
}
summary.totalSeconds = Number(((performance.now() - started) / 1000).toFixed(1));
writeResult('run-all', summary);
const written = writeReport(outDir);
process.stderr.write(`\nbenchmarks took ${summary.totalSeconds} s; wrote ${written.map((f) => path.relative(REPO_ROOT, f)).join(', ')}\n`);
if (summary.benchmarks.some((b) => b.error)) process.exitCode = 1;
