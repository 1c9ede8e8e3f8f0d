// CPU the `studyflow` command spends before its work, paired: each variant runs back to back in every round
// (the order rotating), so a busy machine slows them alike. CPU, not wall time: on a shared machine the wall
// time of a start-up is mostly waiting for a core. Figures are the process's own user+system ms at its
// STUDYFLOW_TIMELINE marks: `--version` and `validate` at return, `apply` at "accepted" (update-with-start
// accepted by the warm worker; the worker's first API call follows it).
//
//   node bin/run-ts.js bench/startup-cpu.ts [--rounds 9] [--compare LABEL=BIN]
// Variants: the code cache off (STUDYFLOW_CODE_CACHE=off) and on (warmed once first, in a cache directory of
// its own), and with --compare another build's bin/studyflow.js. apply runs against `studyflow dev` started
// here on free ports, with a new study each run. Prints a table on stderr and the figures as one JSON line.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { benchStudyYaml, loadAverage, numberArg, REPO_ROOT, runContext, stringArg } from './bench-stack';
import { median } from './stats';
import { shellEnv, startDevProcess } from './dev-process';

const rounds = numberArg('rounds', 9);
const compare = stringArg('compare', '');
if (!Number.isInteger(rounds) || rounds < 3) throw new Error('--rounds takes a whole number of at least 3');
const [compareLabel, compareBin] = compare ? compare.split('=') : [];
if (compare && (!compareLabel || !compareBin || !fs.existsSync(compareBin))) throw new Error(`--compare takes LABEL=BIN (a built bin/studyflow.js), got "${compare}"`);
const BIN = path.join(REPO_ROOT, 'bin', 'studyflow.js');
if (!fs.existsSync(path.join(REPO_ROOT, 'dist', 'cli', 'studyflow.js'))) throw new Error('dist/ is missing: run `npm run build` first');

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'studyflow-startup-cpu-'));
const cacheDir = path.join(dir, 'cache');

interface Variant {
  label: string;
  bin: string;
  env: Record<string, string>;
}
const variants: Variant[] = [
  { label: 'code cache off', bin: BIN, env: { STUDYFLOW_CODE_CACHE: 'off' } },
  { label: 'code cache on', bin: BIN, env: { STUDYFLOW_CACHE_DIR: cacheDir } },
  ...(compareBin ? [{ label: compareLabel, bin: path.resolve(compareBin), env: {} }] : []),
];

/** `studyflow dev` in `dir` on free ports, run as `node BIN`; resolves once it printed its addresses. */
const startDev = () => startDevProcess(dir, process.execPath, [BIN]);

/** The CPU ms of `variant` running `args` at its timeline mark `phase`. */
function cpuAt(variant: Variant, args: string[], phase: string, extraEnv: Record<string, string> = {}): number {
  const result = spawnSync(process.execPath, [variant.bin, ...args], {
    cwd: dir,
    env: shellEnv({ ...variant.env, ...extraEnv, STUDYFLOW_TIMELINE: '1' }),
    encoding: 'utf8',
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  if (result.status !== 0) throw new Error(`${variant.label}: studyflow ${args.join(' ')} exited ${result.status}: ${result.stderr.slice(-1500)}`);
  const line = result.stderr.split('\n').find((l) => l.startsWith('studyflow-timeline '));
  if (!line) throw new Error(`${variant.label}: studyflow ${args.join(' ')} printed no timeline (STUDYFLOW_TIMELINE)`);
  const { marks } = JSON.parse(line.slice('studyflow-timeline '.length)) as { marks: [string, number, number][] };
  const mark = marks.find(([name]) => name === phase);
  if (!mark) throw new Error(`${variant.label}: studyflow ${args.join(' ')} never reached "${phase}" (marks: ${marks.map(([n]) => n).join(', ')})`);
  return mark[2];
}

const context = runContext();
fs.copyFileSync(path.join(REPO_ROOT, 'examples', 'quickstart', 'study.yaml'), path.join(dir, 'quickstart.yaml'));
const dev = await startDev();
const onSignal = () => void dev.stop().finally(() => process.exit(143));
process.once('SIGTERM', onSignal);
process.once('SIGINT', onSignal);
const temporal = { TEMPORAL_ADDRESS: `127.0.0.1:${dev.ports.temporal}`, STUDYFLOW_WATCH_INTERVAL_MS: '600000' };
let studies = 0;
const commands: { label: string; phase: string; args: () => string[]; env?: Record<string, string> }[] = [
  { label: '--version', phase: 'return', args: () => ['--version'] },
  { label: 'validate examples/quickstart/study.yaml', phase: 'return', args: () => ['validate', 'quickstart.yaml'] },
  {
    label: 'apply (1 target group, a new study) up to accepted',
    phase: 'accepted',
    args: () => {
      const id = `cpu-${process.pid}-${(studies += 1)}`;
      fs.writeFileSync(path.join(dir, `${id}.yaml`), benchStudyYaml(id, 1));
      return ['apply', `${id}.yaml`, '--no-wait'];
    },
    env: temporal,
  },
];

const cpu: Record<string, Record<string, number[]>> = {};
try {
  // Warm-up, not counted: the file cache, the dev stack's first workflow, and the code cache of "on".
  for (const variant of variants) for (const c of commands) cpuAt(variant, c.args(), c.phase, c.env);
  const loads: number[] = [];
  for (let round = 0; round < rounds; round += 1) {
    loads.push(loadAverage()[0]);
    for (const c of commands) {
      for (let i = 0; i < variants.length; i += 1) {
        const variant = variants[(i + round) % variants.length];
        ((cpu[c.label] ??= {})[variant.label] ??= []).push(cpuAt(variant, c.args(), c.phase, c.env));
      }
    }
  }
  const medians = Object.fromEntries(Object.entries(cpu).map(([c, byVariant]) => [c, Object.fromEntries(Object.entries(byVariant).map(([v, runs]) => [v, median(runs)]))]));
  // Each variant against "code cache on", round by round (the same round ran them back to back): the median of the differences.
  const pairedVsOn = Object.fromEntries(
    Object.entries(cpu).map(([c, byVariant]) => [
      c,
      Object.fromEntries(Object.entries(byVariant).map(([v, runs]) => [v, median(runs.map((ms, i) => ms - byVariant['code cache on'][i]))])),
    ]),
  );
  for (const [c, byVariant] of Object.entries(medians)) {
    process.stderr.write(`${c}: ${Object.entries(byVariant).map(([v, ms]) => `${v} ${ms} ms (paired ${pairedVsOn[c][v] >= 0 ? '+' : ''}${pairedVsOn[c][v]} ms vs on)`).join(', ')}\n`);
  }
  process.stdout.write(`${JSON.stringify({ ...context, rounds, load1: { min: Math.min(...loads), max: Math.max(...loads) }, variants: variants.map((v) => v.label), medians, pairedVsOn, runs: cpu })}\n`);
} finally {
  await dev.stop();
  fs.rmSync(dir, { recursive: true, force: true });
}
