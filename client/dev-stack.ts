// How a CLI finds the stack `studyflow dev` runs, wherever it runs it. While it runs, dev notes the stack in ONE
// file, <state-dir>/dev-stack.json: its process id, the profile, the ports, the URLs (sandbox API, auth, Temporal,
// UI, webhook receiver, metrics), the payload key file and the blob store. The study client reads it (from
// STUDYFLOW_DEV_STATE_DIR, else .studyflow/ in the working directory or the nearest parent that has one) and fills
// in the settings the user left unset: a variable the user set always wins. A file whose `studyflow dev` no longer
// runs is an error (DevStackError), never a silent plan against nothing.
import fs from 'node:fs';
import path from 'node:path';
import { StudyClientError } from './errors';

/** The variable naming a dev stack's state directory (or its dev-stack.json) from any directory. */
export const DEV_STATE_DIR_VARIABLE = 'STUDYFLOW_DEV_STATE_DIR';
/** `studyflow dev`'s default --state-dir, relative to the directory it runs in. */
export const DEFAULT_DEV_STATE_DIR = '.studyflow';
export const DEV_STACK_FILE_NAME = 'dev-stack.json';

/** What <state-dir>/dev-stack.json holds (snake_case: users read it too). Only `pid` and `temporal_address` are required. */
export interface DevStackInfo {
  /** The `studyflow dev` process. */
  pid: number;
  /** host:port of the Temporal frontend. */
  temporal_address: string;
  /** The Temporal UI, when the dev server runs one. */
  ui_url?: string;
  /** The stack's state directory (absolute). */
  state_dir?: string;
  /** The connection profile the sandbox, worker and receiver speak. */
  profile?: string;
  ports?: { temporal?: number; ui?: number; sandbox?: number; webhook?: number; metrics?: number };
  /** The sandbox's Demand API and token service, with its seeded (public, non-secret) client. */
  api?: { base_url: string; auth_url: string; audience: string; client_id: string; client_secret: string };
  /** The webhook receiver: use it as a webhook url in study files. */
  webhook_url?: string;
  /** The in-process worker's /metrics (and /healthz beside it), with --metrics-port. */
  metrics_url?: string;
  /** The local payload key (AES-256-GCM) the stack encrypts with. */
  codec_key_file?: string;
  /** Where ID lists and sealed webhook secrets live: a directory, or an S3 URL with the file of its S3 settings. */
  blob?: { dir: string } | { url: string; env_file: string };
  webhook_secrets_file?: string;
}

/** A dev-stack file that cannot be used: unreadable, or its `studyflow dev` no longer runs. */
export class DevStackError extends Error {
  override readonly name = 'DevStackError';
}

export function devStackFileIn(stateDir: string): string {
  return path.join(stateDir, DEV_STACK_FILE_NAME);
}

/** Where the dev-stack file is looked for, and whether the user named it (STUDYFLOW_DEV_STATE_DIR) or it was found. */
export interface DevStackLocation {
  file: string;
  named: boolean;
}

/**
 * STUDYFLOW_DEV_STATE_DIR (a state directory, or a dev-stack.json itself; relative to `cwd`), else the nearest
 * `.studyflow/dev-stack.json` in `cwd` or one of its parents; undefined when neither.
 */
export function locateDevStackFile(env: Record<string, string | undefined>, cwd: string): DevStackLocation | undefined {
  const named = env[DEV_STATE_DIR_VARIABLE]?.trim();
  if (named) {
    const resolved = path.resolve(cwd, named);
    const file = path.basename(resolved) === DEV_STACK_FILE_NAME && !isDirectory(resolved) ? resolved : devStackFileIn(resolved);
    return { file, named: true };
  }
  for (let dir = path.resolve(cwd); ; dir = path.dirname(dir)) {
    const file = devStackFileIn(path.join(dir, DEFAULT_DEV_STATE_DIR));
    if (fs.existsSync(file)) return { file, named: false };
    if (path.dirname(dir) === dir) return undefined;
  }
}

