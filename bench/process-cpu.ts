// CPU time of processes on this machine (Linux /proc), to tell a run limited by the machine's cores
// from one limited by waiting.
import fs from 'node:fs';
import os from 'node:os';

/** Clock ticks per second of /proc/<pid>/stat (USER_HZ; 100 on Linux for x86 and arm). */
const TICKS_PER_SECOND = 100;

/** User + system CPU milliseconds a process has used so far, or undefined when it cannot be read. */
export function processCpuMs(pid: number | undefined): number | undefined {
  if (!pid) return undefined;
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces: fields are counted after its closing parenthesis.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const utime = Number(fields[11]);
    const stime = Number(fields[12]);
    if (!Number.isFinite(utime) || !Number.isFinite(stime)) return undefined;
    return ((utime + stime) * 1000) / TICKS_PER_SECOND;
  } catch {
    return undefined;
  }
}

/** Samples the CPU time of named processes (and this one) between `start` and `stop`. */
export function cpuMeter(pids: Record<string, number | undefined>) {
  const self = () => {
    const usage = process.cpuUsage();
    return (usage.user + usage.system) / 1000;
  };
  const read = () => ({ ...Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, processCpuMs(pid)])), benchmark: self() });
  const started = read();
  const startedAt = performance.now();
  return {
    /** CPU milliseconds each process used since the meter started, the wall time, and the machine's share used. */
    stop(): { cpuMs: Record<string, number>; wallMs: number; cores: number; machineShare: number } {
      const now = read();
      const wallMs = performance.now() - startedAt;
      const cpuMs: Record<string, number> = {};
      for (const [name, value] of Object.entries(now)) {
        const before = started[name as keyof typeof started];
        if (typeof value === 'number' && typeof before === 'number') cpuMs[name] = Math.round(value - before);
      }
      const cores = os.availableParallelism();
      const total = Object.values(cpuMs).reduce((a, b) => a + b, 0);
      return { cpuMs, wallMs: Math.round(wallMs), cores, machineShare: Number((total / (wallMs * cores)).toFixed(2)) };
    },
  };
}

/** `pid` itself when its command is `name`, else its first child process of that name (a shell wrapper's server). */
export function processNamed(pid: number | undefined, name: string): number | undefined {
  if (!pid) return undefined;
  const comm = (p: number) => {
    try {
      return fs.readFileSync(`/proc/${p}/comm`, 'utf8').trim();
    } catch {
      return undefined;
    }
  };
  if (comm(pid) === name) return pid;
  try {
    const children = fs.readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
    return children.find((child) => comm(child) === name);
  } catch {
    return undefined;
  }
}

/**
 * Waits until the processes together used less than `busyShare` of one core over a `windowMs` window
 * (at most `maxMs`): a measured run then starts on an idle engine, not while the previous study's
 * after-live work (child workflows starting and settling) still runs. Returns the share last seen.
 */
export async function waitForIdleProcesses(pids: readonly (number | undefined)[], options: { busyShare?: number; windowMs?: number; maxMs?: number } = {}): Promise<number> {
  const busyShare = options.busyShare ?? 0.1;
  const windowMs = options.windowMs ?? 500;
  const deadline = Date.now() + (options.maxMs ?? 20_000);
  const total = () => pids.reduce<number>((sum, pid) => sum + (processCpuMs(pid) ?? 0), 0);
  for (;;) {
    const before = total();
    const started = performance.now();
    await new Promise((resolve) => setTimeout(resolve, windowMs));
    const share = (total() - before) / (performance.now() - started);
    // Unrounded: a share just under the bound must not round up to it.
    if (share < busyShare || Date.now() >= deadline) return share;
  }
}
