// The table of docs/benchmarks.md's "Cost of watching at scale" section, from the results bench/watch-scale.ts
// wrote (bench/out/watch-scale-<label>-<N>.json): one row per result, before and after, with the command behind it.
//
//   node bin/run-ts.js bench/watch-scale-table.ts
import fs from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from './bench-stack';

interface WatchScaleResult {
  label: string;
  command: string;
  settings: { tgs: number; studies: number; watchMs: number; windowS: number; rate: number; watchedTgs?: number; appliedStudies?: number; workflowCache?: number };
  loadAverage: { atWindowStart: number[]; oneMinuteDuringWindow: { min: number; max: number } };
  windowS: number;
  apiCallsPerHour: { total: number; byOperation: Record<string, number>; perSecond: number; rateLimitPerSecond: number; shareOfRateLimit: number };
  cpuCores: { worker?: number; temporal?: number; sandbox?: number };
  rssMiB: { worker: { last?: number; peak?: number }; temporal: { last?: number; peak?: number } };
  historyEventsPerTgPerDay: { targetGroupWorkflows: number; studyWorkflows: number; total: number };
  phasesAtEnd: Record<string, number>;
}

const dir = path.join(REPO_ROOT, 'bench', 'out');
/** before, then earlier versions of after (after-v1, after-v2, …), then after. */
const order = (label: string) => (label === 'before' ? 0 : label === 'after' ? 1_000 : Number(/-v(\d+)$/.exec(label)?.[1] ?? 1));
const results = fs
  .readdirSync(dir)
  .filter((f) => /^watch-scale-(before|after)(-[a-z0-9]+)?-\d+\.json$/.test(f))
  .map((f) => JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')) as WatchScaleResult)
  .sort((a, b) => a.settings.tgs - b.settings.tgs || order(a.label) - order(b.label));

const n = (v: number | undefined, digits = 0) => (v === undefined ? '–' : v.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits }));
const ops = (byOp: Record<string, number>) =>
  Object.entries(byOp)
    .sort((a, b) => b[1] - a[1])
    .map(([op, count]) => `${op} ${n(count)}`)
    .join('; ');
const rows = results.map((r) => {
  const a = r.apiCallsPerHour;
  const target = a.perSecond <= a.rateLimitPerSecond && (r.cpuCores.worker ?? Infinity) < 0.5 ? 'met' : 'not met';
  return [
    `${n(r.settings.watchedTgs ?? r.settings.tgs)} (${r.settings.appliedStudies ?? r.settings.studies} studies)`,
    r.label,
    `${n(a.total)} (${n(a.perSecond, 2)}/s = ${Math.round(a.shareOfRateLimit * 100)}% of ${a.rateLimitPerSecond}/s)`,
    n(r.cpuCores.worker, 3),
    n(r.cpuCores.temporal, 3),
    `${n(r.rssMiB.worker.last)} / ${n(r.rssMiB.temporal.last)} MiB (peak ${n(r.rssMiB.worker.peak)} / ${n(r.rssMiB.temporal.peak)})`,
    `${n(r.historyEventsPerTgPerDay.total)} (${n(r.historyEventsPerTgPerDay.targetGroupWorkflows)} + ${n(r.historyEventsPerTgPerDay.studyWorkflows)})`,
    `${Math.round(r.windowS / 60)} min at a ${Math.round(r.settings.watchMs / 60_000)} min interval; workflow cache ${n(r.settings.workflowCache ?? 500)}; load ${r.loadAverage.oneMinuteDuringWindow.min}–${r.loadAverage.oneMinuteDuringWindow.max}`,
    r.settings.tgs >= 10_000 ? target : '',
  ];
});
const header = ['Live target groups', 'watch', 'API calls / hour (vs the rate limit)', 'worker CPU (cores)', 'Temporal CPU (cores)', 'RSS worker / Temporal', 'history events / TG / day (TG + study workflows)', 'window', '10,000 target'];
const lines = [`| ${header.join(' | ')} |`, `| ${header.map(() => '---').join(' | ')} |`, ...rows.map((r) => `| ${r.join(' | ')} |`)];
lines.push('', 'API calls per hour by operation:', '');
for (const r of results) lines.push(`- ${n(r.settings.tgs)} ${r.label}: ${ops(r.apiCallsPerHour.byOperation)}`);
lines.push('', 'Commands:', '');
for (const r of results) lines.push(`- ${n(r.settings.tgs)} ${r.label}: \`${r.command}\``);
process.stdout.write(`${lines.join('\n')}\n`);
