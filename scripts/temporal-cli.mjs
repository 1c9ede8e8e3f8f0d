// Locates, and when needed builds, the pinned `temporal` CLI (Temporal dev server).
// Plain JavaScript so that it runs before anything else is installed or compiled.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** The pinned release: the newest whose go.mod has no `replace` line, so `go install` can build it. */
export const TEMPORAL_CLI_VERSION = 'v1.5.1';
export const TEMPORAL_CLI_MODULE = 'github.com/temporalio/cli/cmd/temporal';

function cacheRoot() {
  if (process.env.STUDYFLOW_CACHE_DIR) return process.env.STUDYFLOW_CACHE_DIR;
  const xdg = process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
  return path.join(xdg, 'studyflow');
}

/** Where the cached binary lives (or would live). */
export function cachedTemporalCliPath() {
  return path.join(cacheRoot(), 'temporal', TEMPORAL_CLI_VERSION, 'temporal');
}

function isExecutable(file) {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

/** The binary to run: TEMPORAL_CLI_PATH when set, else the cached pinned build. Undefined when neither exists. */
export function resolveTemporalCli() {
  const override = process.env.TEMPORAL_CLI_PATH;
  if (override) {
    if (!isExecutable(override)) {
      throw new Error(`TEMPORAL_CLI_PATH=${override} is not an executable file`);
    }
    return override;
  }
  const cached = cachedTemporalCliPath();
  return isExecutable(cached) ? cached : undefined;
}

function findGo() {
  const candidates = [process.env.GO_BINARY, 'go', '/usr/local/go/bin/go'].filter(Boolean);
  for (const candidate of candidates) {
    const probe = spawnSync(candidate, ['version'], { encoding: 'utf8' });
    if (probe.status === 0) return candidate;
  }
  return undefined;
}

/**
 * Ensures the pinned CLI is there, building it with `go install` into the cache the first time.
 * Returns the binary path. Logs progress through `log` (stderr by default).
 */
export function installTemporalCli(log = (line) => process.stderr.write(`${line}\n`)) {
  const existing = resolveTemporalCli();
  if (existing) return existing;
  const go = findGo();
  if (!go) {
    throw new Error(
      'the temporal CLI is not installed and Go was not found to build it: install Go (https://go.dev/dl) ' +
        'or set TEMPORAL_CLI_PATH to a temporal binary',
    );
  }
  const target = cachedTemporalCliPath();
  // The version directory (and so every parent, up to the cache root) exists before the staging
  // directory is made beside it: on a fresh machine none of them does yet.
  fs.mkdirSync(path.dirname(target), { recursive: true });
  const staging = fs.mkdtempSync(path.join(path.dirname(path.dirname(target)), '.build-'));
  log(`studyflow: building ${TEMPORAL_CLI_MODULE}@${TEMPORAL_CLI_VERSION} with ${go} (first run only, a few minutes)…`);
  const started = Date.now();
  const result = spawnSync(go, ['install', `${TEMPORAL_CLI_MODULE}@${TEMPORAL_CLI_VERSION}`], {
    stdio: ['ignore', 'inherit', 'inherit'],
    env: { ...process.env, GOBIN: staging, GOFLAGS: process.env.GOFLAGS ?? '-mod=mod' },
  });
  if (result.status !== 0) {
    fs.rmSync(staging, { recursive: true, force: true });
    throw new Error(`go install of the temporal CLI failed (exit ${result.status ?? result.signal})`);
  }
  fs.renameSync(path.join(staging, 'temporal'), target);
  fs.rmSync(staging, { recursive: true, force: true });
  log(`studyflow: temporal CLI ready at ${target} (${Math.round((Date.now() - started) / 1000)} s)`);
  return target;
}
