#!/usr/bin/env node
// `npm run build`: compiles studyflow into dist/, so that the `studyflow` command runs JavaScript with no
// TypeScript compiler at run time.
//   dist/cli/      the CLI: cli/main.ts and everything it imports, bundled by esbuild into ES modules,
//                  one chunk per lazily imported command (the pure-JavaScript dependencies bundled in; Temporal's
//                  packages, the AWS SDK and undici resolved from node_modules at run time). The structure check's ajv validators are compiled here, from
//                  the committed JSON Schemas, into ajv's standalone code (definitions/precompiled-validators.ts).
//   dist/workflow-bundle.js     the Temporal workflow bundle, built once here, so workers start without webpack.
//   dist/workflow-sources/      the workflow code and what it imports, transpiled file by file to JavaScript,
//                  for `studyflow worker --write-bundle` from an installed package (Temporal's bundler compiles
//                  no TypeScript inside node_modules).
// Plain JavaScript so that it runs before anything is compiled.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';
import Ajv from 'ajv';
import standaloneCode from 'ajv/dist/standalone/index.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = path.join(root, 'dist');
const log = (line) => process.stderr.write(`${line}\n`);
const started = Date.now();

fs.rmSync(dist, { recursive: true, force: true });

const common = { platform: 'node', format: 'esm', target: 'node20', absWorkingDir: root, logLevel: 'warning', legalComments: 'none' };

// 1. The CLI, with the structure check's validators precompiled.
const readJson = (file) => JSON.parse(fs.readFileSync(path.join(root, file), 'utf8'));
const ajv = new Ajv({ ...readJson('definitions/structure-ajv-options.json'), code: { source: true, esm: true } });
ajv.addSchema(readJson('schema/study.schema.json'), 'study');
ajv.addSchema(readJson('schema/shared.schema.json'), 'shared');
// ajv's standalone ES module still `require`s its runtime helpers: make those imports (ajv has no exports map).
const runtimeModules = [];
const validatorsCode = standaloneCode(ajv, { study: 'study', shared: 'shared' }).replace(/require\("([^"]+)"\)/g, (_, specifier) => {
  runtimeModules.push(specifier);
  return `__ajvRuntime${runtimeModules.length - 1}`;
});
const precompiledValidators = [
  ...runtimeModules.map((specifier, i) => `import __ajvRuntime${i} from ${JSON.stringify(`${specifier}.js`)};`),
  validatorsCode.replace(/^"use strict";/, ''),
  'export const PRECOMPILED_VALIDATORS = { study, shared };',
].join('\n');
const precompiledValidatorsPlugin = {
  name: 'precompiled-validators',
  setup(build) {
    build.onLoad({ filter: /[\\/]definitions[\\/]precompiled-validators\.ts$/ }, () => ({ contents: precompiledValidators, loader: 'js', resolveDir: root }));
  },
};
// The packages the CLI loads from node_modules are CommonJS. Imported as ES modules, Node runs its CommonJS
// export lexer over each of them (and every module they re-export) before it loads them: about 100 ms of
// the ~500 ms of CPU that loading the apply command took (median of 6 imports, 580 -> 480 ms). So the bundle loads them with
// `require` (the banner's createRequire), as CommonJS loads CommonJS.
const requiredPackages = /^(@temporalio\/[^/]+|undici|protobufjs)(\/.*)?$/;
const requireExternalsPlugin = {
  name: 'require-externals',
  setup(build) {
    build.onResolve({ filter: requiredPackages }, (args) =>
      args.namespace === 'required-package' ? { path: args.path, external: true } : { path: args.path, namespace: 'required-package' },
    );
    build.onLoad({ filter: /.*/, namespace: 'required-package' }, (args) => ({ contents: `module.exports = require(${JSON.stringify(args.path)});`, loader: 'js' }));
  },
};
await esbuild.build({
  ...common,
  // cli/code-cache.ts on its own: bin/studyflow.js installs it before it loads the CLI (see that file).
  entryPoints: { 'cli/studyflow': 'cli/main.ts', 'cli/code-cache': 'cli/code-cache.ts' },
  bundle: true,
  splitting: true,
  // Pure-JavaScript dependencies are bundled in (fewer files to resolve and load at start-up); Temporal's
  // packages (a native bridge, and the workflow bundler), the AWS SDK and undici stay in node_modules.
  external: ['@temporalio/*', '@aws-sdk/*', 'undici', 'protobufjs', 'esbuild'],
  banner: { js: "import { createRequire as __studyflowCreateRequire } from 'node:module'; const require = __studyflowCreateRequire(import.meta.url);" },
  outdir: dist,
  chunkNames: 'cli/chunks/[name]-[hash]',
  sourcemap: 'linked',
  plugins: [precompiledValidatorsPlugin, requireExternalsPlugin],
});

// 2. The workflow sources as JavaScript: the files workflows/index.ts reaches, each transpiled on its own.
const graph = await esbuild.build({
  ...common,
  entryPoints: ['workflows/index.ts'],
  bundle: true,
  packages: 'external',
  write: false,
  metafile: true,
  outdir: path.join(dist, 'unused'),
});
const workflowInputs = Object.keys(graph.metafile.inputs).filter((file) => file.endsWith('.ts'));
await esbuild.build({
  ...common,
  entryPoints: workflowInputs,
  bundle: false,
  outbase: root,
  outdir: path.join(dist, 'workflow-sources'),
});
// A package.json without "type": "module" here lets webpack resolve the sources' extensionless imports
// (it requires fully specified paths in ES-module packages). Nothing loads these files but the bundler.
fs.writeFileSync(
  path.join(dist, 'workflow-sources', 'package.json'),
  `${JSON.stringify({ private: true, description: 'studyflow workflow sources, for the workflow bundler only' }, null, 2)}\n`,
);

// 3. The workflow bundle, from the transpiled sources (the same code a worker of the package would bundle).
const { bundleWorkflowCode } = await import('@temporalio/worker');
const silent = () => undefined;
const { code } = await bundleWorkflowCode({
  workflowsPath: path.join(dist, 'workflow-sources', 'workflows', 'index.js'),
  logger: {
    log: silent,
    trace: silent,
    debug: silent,
    info: silent,
    warn: (message) => log(`bundler: ${message}`),
    error: (message) => log(`bundler: ${message}`),
  },
});
fs.writeFileSync(path.join(dist, 'workflow-bundle.js'), code);

log(
  `studyflow: built dist/ in ${((Date.now() - started) / 1000).toFixed(1)} s ` +
    `(CLI, workflow bundle ${Math.round(Buffer.byteLength(code) / 1024)} KiB from ${workflowInputs.length} workflow source files)`,
);
