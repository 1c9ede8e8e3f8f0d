import fs from 'node:fs';
import path from 'node:path';

// What `studyflow dev` tells the CLI in other shells about the stack it runs: the Temporal address and the
// Temporal UI's URL (its --ui-port), in <state-dir>/dev-stack.json while it runs (removed when it stops). The
// CLI reads it from .studyflow/ in its working directory, the default state dir, as it finds the payload key there.

/** The file, relative to the directory `studyflow dev` runs in (its default --state-dir). */
export const DEV_STACK_FILE = path.join('.studyflow', 'dev-stack.json');

export interface DevStackInfo {
  /** host:port of the Temporal frontend. */
  temporal_address: string;
  /** The Temporal UI, when the dev server runs one. */
  ui_url?: string;
  /** The `studyflow dev` process. */
  pid: number;
}

export function devStackFileIn(stateDir: string): string {
  return path.join(stateDir, 'dev-stack.json');
}

export function writeDevStackFile(stateDir: string, info: DevStackInfo): string {
  const file = devStackFileIn(stateDir);
  fs.mkdirSync(stateDir, { recursive: true });
  fs.writeFileSync(file, `${JSON.stringify(info, null, 2)}\n`);
  return file;
}

/**
 * The dev stack that `studyflow dev` runs from `cwd` for the Temporal server at `address`, or undefined: no
 * file, another server's address, or a `studyflow dev` that is no longer running (killed before it removed it).
 */
export function devStackFor(cwd: string, address: string): DevStackInfo | undefined {
  let info: Partial<DevStackInfo>;
  try {
    info = JSON.parse(fs.readFileSync(path.resolve(cwd, DEV_STACK_FILE), 'utf8')) as Partial<DevStackInfo>;
  } catch {
    return undefined;
  }
  if (typeof info.temporal_address !== 'string' || typeof info.pid !== 'number') return undefined;
  if (!sameAddress(info.temporal_address, address) || !running(info.pid)) return undefined;
  return info as DevStackInfo;
}

/** host:port pairs naming the same loopback server (localhost and 127.0.0.1 alike). */
function sameAddress(a: string, b: string): boolean {
  const norm = (x: string) => x.trim().toLowerCase().replace(/^localhost(?=:)/, '127.0.0.1');
  return norm(a) === norm(b);
}

function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it runs, as another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
