// `studyflow dev` as a user starts it, in a process of its own, for the benchmarks that time the installed
// command from outside (bench/outside-view.ts, bench/startup-cpu.ts).
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { findFreePort } from '../dev/free-port';

/** A user's shell: no studyflow or Temporal settings of this process leak in. */
export function shellEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('STUDYFLOW_') && !k.startsWith('TEMPORAL_') && k !== 'NODE_OPTIONS'));
  return { ...env, NO_COLOR: '1', ...extra };
}

export interface DevProcess {
  child: ChildProcess;
  /** The last 200 lines it wrote to stderr, for a failure's report. */
  tail(): string[];
  ports: { temporal: number; ui: number; sandbox: number; webhook: number };
  /** Ends it with Ctrl-C (SIGINT), as a user does, and waits for its exit. */
  stop(): Promise<void>;
}

/**
 * `studyflow dev` in `cwd` on free ports, run as `command ...prefix dev …` (the bin itself through its shebang, or
 * `node BIN`); resolves once it printed its addresses, fails with its last lines if it exits or takes 120 s.
 */
export async function startDevProcess(cwd: string, command: string, prefix: string[] = []): Promise<DevProcess> {
  const ports = { temporal: await findFreePort(), ui: await findFreePort(), sandbox: await findFreePort(), webhook: await findFreePort() };
  const args = [...prefix, 'dev', '--temporal-port', String(ports.temporal), '--ui-port', String(ports.ui), '--sandbox-port', String(ports.sandbox), '--webhook-port', String(ports.webhook)];
  const child = spawn(command, args, { cwd, env: shellEnv({}), stdio: ['ignore', 'ignore', 'pipe'] });
  const tail: string[] = [];
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`studyflow dev did not start within 120 s:\n${tail.join('\n')}`)), 120_000);
    createInterface({ input: child.stderr }).on('line', (line) => {
      tail.push(line);
      if (tail.length > 200) tail.shift();
      if (line.includes('Ctrl-C stops everything.')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`studyflow dev exited with ${code}:\n${tail.join('\n')}`));
    });
  });
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGINT');
    await new Promise((r) => child.once('exit', r));
  };
  return { child, ports, stop, tail: () => [...tail] };
}
