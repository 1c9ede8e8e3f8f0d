import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { cpuMeter, processCpuMs, processNamed, waitForIdleProcesses } from '../../bench/process-cpu';

/** Computes until this process has used `ms` more CPU (at most 10 s of wall time, on a busy machine). */
function burn(ms: number): void {
  const start = process.cpuUsage();
  const deadline = performance.now() + 10_000;
  let x = 0;
  while (performance.now() < deadline) {
    for (let i = 0; i < 10_000; i += 1) x += Math.sqrt(x + i);
    const used = process.cpuUsage(start);
    if ((used.user + used.system) / 1000 >= ms) return;
  }
}

describe('process CPU accounting (/proc)', () => {
  it('reads a CPU time that grows while a process computes', () => {
    const before = processCpuMs(process.pid);
    expect(before).toBeTypeOf('number');
    burn(80);
    // /proc counts in 10 ms ticks.
    expect(processCpuMs(process.pid)! - before!).toBeGreaterThanOrEqual(60);
  });

  it('is undefined for a process that does not exist or no pid', () => {
    expect(processCpuMs(undefined)).toBeUndefined();
    expect(processCpuMs(2 ** 30)).toBeUndefined();
  });

  it('finds the server behind a shell wrapper by its command name', async () => {
    const wrapper = spawn('bash', ['-c', 'sleep 5 & wait'], { stdio: 'ignore' });
    try {
      let found: number | undefined;
      for (let i = 0; i < 50 && !found; i += 1) {
        found = processNamed(wrapper.pid, 'sleep');
        if (!found) await new Promise((r) => setTimeout(r, 20));
      }
      expect(found).toBeTypeOf('number');
      expect(found).not.toBe(wrapper.pid);
      expect(processNamed(wrapper.pid, 'bash')).toBe(wrapper.pid);
      expect(processNamed(wrapper.pid, 'no-such-command')).toBeUndefined();
    } finally {
      wrapper.kill('SIGKILL');
    }
  });

  it('meters named processes and this one, with the share of the machine they used', () => {
    const meter = cpuMeter({ self: process.pid, gone: undefined });
    burn(80);
    const used = meter.stop();
    expect(Object.keys(used.cpuMs).sort()).toEqual(['benchmark', 'self']);
    expect(used.cpuMs.benchmark).toBeGreaterThanOrEqual(80);
    expect(used.cpuMs.self).toBeGreaterThanOrEqual(60);
    expect(used.wallMs).toBeGreaterThanOrEqual(used.cpuMs.benchmark / used.cores);
    expect(used.cores).toBeGreaterThanOrEqual(1);
    expect(used.machineShare).toBeGreaterThan(0);
  });

  it('waits for a busy process to go idle before it returns', async () => {
    // The child computes for 600 ms of CPU, says so, then sits idle until killed.
    const code = `const s = process.cpuUsage(); let x = 0; while ((process.cpuUsage(s).user / 1000) < 600) x += Math.sqrt(x + 1); process.stdout.write('idle\\n'); setInterval(() => {}, 1000);`;
    const child = spawn(process.execPath, ['-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
    let said = '';
    child.stdout!.on('data', (chunk: Buffer) => (said += chunk.toString()));
    try {
      const share = await waitForIdleProcesses([child.pid], { busyShare: 0.1, windowMs: 200, maxMs: 20_000 });
      expect(said).toBe('idle\n');
      expect(share).toBeLessThan(0.1);
    } finally {
      child.kill();
    }
  }, 30_000);
});