/** Reads a dev-stack file; undefined when there is none. @throws DevStackError when it is not one. */
export function readDevStackFile(file: string): DevStackInfo | undefined {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new DevStackError(`${file}: cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
  }
  let info: Partial<DevStackInfo>;
  try {
    info = JSON.parse(text) as Partial<DevStackInfo>;
  } catch (error) {
    throw new DevStackError(`${file}: not a dev-stack file (${(error as Error).message})`);
  }
  if (!info || typeof info !== 'object' || typeof info.temporal_address !== 'string' || typeof info.pid !== 'number') {
    throw new DevStackError(`${file}: not a dev-stack file (it needs "pid" and "temporal_address")`);
  }
  return info as DevStackInfo;
}

/** Whether the process `pid` runs (EPERM: it runs, as another user). */
export function processRuns(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** host:port pairs naming the same loopback server (localhost and 127.0.0.1 alike). */
export function sameAddress(a: string, b: string): boolean {
  const norm = (x: string) => x.trim().toLowerCase().replace(/^localhost(?=:)/, '127.0.0.1');
  return norm(a) === norm(b);
}

/**
 * The settings a process uses to reach the dev stack of `info`, as variables. `read` reads the S3 settings file of
 * a stack with `--blob s3` (owner-only: it holds the local S3 server's credential).
 */
export function devStackVariables(info: DevStackInfo, read: (file: string) => string = (f) => fs.readFileSync(f, 'utf8')): Record<string, string> {
  const vars: Record<string, string> = { TEMPORAL_ADDRESS: info.temporal_address, TEMPORAL_NAMESPACE: 'default' };
  if (info.api) {
    Object.assign(vars, {
      STUDYFLOW_API_BASE_URL: info.api.base_url,
      STUDYFLOW_AUTH_URL: info.api.auth_url,
      STUDYFLOW_AUDIENCE: info.api.audience,
      STUDYFLOW_CLIENT_ID: info.api.client_id,
      STUDYFLOW_CLIENT_SECRET: info.api.client_secret,
    });
  }
  if (info.profile) vars.STUDYFLOW_API_PROFILE = info.profile;
  if (info.codec_key_file) vars.STUDYFLOW_CODEC_KEY_FILE = info.codec_key_file;
  if (info.blob && 'dir' in info.blob) vars.STUDYFLOW_BLOB_DIR = info.blob.dir;
  if (info.blob && 'url' in info.blob) {
    vars.STUDYFLOW_BLOB_URL = info.blob.url;
    for (const line of read(info.blob.env_file).split('\n')) {
      const at = line.indexOf('=');
      if (at > 0 && line.slice(0, at).startsWith('AWS_')) vars[line.slice(0, at)] = line.slice(at + 1);
    }
  }
  if (info.webhook_secrets_file) vars.STUDYFLOW_WEBHOOK_SECRETS_FILE = info.webhook_secrets_file;
  if (info.ui_url) vars.STUDYFLOW_TEMPORAL_UI_URL = info.ui_url;
  return vars;
}

/**
 * Variables that go together: one set by the user keeps the file's whole group out (a user's STUDYFLOW_API_BASE_URL
 * with the sandbox's client secret would be neither).
 */
const GROUPS: { set: string[]; fills: string[] }[] = [
  { set: ['TEMPORAL_ADDRESS'], fills: ['TEMPORAL_ADDRESS', 'TEMPORAL_NAMESPACE'] },
  { set: ['STUDYFLOW_API_BASE_URL'], fills: ['STUDYFLOW_API_BASE_URL', 'STUDYFLOW_AUTH_URL', 'STUDYFLOW_AUDIENCE', 'STUDYFLOW_CLIENT_ID', 'STUDYFLOW_CLIENT_SECRET'] },
  { set: ['STUDYFLOW_CODEC_KEYS', 'STUDYFLOW_CODEC_KEY_FILE'], fills: ['STUDYFLOW_CODEC_KEY_FILE'] },
  { set: ['STUDYFLOW_BLOB_URL', 'STUDYFLOW_BLOB_DIR'], fills: ['STUDYFLOW_BLOB_URL', 'STUDYFLOW_BLOB_DIR', 'AWS_ENDPOINT_URL', 'AWS_REGION', 'AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY'] },
];

const present = (value: string | undefined) => value !== undefined && value.trim() !== '';

/**
 * `env` with the settings of the running dev stack filled in where the user set none (see the file's comment).
 * A TEMPORAL_ADDRESS naming another server than the stack's means another stack: the file is not used.
 * @throws DevStackError when the file cannot be read, its `studyflow dev` no longer runs, STUDYFLOW_DEV_STATE_DIR
 * names a directory without one, or STUDYFLOW_API_PROFILE names another profile than the stack speaks.
 */
export function withDevStack(env: Readonly<Record<string, string | undefined>>, cwd: string): Record<string, string | undefined> {
  const located = locateDevStackFile(env, cwd);
  if (!located) return { ...env };
  const info = readDevStackFile(located.file);
  if (!info) {
    // Only a named location can be missing.
    throw new DevStackError(
      `${DEV_STATE_DIR_VARIABLE}=${env[DEV_STATE_DIR_VARIABLE]}: no dev stack runs there (no ${located.file}): start \`studyflow dev --state-dir ${path.dirname(located.file)}\`, or unset ${DEV_STATE_DIR_VARIABLE}`,
    );
  }
  if (present(env.TEMPORAL_ADDRESS) && !sameAddress(env.TEMPORAL_ADDRESS!, info.temporal_address)) return { ...env };
  if (!processRuns(info.pid)) {
    const stateDir = path.dirname(located.file);
    const restart = `studyflow dev${located.named || path.basename(stateDir) !== DEFAULT_DEV_STATE_DIR ? ` --state-dir ${stateDir}` : ''}`;
    throw new DevStackError(
      `the dev stack noted in ${located.file} no longer runs (its process ${info.pid} has ended): start \`${restart}\` again, or remove that file${located.named ? ` or unset ${DEV_STATE_DIR_VARIABLE}` : ''} to use other settings`,
    );
  }
  const asked = env.STUDYFLOW_API_PROFILE?.trim();
  if (asked && info.profile && asked !== info.profile && !present(env.STUDYFLOW_API_BASE_URL)) {
    throw new DevStackError(
      `STUDYFLOW_API_PROFILE is ${asked}, but the dev stack of ${located.file} speaks the ${info.profile} profile: unset it, set it to ${info.profile}, or restart the dev stack with --profile ${asked}`,
    );
  }
  let vars: Record<string, string>;
  try {
    vars = devStackVariables(info);
  } catch (error) {
    throw new DevStackError(`${located.file}: a file it names cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
  }
  const filled: Record<string, string | undefined> = { ...env };
  const grouped = new Set(GROUPS.flatMap((g) => g.fills));
  for (const group of GROUPS) {
    if (group.set.some((name) => present(env[name]))) continue;
    for (const name of group.fills) if (vars[name] !== undefined) filled[name] = vars[name];
  }
  for (const [name, value] of Object.entries(vars)) {
    if (!grouped.has(name) && !present(env[name])) filled[name] = value;
  }
  // The API's profile goes with the API: a user's own STUDYFLOW_API_BASE_URL keeps their profile (or its default).
  if (present(env.STUDYFLOW_API_BASE_URL) && !present(env.STUDYFLOW_API_PROFILE)) delete filled.STUDYFLOW_API_PROFILE;
  return filled;
}

function isDirectory(file: string): boolean {
  try {
    return fs.statSync(file).isDirectory();
  } catch {
    return false;
  }
}

/** `withDevStack` for the study client: a dev stack that cannot be used is a StudyClientError (exit 1) naming why. */
export function devStackSettings(env: NodeJS.ProcessEnv, cwd: string): NodeJS.ProcessEnv {
  try {
    return withDevStack(env, cwd) as NodeJS.ProcessEnv;
  } catch (error) {
    if (error instanceof DevStackError) throw new StudyClientError(error.message, 1);
    throw error;
  }
}
