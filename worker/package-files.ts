// Where studyflow's own files are, whether it runs from its TypeScript sources (a checkout, the tests) or
// from the compiled package (`npm run build` → dist/, as installed by npm). The compiled CLI is one bundle
// with chunks under dist/, so paths relative to a module's own file differ between the two: everything
// resolves from the package root instead.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const thisFile = fileURLToPath(import.meta.url);

/** True when this code is the compiled build (dist/), false when it runs from the .ts sources. */
export const RUNNING_COMPILED = !thisFile.endsWith('.ts');

function findPackageRoot(start: string): string {
  for (let dir = start; ; dir = path.dirname(dir)) {
    const manifest = path.join(dir, 'package.json');
    if (fs.existsSync(manifest)) {
      try {
        if ((JSON.parse(fs.readFileSync(manifest, 'utf8')) as { name?: string }).name === 'studyflow') return dir;
      } catch {
        // not ours: keep walking up
      }
    }
    if (path.dirname(dir) === dir) throw new Error(`studyflow's package.json was not found above ${start}`);
  }
}

/** The directory that holds studyflow's package.json (the checkout, or node_modules/studyflow). */
export const PACKAGE_ROOT = findPackageRoot(path.dirname(thisFile));

/** A file of the package, by its path from the package root (e.g. `examples/quickstart/study.yaml`). */
export function packageFile(relative: string): string {
  return path.join(PACKAGE_ROOT, relative);
}

/** The workflow bundle that `npm run build` writes; the compiled CLI's workers load it instead of bundling. */
export const PACKAGED_WORKFLOW_BUNDLE = packageFile('dist/workflow-bundle.js');

/**
 * The entry file of the workflow sources to bundle: the TypeScript sources in a checkout, their JavaScript
 * transpilation (dist/workflow-sources/) in the package, since Temporal's bundler compiles no TypeScript
 * inside node_modules.
 */
export const WORKFLOWS_PATH = RUNNING_COMPILED
  ? packageFile('dist/workflow-sources/workflows/index.js')
  : packageFile('workflows/index.ts');
