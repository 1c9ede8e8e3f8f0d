// A V8 code cache for the CommonJS modules the `studyflow` command requires from node_modules (Temporal's
// client, grpc-js, protobufjs and the Temporal API's definitions, undici): compiling them is about 140 ms of
// CPU in every run of `apply`, `plan` or `status`, and Node 20 has no compile cache of its own
// (module.enableCompileCache is Node 22). bin/studyflow.js installs it before it loads the CLI; nothing else does
// (tests that import the CLI's modules run without it).
//
// Each module is compiled as Node compiles it (the same wrapper, the same require), with the bytes V8 produced
// for the same source in an earlier run. The store is one file in the studyflow cache
// ($STUDYFLOW_CACHE_DIR, else $XDG_CACHE_HOME/studyflow, else ~/.cache/studyflow), under code-cache/, named by
// the Node version, V8 version and architecture; each entry is keyed by the module's path and a hash of its
// source (npm gives every installed file the same mtime, so a changed file is told by its content; V8 checks
// the rest and refuses bytes it cannot use, and then the module is compiled afresh). New or refused entries are
// produced when the process exits, after the command ran, so they hold the functions it compiled lazily too.
// A missing, unreadable or read-only cache directory only means no cache: nothing is reported, nothing fails.
// STUDYFLOW_CODE_CACHE=off turns it off (to measure without it).
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import Module from 'node:module';
import os from 'node:os';
import path from 'node:path';
import vm from 'node:vm';

/** The store's format; bump it when the layout changes (an old file is then ignored and replaced). */
const FORMAT = 'studyflow-code-cache-1';
/** The store is not let grow beyond this: entries of this process first, then older ones while they fit. */
const MAX_STORE_BYTES = 64 * 1024 * 1024;
const NODE_MODULES = `${path.sep}node_modules${path.sep}`;

interface Entry {
  /** sha1 of the module's source. */
  hash: string;
  data: Buffer;
}

interface IndexEntry {
  file: string;
  hash: string;
  offset: number;
  length: number;
}

/** Node's internals this hook stands in for, as `node:module` exposes them at run time. */
interface ModuleInternals {
  wrap(script: string): string;
  _resolveFilename(request: string, parent: unknown, isMain: boolean, options?: unknown): string;
  _resolveLookupPaths(request: string, parent: unknown): string[] | null;
  _extensions: unknown;
  _cache: unknown;
  prototype: {
    _compile(this: CjsModule, content: string, filename: string, ...rest: unknown[]): unknown;
  };
}

interface CjsModule {
  exports: unknown;
  require(id: string): unknown;
}

/** The cache directory for `env`: STUDYFLOW_CACHE_DIR, else $XDG_CACHE_HOME/studyflow (default ~/.cache/studyflow). */
export function codeCacheDir(env: NodeJS.ProcessEnv): string {
  const root = env.STUDYFLOW_CACHE_DIR || path.join(env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'studyflow');
  return path.join(root, 'code-cache');
}

/** The store's file in `dir`: one per Node version, V8 version and architecture (V8 refuses another's bytes). */
export function codeCacheFile(dir: string): string {
  return path.join(dir, `v8-${process.version}-${process.versions.v8}-${process.arch}.bin`);
}

/** Reads the store: an empty map when it is missing, unreadable, of another format, or damaged. */
export function readStore(file: string): Map<string, Entry> {
  const entries = new Map<string, Entry>();
  let bytes: Buffer;
  try {
    bytes = fs.readFileSync(file);
  } catch {
    return entries;
  }
  try {
    const indexLength = bytes.readUInt32LE(0);
    const header = JSON.parse(bytes.subarray(4, 4 + indexLength).toString('utf8')) as { format?: unknown; entries?: IndexEntry[] };
    if (header.format !== FORMAT || !Array.isArray(header.entries)) return entries;
    const base = 4 + indexLength;
    for (const e of header.entries) {
      if (typeof e.file !== 'string' || typeof e.hash !== 'string' || !(e.offset >= 0) || !(e.length > 0)) continue;
      if (base + e.offset + e.length > bytes.length) continue;
      entries.set(e.file, { hash: e.hash, data: bytes.subarray(base + e.offset, base + e.offset + e.length) });
    }
  } catch {
    entries.clear();
  }
  return entries;
}

