// Start-up of the `studyflow` command as a user meets it: each run is a new process, timed from spawn to exit.
// The compiled CLI (bin/studyflow.js → dist/, what the package installs) beside the same commands run from the
// TypeScript sources through tsx (how bin/studyflow.js ran before the compiled build). Run `npm run build` first.
//
//   node bin/run-ts.js bench/cli-startup.ts [--runs 15]
// Prints one JSON line (the figures) on stdout, as bench/run-all.ts expects.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from './bench-stack';
import { median } from './stats';

const runsArg = process.argv.indexOf('--runs');
const RUNS = runsArg > 0 ? Number(process.argv[runsArg + 1]) : 15;
if (!Number.isInteger(RUNS) || RUNS < 3) throw new Error('--runs takes a whole number of at least 3');
if (!fs.existsSync(path.join(REPO_ROOT, 'dist', 'cli', 'studyflow.js'))) throw new Error('dist/ is missing: run `npm run build` first');

interface Variant {
  label: string;
  build: 'compiled' | 'tsx';
  /** What a user types. */
  command: string;
  argv: string[];
}

const EXAMPLES = 'examples/';
const variants: Variant[] = [
  { label: '--help', build: 'compiled', command: 'studyflow --help', argv: ['bin/studyflow.js', '--help'] },
  { label: '--help', build: 'tsx', command: 'studyflow --help', argv: ['bin/run-ts.js', 'bench/cli-from-source.ts', '--help'] },
  { label: `validate ${EXAMPLES}`, build: 'compiled', command: `studyflow validate ${EXAMPLES}`, argv: ['bin/studyflow.js', 'validate', EXAMPLES] },
  { label: `validate ${EXAMPLES}`, build: 'tsx', command: `studyflow validate ${EXAMPLES}`, argv: ['bin/run-ts.js', 'bench/cli-from-source.ts', 'validate', EXAMPLES] },
];

function timeOnce(argv: string[]): number {
  const started = process.hrtime.bigint();
  const result = spawnSync(process.execPath, argv, { cwd: REPO_ROOT, env: { ...process.env, NO_COLOR: '1' }, stdio: ['ignore', 'ignore', 'pipe'] });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (result.status !== 0) throw new Error(`node ${argv.join(' ')} exited ${result.status}: ${result.stderr.toString()}`);
  return ms;
}

const figures = variants.map((variant) => {
  timeOnce(variant.argv); // warm the file cache; not counted
  const runsMs = Array.from({ length: RUNS }, () => Number(timeOnce(variant.argv).toFixed(1)));
  const sorted = [...runsMs].sort((a, b) => a - b);
  process.stderr.write(`${variant.build.padEnd(8)} ${variant.command}: median ${median(runsMs).toFixed(0)} ms\n`);
  return { ...variant, command: `node ${variant.argv.join(' ')}`, shown: variant.command, runsMs, medianMs: median(runsMs), minMs: sorted[0], maxMs: sorted[sorted.length - 1] };
});
process.stdout.write(`${JSON.stringify({ runs: RUNS, variants: figures })}\n`);
