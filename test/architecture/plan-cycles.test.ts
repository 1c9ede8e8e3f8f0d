// plan/ has no import cycles (issue 35): every module of the planning core imports only modules below it, so
// a shared type or value lives in the module it belongs to (e.g. plan/guard-types.ts), not in whichever of two
// modules that need each other came first. `import type` counts: a cycle of types is still a cycle of modules.
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const PLAN = path.join(ROOT, 'plan');

/** The .ts files under `dir`, as paths relative to the repository. */
function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [path.relative(ROOT, full)] : [];
  });
}

/**
 * The modules of `files` each file imports or re-exports (value or type, static or `import('...')`), as
 * repository paths; specifiers that leave the set are dropped.
 */
export function importGraph(files: string[], read: (file: string) => string): Map<string, string[]> {
  const known = new Set(files);
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const info = ts.preProcessFile(read(file), true, true);
    const targets = info.importedFiles
      .map((ref) => ref.fileName)
      .filter((spec) => spec.startsWith('.'))
      .map((spec) => {
        const base = path.posix.join(path.posix.dirname(file), spec).replace(/\.(js|ts)$/, '');
        return [`${base}.ts`, `${base}/index.ts`].find((candidate) => known.has(candidate));
      })
      .filter((target): target is string => target !== undefined);
    graph.set(file, [...new Set(targets)].sort());
  }
  return graph;
}

/** Every strongly connected component of more than one module (or a module importing itself): the cycles. */
export function importCycles(graph: Map<string, string[]>): string[][] {
  // Tarjan's algorithm.
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, next);
    low.set(node, next);
    next += 1;
    stack.push(node);
    onStack.add(node);
    for (const target of graph.get(node) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(node, Math.min(low.get(node)!, low.get(target)!));
      } else if (onStack.has(target)) {
        low.set(node, Math.min(low.get(node)!, index.get(target)!));
      }
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1 || (graph.get(node) ?? []).includes(node)) cycles.push(component.sort());
    }
  };
  for (const node of [...graph.keys()].sort()) if (!index.has(node)) visit(node);
  return cycles;
}

describe('plan/ import cycles', () => {
  it('finds a cycle through a type import, a re-export and a dynamic import type (the check can fail)', () => {
    const sources: Record<string, string> = {
      'plan/a.ts': "import type { B } from './b';\nexport interface A { b?: B }\n",
      'plan/b.ts': "export { c } from './c';\nexport interface B { n: number }\n",
      'plan/c.ts': "export const c = 1;\nexport type A2 = import('./a').A;\n",
      'plan/d.ts': "import { c } from './c';\nimport { x } from '../shared/x';\nexport const d = c + x;\n",
    };
    const graph = importGraph(Object.keys(sources), (file) => sources[file]!);
    expect(graph.get('plan/d.ts')).toEqual(['plan/c.ts']);
    expect(importCycles(graph)).toEqual([['plan/a.ts', 'plan/b.ts', 'plan/c.ts']]);
  });

  it('finds none in plan/', () => {
    const files = sourceFiles(PLAN);
    expect(files).toContain('plan/types.ts');
    const graph = importGraph(files, (file) => fs.readFileSync(path.join(ROOT, file), 'utf8'));
    expect(importCycles(graph)).toEqual([]);
  });
});
