// What each command of the compiled CLI loads before it runs: the packages its chunk imports statically, through
// every chunk it imports in turn. A package a command does not need costs every run of it (the AWS SDK about
// 90 ms, @temporalio/worker about 70 ms on this machine; bench/cli-startup.ts measures the commands), so the
// commands a buyer runs most must not load them: the S3 store is loaded when a list is stored, the worker's
// native connection only by the commands that run a worker.
import fs from 'node:fs';
import { isBuiltin } from 'node:module';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../bench/bench-stack';

const CLI = path.join(REPO_ROOT, 'dist', 'cli');

/**
 * What a chunk loads when it is evaluated: its static imports, and the packages it `require`s (the build loads
 * node_modules packages with the bundle's require, as CommonJS: scripts/build.mjs).
 */
function staticImports(file: string): string[] {
  const text = fs.readFileSync(file, 'utf8');
  const imported = [...text.matchAll(/^import\s*(?:[^'"]*?from\s*)?["']([^"']+)["']/gm)].map((m) => m[1]);
  const required = [...text.matchAll(/\b__require\("([^"]+)"\)/g)].map((m) => m[1]);
  return [...imported, ...required];
}

/** Packages (not node: builtins) a chunk loads statically, through the chunks it imports. */
function packagesLoadedBy(chunk: string): Set<string> {
  const packages = new Set<string>();
  const seen = new Set<string>();
  const queue = [chunk];
  while (queue.length) {
    const file = queue.pop() as string;
    if (seen.has(file)) continue;
    seen.add(file);
    for (const spec of staticImports(file)) {
      if (spec.startsWith('.')) queue.push(path.resolve(path.dirname(file), spec));
      else if (!isBuiltin(spec)) packages.add(spec.split('/').slice(0, spec.startsWith('@') ? 2 : 1).join('/'));
    }
  }
  return packages;
}

/** Each command's chunk, from the entry's `import("./chunks/<command>-<hash>.js")`. */
function commandChunks(): Map<string, string> {
  const entry = fs.readFileSync(path.join(CLI, 'studyflow.js'), 'utf8');
  const chunks = new Map<string, string>();
  for (const m of entry.matchAll(/import\("\.\/chunks\/(([a-z]+)-[A-Z0-9]+\.js)"\)/g)) chunks.set(m[2], path.join(CLI, 'chunks', m[1]));
  return chunks;
}

describe('compiled CLI: what each command loads at start', () => {
  const chunks = commandChunks();

  it('finds a chunk for every command', () => {
    for (const command of ['validate', 'plan', 'apply', 'status', 'worker', 'dev']) expect(chunks.get(command), command).toBeDefined();
    expect(packagesLoadedBy(path.join(CLI, 'studyflow.js')).size).toBe(0);
  });

  it('validate loads no Temporal, HTTP or AWS package', () => {
    expect([...packagesLoadedBy(chunks.get('validate') as string)]).toEqual([]);
  });

  it('plan, apply and status leave out the AWS SDK and the worker until they need them', () => {
    for (const command of ['plan', 'apply', 'status']) {
      const loaded = packagesLoadedBy(chunks.get(command) as string);
      expect(loaded.has('@temporalio/client'), command).toBe(true);
      expect(loaded.has('@aws-sdk/client-s3'), command).toBe(false);
      expect(loaded.has('@temporalio/worker'), command).toBe(false);
    }
  });

  it('the worker command does load the worker (the check is not vacuous)', () => {
    expect(packagesLoadedBy(chunks.get('worker') as string).has('@temporalio/worker')).toBe(true);
  });
});
