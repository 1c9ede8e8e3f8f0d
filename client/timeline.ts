// Where a CLI process spends its time, for the benchmarks: with STUDYFLOW_TIMELINE set, each phase the
// command reaches is marked (ms since the process started, performance.now()), and the marks are written to
// stderr as one line when the command returns: `studyflow-timeline {"origin":…,"marks":[["main",41.2,38],…]}`
// (phase, ms since the process started, CPU ms the process had used by then: on a busy machine the wall
// time of a phase includes waiting for a core, its CPU time does not).
// `origin` is performance.timeOrigin (epoch ms), so a harness that noted when it spawned the process can
// place every mark after its spawn. Without the variable, mark() does nothing.

const marks: [string, number, number][] = [];
let enabled = false;

/** Starts recording when `env` has STUDYFLOW_TIMELINE (main() calls it first). */
export function startTimeline(env: NodeJS.ProcessEnv): void {
  enabled = Boolean(env.STUDYFLOW_TIMELINE);
  marks.length = 0;
  mark('main');
}

/** Notes that the command reached `phase` now. */
export function mark(phase: string): void {
  if (!enabled) return;
  const cpu = process.cpuUsage();
  marks.push([phase, Math.round(performance.now() * 10) / 10, Math.round((cpu.user + cpu.system) / 1000)]);
}

/** The line main() writes to stderr when the command returns (undefined when not recording). */
export function timelineLine(): string | undefined {
  if (!enabled) return undefined;
  mark('return');
  return `studyflow-timeline ${JSON.stringify({ origin: performance.timeOrigin, marks })}`;
}