/** Writes the store whole (a temporary file renamed over the old one, so a reader never sees half of it). */
export function writeStore(file: string, entries: Map<string, Entry>): void {
  const index: IndexEntry[] = [];
  const blobs: Buffer[] = [];
  let offset = 0;
  for (const [name, { hash, data }] of entries) {
    index.push({ file: name, hash, offset, length: data.length });
    blobs.push(data);
    offset += data.length;
  }
  const header = Buffer.from(JSON.stringify({ format: FORMAT, entries: index }), 'utf8');
  const length = Buffer.alloc(4);
  length.writeUInt32LE(header.length, 0);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}.tmp`;
  try {
    fs.writeFileSync(temporary, Buffer.concat([length, header, ...blobs]));
    fs.renameSync(temporary, file);
  } catch (error) {
    fs.rmSync(temporary, { force: true });
    throw error;
  }
}

/** What one process did with the cache (for its test and the benchmark). */
export interface CodeCacheStats {
  /** Modules compiled with cached bytes V8 accepted. */
  hits: number;
  /** Modules compiled afresh (no entry, another source, or bytes V8 refused); their entries are written at exit. */
  misses: number;
}

let installed: CodeCacheStats | undefined;

/**
 * Compiles the CommonJS modules this process requires from node_modules with the code cache of `env`'s cache
 * directory, and writes new entries when the process exits. Does nothing when STUDYFLOW_CODE_CACHE is `off`, when
 * Node maps stack traces through source maps (--enable-source-maps: Node's own compiler must then see each module),
 * or when it is installed already.
 */
export function installCodeCache(env: NodeJS.ProcessEnv = process.env): CodeCacheStats | undefined {
  if (installed) return installed;
  if (env.STUDYFLOW_CODE_CACHE === 'off' || (process as { sourceMapsEnabled?: boolean }).sourceMapsEnabled) return undefined;
  const file = codeCacheFile(codeCacheDir(env));
  // Read when the first module is compiled: a command that requires no package (validate, --version) never reads it.
  let storedEntries: Map<string, Entry> | undefined;
  const stored = () => (storedEntries ??= readStore(file));
  const used = new Map<string, Entry>();
  const produce = new Map<string, { hash: string; script: vm.Script }>();
  const stats: CodeCacheStats = { hits: 0, misses: 0 };
  const internals = Module as unknown as ModuleInternals;
  const originalCompile = internals.prototype._compile;
  // Dynamic import() inside a module compiled here needs Node's default loader (Node >= 20.12 names it);
  // on an older Node a module that uses import() is left to Node's own compiler.
  const mainContextLoader = (vm.constants as unknown as { USE_MAIN_CONTEXT_DEFAULT_LOADER?: symbol } | undefined)?.USE_MAIN_CONTEXT_DEFAULT_LOADER;

  internals.prototype._compile = function compileWithCodeCache(this: CjsModule, content: string, filename: string, ...rest: unknown[]) {
    // Only CommonJS sources under node_modules (a `format` of 'module' is an ES module Node loads for require()).
    const format = rest[0];
    if (
      (format !== undefined && format !== 'commonjs') ||
      !filename.includes(NODE_MODULES) ||
      !/\.c?js$/.test(filename) ||
      content.startsWith('#!') ||
      (!mainContextLoader && content.includes('import('))
    ) {
      return originalCompile.call(this, content, filename, ...rest);
    }
    const hash = createHash('sha1').update(content).digest('base64');
    const cached = stored().get(filename);
    const cachedData = cached?.hash === hash ? cached.data : undefined;
    let script: vm.Script;
    try {
      script = new vm.Script(internals.wrap(content), {
        filename,
        cachedData,
        ...(mainContextLoader ? { importModuleDynamically: mainContextLoader as never } : {}),
      });
    } catch {
      // Not a script CommonJS can compile (Node may load it another way): Node's compiler decides, and reports.
      return originalCompile.call(this, content, filename, ...rest);
    }
    if (cachedData && !script.cachedDataRejected) {
      stats.hits += 1;
      used.set(filename, { hash, data: cachedData });
    } else {
      stats.misses += 1;
      produce.set(filename, { hash, script });
    }
    const compiled = script.runInThisContext({ displayErrors: true }) as (...args: unknown[]) => unknown;
    return compiled.call(this.exports, this.exports, requireFor(this, internals), this, filename, path.dirname(filename));
  };

  process.once('exit', () => {
    if (produce.size === 0) return;
    try {
      const next = new Map<string, Entry>();
      let total = 0;
      const add = (name: string, entry: Entry) => {
        if (next.has(name) || total + entry.data.length > MAX_STORE_BYTES) return;
        next.set(name, entry);
        total += entry.data.length;
      };
      for (const [name, { hash, script }] of produce) add(name, { hash, data: script.createCachedData() });
      for (const [name, entry] of used) add(name, entry);
      for (const [name, entry] of stored()) add(name, entry);
      writeStore(file, next);
    } catch {
      // A read-only or missing cache directory, a full disk: the next run compiles afresh.
    }
  });
  installed = stats;
  return stats;
}

/** The `require` Node gives a CommonJS module: its own, resolving from it (Node's makeRequireFunction). */
function requireFor(mod: CjsModule, internals: ModuleInternals) {
  const require = (id: string) => mod.require(id);
  const resolve = (request: string, options?: unknown) => internals._resolveFilename(request, mod, false, options);
  resolve.paths = (request: string) => internals._resolveLookupPaths(request, mod);
  return Object.assign(require, { resolve, main: process.mainModule, extensions: internals._extensions, cache: internals._cache });
}
