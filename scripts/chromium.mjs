// Locates, and when needed unpacks, the headless Chromium that studyflow's tests (and later its screenshots)
// drive with playwright-core. The browser comes from an npm package, @sparticuz/chromium (a devDependency,
// pinned): a Brotli-compressed headless-shell build of Chromium with the few shared libraries it needs
// (NSS, NSPR, expat), SwiftShader and a font. Nothing is downloaded from anywhere but the npm registry, and
// no system package is needed beyond the C library: on a fresh Debian with Node 20, `npm ci` brings the
// package, and this unpacks it into the studyflow cache. Plain JavaScript so that it runs before anything
// else is compiled.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import zlib from 'node:zlib';
import { cacheRoot } from '../dev/go-tool.mjs';

/** The package that ships the browser, and the variable that names a Chromium to use instead. */
export const CHROMIUM_PACKAGE = '@sparticuz/chromium';
export const CHROMIUM_PATH_VARIABLE = 'STUDYFLOW_CHROMIUM_PATH';
/** The one command that installs it, as the tests' message names it. */
export const CHROMIUM_INSTALL_COMMAND = 'node scripts/install-chromium.mjs';

/** The error of a browser that is not there (or not runnable), naming the one command that installs it. */
export class ChromiumMissingError extends Error {
  constructor(detail, command = CHROMIUM_INSTALL_COMMAND) {
    super(`headless Chromium is not available: ${detail}; run \`${command}\` (npm test runs it), or set ${CHROMIUM_PATH_VARIABLE} to a Chromium binary`);
    this.name = 'ChromiumMissingError';
  }
}
const packageMissing = () => new ChromiumMissingError(`the npm package ${CHROMIUM_PACKAGE} is not installed`, 'npm ci');

const require = createRequire(import.meta.url);

