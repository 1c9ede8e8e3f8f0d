// The V8 code cache that bin/studyflow.js installs (cli/code-cache.ts, built into dist/cli/code-cache.js): a
// second process compiles the required packages from the cache and they behave as Node's own compiler makes
// them behave; a changed file is compiled afresh even when its size and mtime are the same; a cache directory
// that cannot be written, a damaged store, or STUDYFLOW_CODE_CACHE=off only mean no cache.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from './run-cli';

const CODE_CACHE = path.join(REPO_ROOT, 'dist', 'cli', 'code-cache.js');

let dir: string;
let pkg: string;

/** A process that installs the cache, requires `modules` from `pkg`'s project, and prints what it saw. */
function probe(env: Record<string, string>, modules: string[] = ['demo-pkg']) {
  const script = path.join(dir, 'probe.mjs');
  fs.writeFileSync(
    script,
    `import { createRequire } from 'node:module';
const { installCodeCache } = await import(${JSON.stringify(pathToFileURL(CODE_CACHE).href)});
const stats = installCodeCache(process.env);
const require = createRequire(${JSON.stringify(path.join(dir, 'project', 'index.js'))});
const loaded = {};
for (const m of ${JSON.stringify(modules)}) {
  const exported = require(m);
  loaded[m] = m === 'demo-pkg' ? { ...exported, thrown: (() => { try { exported.fail(); } catch (e) { return String(e.stack).split('\\n').slice(0, 2).join(' | '); } })() } : Object.keys(exported).length;
}
console.log(JSON.stringify({ stats: stats && { ...stats }, loaded }));
`,
  );
  const result = spawnSync(process.execPath, [script], { cwd: dir, encoding: 'utf8', env: { PATH: process.env.PATH, HOME: dir, ...env } });
  expect(result.status, result.stderr).toBe(0);
  return JSON.parse(result.stdout.trim().split('\n').pop() as string) as {
    stats?: { hits: number; misses: number };
    loaded: Record<string, { value: string; dirname: string; filename: string; resolved: string; other: string; thrown: string } | number>;
  };
}

function storeFiles(cacheDir: string): string[] {
  const sub = path.join(cacheDir, 'code-cache');
  return fs.existsSync(sub) ? fs.readdirSync(sub) : [];
}

beforeAll(() => {
  expect(fs.existsSync(CODE_CACHE), 'dist/ is missing: run `npm run build`').toBe(true);
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'studyflow-code-cache-'));
  pkg = path.join(dir, 'project', 'node_modules', 'demo-pkg');
  fs.mkdirSync(pkg, { recursive: true });
  fs.writeFileSync(path.join(pkg, 'package.json'), '{"name":"demo-pkg","main":"index.js"}');
  fs.writeFileSync(path.join(pkg, 'other.js'), "module.exports = 'other';\n");
  fs.writeFileSync(
    path.join(pkg, 'index.js'),
    "module.exports = { value: 'AAAA', dirname: __dirname, filename: __filename, resolved: require.resolve('./other'), other: require('./other'), fail() { throw new Error('failed here'); } };\n",
  );
});

afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('the code cache', () => {
  it('is written by a first process and used by the next, with the same module behaviour', () => {
    const cacheDir = path.join(dir, 'c1');
    const first = probe({ STUDYFLOW_CACHE_DIR: cacheDir });
    expect(first.stats).toEqual({ hits: 0, misses: 2 });
    expect(storeFiles(cacheDir)).toEqual([`v8-${process.version}-${process.versions.v8}-${process.arch}.bin`]);
    const second = probe({ STUDYFLOW_CACHE_DIR: cacheDir });
    expect(second.stats).toEqual({ hits: 2, misses: 0 });
    const expected = { value: 'AAAA', dirname: pkg, filename: path.join(pkg, 'index.js'), resolved: path.join(pkg, 'other.js'), other: 'other' };
    expect(first.loaded['demo-pkg']).toMatchObject(expected);
    expect(second.loaded['demo-pkg']).toMatchObject(expected);
    // An error thrown in a cached module names the module's file.
    expect((second.loaded['demo-pkg'] as { thrown: string }).thrown).toMatch(/^Error: failed here \| +at Object\.fail \(.*demo-pkg[\\/]index\.js:1:\d+\)$/);
  });

  it('compiles a changed file afresh though its size and mtime are unchanged (as npm installs every file)', () => {
    const cacheDir = path.join(dir, 'c2');
    const index = path.join(pkg, 'index.js');
    const { mtime } = fs.statSync(index);
    probe({ STUDYFLOW_CACHE_DIR: cacheDir });
    const original = fs.readFileSync(index, 'utf8');
    try {
      fs.writeFileSync(index, original.replace("'AAAA'", "'BBBB'"));
      fs.utimesSync(index, mtime, mtime);
      const changed = probe({ STUDYFLOW_CACHE_DIR: cacheDir });
      expect(changed.stats).toEqual({ hits: 1, misses: 1 });
      expect((changed.loaded['demo-pkg'] as { value: string }).value).toBe('BBBB');
    } finally {
      fs.writeFileSync(index, original);
    }
  });

  it('serves the Temporal client the CLI requires', () => {
    const cacheDir = path.join(dir, 'c3');
    const modules = ['@temporalio/client', '@temporalio/proto'];
    fs.symlinkSync(path.join(REPO_ROOT, 'node_modules', '@temporalio'), path.join(dir, 'project', 'node_modules', '@temporalio'), 'dir');
    const first = probe({ STUDYFLOW_CACHE_DIR: cacheDir }, modules);
    const second = probe({ STUDYFLOW_CACHE_DIR: cacheDir }, modules);
    expect(first.stats?.misses).toBeGreaterThan(50);
    expect(second.stats).toEqual({ hits: first.stats?.misses, misses: 0 });
    expect(second.loaded).toEqual(first.loaded);
  });

  it('without a writable cache directory, or with a damaged store, only runs without the cache', () => {
    const blocker = path.join(dir, 'not-a-directory');
    fs.writeFileSync(blocker, '');
    const unwritable = path.join(blocker, 'studyflow');
    expect(probe({ STUDYFLOW_CACHE_DIR: unwritable }).stats).toEqual({ hits: 0, misses: 2 });
    expect(probe({ STUDYFLOW_CACHE_DIR: unwritable }).stats).toEqual({ hits: 0, misses: 2 });

    const cacheDir = path.join(dir, 'c4');
    probe({ STUDYFLOW_CACHE_DIR: cacheDir });
    const [store] = storeFiles(cacheDir);
    const file = path.join(cacheDir, 'code-cache', store);
    const bytes = fs.readFileSync(file);
    fs.writeFileSync(file, bytes.subarray(0, 40));
    expect(probe({ STUDYFLOW_CACHE_DIR: cacheDir }).stats).toEqual({ hits: 0, misses: 2 });
    // ... and the damaged store was replaced by a good one.
    expect(probe({ STUDYFLOW_CACHE_DIR: cacheDir }).stats).toEqual({ hits: 2, misses: 0 });
  });

  it('finds its directory as the other caches do, and STUDYFLOW_CODE_CACHE=off turns it off', () => {
    const xdg = path.join(dir, 'xdg');
    probe({ XDG_CACHE_HOME: xdg });
    expect(storeFiles(path.join(xdg, 'studyflow'))).toHaveLength(1);
    probe({});
    expect(storeFiles(path.join(dir, '.cache', 'studyflow'))).toHaveLength(1);

    const off = path.join(dir, 'off');
    const result = probe({ STUDYFLOW_CACHE_DIR: off, STUDYFLOW_CODE_CACHE: 'off' });
    expect(result.stats).toBeUndefined();
    expect((result.loaded['demo-pkg'] as { value: string }).value).toBe('AAAA');
    expect(fs.existsSync(off)).toBe(false);
  });
});
