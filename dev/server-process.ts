// Starting a local server binary (the Temporal dev server, versitygw) as a child process that logs to a file.
import { spawn, type ChildProcess } from 'node:child_process';

/** How {@link spawnServer} starts a server. */
export interface ServerSpawnOptions {
  /** File descriptor both stdout and stderr go to. */
  log: number;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /**
   * Through a shell watchdog, so that the server dies with this process even when this process is
   * SIGKILLed (tests, the demo); otherwise the server is a plain child.
   */
  stopWithParent?: boolean;
}

export function spawnServer(bin: string, args: string[], options: ServerSpawnOptions): ChildProcess {
  const common = { stdio: ['ignore', options.log, options.log] as ['ignore', number, number], env: options.env, cwd: options.cwd };
  if (!options.stopWithParent) return spawn(bin, args, common);
  const quoted = [bin, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  const script =
    `${quoted} & srv=$!; trap 'kill $srv 2>/dev/null; wait $srv; exit 0' TERM INT; ` +
    `while kill -0 ${process.pid} 2>/dev/null && kill -0 $srv 2>/dev/null; do sleep 1 & wait $!; done; ` +
    `kill $srv 2>/dev/null; wait $srv`;
  return spawn('bash', ['-c', script], common);
}
