import fs from 'node:fs';
import {
  devStackFileIn,
  locateDevStackFile,
  processRuns,
  readDevStackFile,
  sameAddress,
  type DevStackInfo,
} from '../client/dev-stack';

// What `studyflow dev` tells the CLI in other shells about the stack it runs: <state-dir>/dev-stack.json while it
// runs (removed when it stops). The format and how a CLI finds it (STUDYFLOW_DEV_STATE_DIR, else .studyflow/ in the
// working directory or a parent) are client/dev-stack.ts; the study client fills its settings from it.

export { devStackFileIn, type DevStackInfo };

/** Writes the file owner-only (it names the sandbox's client and the payload key file); returns its path. */
export function writeDevStackFile(stateDir: string, info: DevStackInfo): string {
  const file = devStackFileIn(stateDir);
  fs.mkdirSync(stateDir, { recursive: true });
  const temporary = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temporary, `${JSON.stringify(info, null, 2)}\n`, { mode: 0o600 });
  fs.renameSync(temporary, file);
  return file;
}

/**
 * The dev stack that `studyflow dev` runs for the Temporal server at `address`, as a CLI in `cwd` finds it, or
 * undefined: no file, one it cannot read, another server's address, or a `studyflow dev` that is no longer running
 * (killed before it removed it). For the UI link only: the study client reports a stale file as an error.
 */
export function devStackFor(cwd: string, address: string, env: Record<string, string | undefined> = process.env): DevStackInfo | undefined {
  const located = locateDevStackFile(env, cwd);
  if (!located) return undefined;
  let info: DevStackInfo | undefined;
  try {
    info = readDevStackFile(located.file);
  } catch {
    return undefined;
  }
  if (!info || !sameAddress(info.temporal_address, address) || !processRuns(info.pid)) return undefined;
  return info;
}
