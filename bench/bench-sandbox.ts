// The benchmarks' sandbox in a child process (its own buffering of request bodies is not counted in the measuring
// process), or the API of STUDYFLOW_API_BASE_URL; and what a process retains after a forced GC (run with --expose-gc).
import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import { createApiConfig, loadApiConfig, type ApiConfig } from '../activities/index';

export interface SandboxProcess {
  config: ApiConfig;
  child?: ChildProcess;
}

export async function startSandboxProcess(): Promise<SandboxProcess> {
  if (process.env.STUDYFLOW_API_BASE_URL) return { config: loadApiConfig(process.env) };
  const entry = pathToFileURL(resolve(import.meta.dirname, '../sandbox/index.ts')).href;
  const code = `const { startSandbox } = await import(${JSON.stringify(entry)});
const sandbox = await startSandbox({ quiet: true });
process.stdout.write(JSON.stringify(sandbox.info) + '\\n');
process.on('SIGTERM', () => { sandbox.close().then(() => process.exit(0)); });`;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], {
    cwd: resolve(import.meta.dirname, '..'),
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const line = await new Promise<string>((resolveLine, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.once('line', resolveLine);
    child.once('exit', (code) => reject(new Error(`sandbox process exited with ${code}`)));
  });
  const info = JSON.parse(line) as { base_url: string; auth_url: string; audience: string; client_id: string; client_secret: string };
  const config = createApiConfig({
    baseUrl: info.base_url,
    authUrl: info.auth_url,
    audience: info.audience,
    clientId: info.client_id,
    clientSecret: info.client_secret,
  });
  return { config, child };
}

export function retainedMemory() {
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  const m = process.memoryUsage();
  return { heap: m.heapUsed, arrayBuffers: m.arrayBuffers, retained: m.heapUsed + m.arrayBuffers, rss: m.rss };
}

/** What a run added to the process at its peak (after forced GCs, sampled every `everyMs`), as the benchmarks print it. */
export interface RetainedPeak {
  peak_extra_retained_bytes: number;
  peak_extra_heap_bytes: number;
  peak_extra_array_buffers_bytes: number;
  peak_extra_rss_bytes: number;
  gc_exposed: boolean;
}

/** Runs `work`, sampling what the process retains meanwhile: its result, its wall time and the peak above the start. */
export async function measureRetained<T>(work: () => Promise<T>, everyMs = 5): Promise<{ result: T; ms: number; peak: RetainedPeak; startedAt: number }> {
  const baseline = retainedMemory();
  const peak = { ...baseline };
  const sampler = setInterval(() => {
    const now = retainedMemory();
    peak.heap = Math.max(peak.heap, now.heap);
    peak.arrayBuffers = Math.max(peak.arrayBuffers, now.arrayBuffers);
    peak.retained = Math.max(peak.retained, now.retained);
    peak.rss = Math.max(peak.rss, now.rss);
  }, everyMs);
  const startedAt = performance.now();
  let result: T;
  try {
    result = await work();
  } finally {
    clearInterval(sampler);
  }
  return {
    result,
    ms: performance.now() - startedAt,
    startedAt,
    peak: {
      peak_extra_retained_bytes: peak.retained - baseline.retained,
      peak_extra_heap_bytes: peak.heap - baseline.heap,
      peak_extra_array_buffers_bytes: peak.arrayBuffers - baseline.arrayBuffers,
      peak_extra_rss_bytes: peak.rss - baseline.rss,
      gc_exposed: typeof (globalThis as { gc?: unknown }).gc === 'function',
    },
  };
}