/** The installed package's directory and version, or undefined when `npm ci` has not brought it. */
function packageInfo() {
  try {
    // Its exports do not include package.json: find the package's directory from its entry point.
    let dir = path.dirname(require.resolve(CHROMIUM_PACKAGE));
    while (!fs.existsSync(path.join(dir, 'package.json')) || JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')).name !== CHROMIUM_PACKAGE) {
      if (path.dirname(dir) === dir) return undefined;
      dir = path.dirname(dir);
    }
    return { dir, version: JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')).version };
  } catch {
    return undefined;
  }
}

function isExecutable(file) {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

/** The version directory in the cache: <cache>/chromium/<package version>/ holding the launcher `chromium`. */
export function cachedChromiumDir(version = packageInfo()?.version) {
  if (!version) throw packageMissing();
  return path.join(cacheRoot(), 'chromium', version);
}

/** Where the launcher lives (or would live). */
export const cachedChromiumPath = (version) => path.join(cachedChromiumDir(version), 'chromium');

/** The browser to run: STUDYFLOW_CHROMIUM_PATH when set, else the unpacked package's launcher. Undefined when neither exists. */
export function resolveChromium() {
  const override = process.env[CHROMIUM_PATH_VARIABLE];
  if (override) {
    if (!isExecutable(override)) throw new ChromiumMissingError(`${CHROMIUM_PATH_VARIABLE}=${override} is not an executable file`);
    return override;
  }
  const info = packageInfo();
  if (!info) return undefined;
  const launcher = cachedChromiumPath(info.version);
  return isExecutable(launcher) ? launcher : undefined;
}

/**
 * The one helper for anything that drives a browser: the executable path to hand to playwright-core's
 * `executablePath`, or a ChromiumMissingError that names the command to run.
 */
export function chromiumExecutablePath() {
  const found = resolveChromium();
  if (found) return found;
  const info = packageInfo();
  if (!info) throw packageMissing();
  throw new ChromiumMissingError(`it has not been unpacked into ${cachedChromiumDir(info.version)}`);
}

/** Flags for a headless run as root in a container (no sandbox), with nothing reaching out to the network. */
export const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

async function unbrotli(from, to) {
  await pipeline(fs.createReadStream(from, { highWaterMark: 1 << 22 }), zlib.createBrotliDecompress({ chunkSize: 1 << 21 }), fs.createWriteStream(to, { mode: 0o755 }));
}

/** Unpacks a .tar.br of the package into `dir` with the system's tar (Essential on Debian). */
function untarBrotli(from, dir) {
  fs.mkdirSync(dir, { recursive: true });
  const tarball = zlib.brotliDecompressSync(fs.readFileSync(from));
  const result = spawnSync('tar', ['-x', '-f', '-', '-C', dir, '--no-same-owner'], { input: tarball, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`unpacking ${path.basename(from)} failed: ${result.error?.message ?? result.stderr.trim()}`);
}

/**
 * Ensures the browser is unpacked in the cache; returns the launcher's path. The layout:
 *   bin/chromium       the browser, beside SwiftShader's libraries (it loads them from its own directory)
 *   lib/               NSS, NSPR and expat, as shipped with the package
 *   fonts/             a font and a fontconfig file that names only it
 *   chromium           the launcher: sets LD_LIBRARY_PATH and FONTCONFIG_FILE, then execs bin/chromium
 * It is unpacked into a staging directory and renamed into place, so a half-unpacked browser is never found.
 */
export async function installChromium(log = (line) => process.stderr.write(`${line}\n`)) {
  const existing = resolveChromium();
  if (existing) return existing;
  const info = packageInfo();
  if (!info) throw packageMissing();
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    throw new ChromiumMissingError(`${CHROMIUM_PACKAGE} ships a build for Linux x64 only (this is ${process.platform} ${process.arch})`);
  }
  const target = cachedChromiumDir(info.version);
  fs.mkdirSync(path.dirname(target), { recursive: true });
  const staging = fs.mkdtempSync(path.join(path.dirname(target), '.unpack-'));
  fs.chmodSync(staging, 0o755);
  const started = Date.now();
  let version = '';
  log(`studyflow: unpacking headless Chromium from ${CHROMIUM_PACKAGE}@${info.version} (first run only, a few seconds)…`);
  try {
    const packed = path.join(info.dir, 'bin');
    fs.mkdirSync(path.join(staging, 'bin'));
    await unbrotli(path.join(packed, 'chromium.br'), path.join(staging, 'bin', 'chromium'));
    untarBrotli(path.join(packed, 'swiftshader.tar.br'), path.join(staging, 'bin'));
    untarBrotli(path.join(packed, 'al2023.tar.br'), staging); // lib/…
    untarBrotli(path.join(packed, 'fonts.tar.br'), staging); // fonts/… and the package's fonts.conf, which names Lambda's directories
    fs.writeFileSync(path.join(staging, 'fonts', 'fonts.conf'), [
      '<?xml version="1.0"?>',
      '<!DOCTYPE fontconfig SYSTEM "fonts.dtd">',
      '<!-- written by studyflow scripts/chromium.mjs: the fonts unpacked beside it, then the system\'s -->',
      '<fontconfig>',
      `  <dir>${path.join(target, 'fonts')}</dir>`,
      '  <dir>/usr/share/fonts</dir>',
      `  <cachedir>${path.join(target, 'fonts-cache')}</cachedir>`,
      '</fontconfig>',
      '',
    ].join('\n'));
    fs.rmSync(path.join(staging, 'fonts.conf'), { force: true });
    fs.writeFileSync(path.join(staging, 'chromium'), [
      '#!/bin/sh',
      `# headless Chromium ${CHROMIUM_PACKAGE}@${info.version}, unpacked by studyflow (scripts/chromium.mjs)`,
      'here=$(CDPATH= cd -- "$(dirname -- "$0")" && pwd)',
      'LD_LIBRARY_PATH="$here/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"',
      'FONTCONFIG_FILE="$here/fonts/fonts.conf"',
      'export LD_LIBRARY_PATH FONTCONFIG_FILE',
      'exec "$here/bin/chromium" "$@"',
      '',
    ].join('\n'), { mode: 0o755 });
    // It must start here: a library the machine lacks is named now, not in the middle of a test.
    const probe = spawnSync(path.join(staging, 'chromium'), ['--version'], { encoding: 'utf8', timeout: 30_000 });
    if (probe.status !== 0) {
      throw new ChromiumMissingError(`the unpacked browser does not start (${(probe.stderr || probe.error?.message || `exit ${probe.status}`).trim()})`);
    }
    version = probe.stdout.trim();
    try {
      fs.renameSync(staging, target);
    } catch (error) {
      // Another process unpacked it first: use theirs.
      if (!isExecutable(path.join(target, 'chromium'))) throw error;
      fs.rmSync(staging, { recursive: true, force: true });
    }
  } catch (error) {
    fs.rmSync(staging, { recursive: true, force: true });
    throw error;
  }
  const launcher = path.join(target, 'chromium');
  log(`studyflow: ${version} ready at ${launcher} (${Math.round((Date.now() - started) / 1000)} s)`);
  return launcher;
}
