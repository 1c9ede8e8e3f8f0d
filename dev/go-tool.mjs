// A Go program that studyflow builds itself, pinned: located in the studyflow cache (or at a path variable's
// override) and, when missing, built with `go install module@version` into that cache. The temporal CLI and
// versitygw are two of them. Plain JavaScript so that it runs before anything else is installed or compiled:
// the dev servers (dev/*.ts) and the install scripts (scripts/install-*.mjs, run by node on a fresh clone) both
// import it from here, so runtime code never reaches into scripts/.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** studyflow's cache root: STUDYFLOW_CACHE_DIR, else $XDG_CACHE_HOME/studyflow (default ~/.cache/studyflow). */
export function cacheRoot() {
  if (process.env.STUDYFLOW_CACHE_DIR) return process.env.STUDYFLOW_CACHE_DIR;
  const xdg = process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
  return path.join(xdg, 'studyflow');
}

function isExecutable(file) {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
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
 * One pinned Go tool. `binary`: the name `go install` gives it; `label`: how messages name it;
 * `pathVariable`: the variable that names a binary to use instead; `buildTime`: what the first build takes.
 */
export function goTool({ binary, label, module, version, pathVariable, buildTime }) {
  /** Where the cached binary lives (or would live). */
  const cachedPath = () => path.join(cacheRoot(), binary, version, binary);

  /** The binary to run: the path variable's when set, else the cached pinned build. Undefined when neither exists. */
  const resolve = () => {
    const override = process.env[pathVariable];
    if (override) {
      if (!isExecutable(override)) throw new Error(`${pathVariable}=${override} is not an executable file`);
      return override;
    }
    const cached = cachedPath();
    return isExecutable(cached) ? cached : undefined;
  };

  /** Ensures the tool is there, building it into the cache the first time; returns its path. Logs through `log`. */
  const install = (log = (line) => process.stderr.write(`${line}\n`)) => {
    const existing = resolve();
    if (existing) return existing;
    const go = findGo();
    if (!go) {
      throw new Error(`${label} is not installed and Go was not found to build it: install Go (https://go.dev/dl) or set ${pathVariable} to a ${binary} binary`);
    }
    const target = cachedPath();
    // The version directory (and so every parent, up to the cache root) exists before the staging
    // directory is made beside it: on a fresh machine none of them does yet.
    fs.mkdirSync(path.dirname(target), { recursive: true });
    const staging = fs.mkdtempSync(path.join(path.dirname(path.dirname(target)), '.build-'));
    log(`studyflow: building ${module}@${version} with ${go} (first run only, ${buildTime})…`);
    const started = Date.now();
    const result = spawnSync(go, ['install', `${module}@${version}`], {
      stdio: ['ignore', 'inherit', 'inherit'],
      env: { ...process.env, GOBIN: staging, GOFLAGS: process.env.GOFLAGS ?? '-mod=mod' },
    });
    if (result.status !== 0) {
      fs.rmSync(staging, { recursive: true, force: true });
      throw new Error(`go install of ${label} failed (exit ${result.status ?? result.signal})`);
    }
    fs.renameSync(path.join(staging, binary), target);
    fs.rmSync(staging, { recursive: true, force: true });
    log(`studyflow: ${label} ready at ${target} (${Math.round((Date.now() - started) / 1000)} s)`);
    return target;
  };

  return { cachedPath, resolve, install };
}
