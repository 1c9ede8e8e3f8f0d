// Locates, and when needed builds, the pinned versitygw (Versity S3 Gateway): the S3 server that
// `studyflow dev --blob s3` and the multi-host test run over a local directory (posix backend).
// Plain JavaScript so that it runs before anything else is installed or compiled; modelled on
// temporal-cli.mjs (pinned `go install`, cached under the studyflow cache root, a path override).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** The pinned release. Its go.mod has no `replace` directive, so `go install module@version` builds it. */
export const VERSITYGW_VERSION = 'v1.8.0';
export const VERSITYGW_MODULE = 'github.com/versity/versitygw/cmd/versitygw';

function cacheRoot() {
  if (process.env.STUDYFLOW_CACHE_DIR) return process.env.STUDYFLOW_CACHE_DIR;
  const xdg = process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
  return path.join(xdg, 'studyflow');
}

/** Where the cached binary lives (or would live). */
export function cachedVersitygwPath() {
  return path.join(cacheRoot(), 'versitygw', VERSITYGW_VERSION, 'versitygw');
}

function isExecutable(file) {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

/** The binary to run: VERSITYGW_PATH when set, else the cached pinned build. Undefined when neither exists. */
export function resolveVersitygw() {
  const override = process.env.VERSITYGW_PATH;
  if (override) {
    if (!isExecutable(override)) throw new Error(`VERSITYGW_PATH=${override} is not an executable file`);
    return override;
  }
  const cached = cachedVersitygwPath();
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
 * Ensures the pinned versitygw is there, building it with `go install` into the cache the first time
 * (a minute or two). Returns the binary path. Logs progress through `log` (stderr by default).
 */
export function installVersitygw(log = (line) => process.stderr.write(`${line}\n`)) {
  const existing = resolveVersitygw();
  if (existing) return existing;
  const go = findGo();
  if (!go) {
    throw new Error(
      'versitygw (the local S3 server) is not installed and Go was not found to build it: install Go (https://go.dev/dl) ' +
        'or set VERSITYGW_PATH to a versitygw binary',
    );
  }
  const target = cachedVersitygwPath();
  fs.mkdirSync(path.dirname(target), { recursive: true });
  const staging = fs.mkdtempSync(path.join(path.dirname(path.dirname(target)), '.build-'));
  log(`studyflow: building ${VERSITYGW_MODULE}@${VERSITYGW_VERSION} with ${go} (first run only, a minute or two)…`);
  const started = Date.now();
  const result = spawnSync(go, ['install', `${VERSITYGW_MODULE}@${VERSITYGW_VERSION}`], {
    stdio: ['ignore', 'inherit', 'inherit'],
    env: { ...process.env, GOBIN: staging, GOFLAGS: process.env.GOFLAGS ?? '-mod=mod' },
  });
  if (result.status !== 0) {
    fs.rmSync(staging, { recursive: true, force: true });
    throw new Error(`go install of versitygw failed (exit ${result.status ?? result.signal})`);
  }
  fs.renameSync(path.join(staging, 'versitygw'), target);
  fs.rmSync(staging, { recursive: true, force: true });
  log(`studyflow: versitygw ready at ${target} (${Math.round((Date.now() - started) / 1000)} s)`);
  return target;
}
