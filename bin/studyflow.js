#!/usr/bin/env node
// Entry point of the `studyflow` command: runs the compiled CLI (dist/, made by `npm run build`; `npm test`,
// `npm run demo` and `npm run dev` build it first, and `npm pack` builds it into the package).
import { existsSync } from 'node:fs';

const compiled = new URL('../dist/cli/studyflow.js', import.meta.url);
if (!existsSync(compiled)) {
  process.stderr.write('studyflow: this checkout is not built yet: run `npm run build` first\n');
  process.exit(1);
}
// Node's compiled code for the packages the CLI requires, kept between runs (dist/cli/code-cache.js says how).
const { installCodeCache } = await import(new URL('../dist/cli/code-cache.js', import.meta.url).href);
installCodeCache(process.env);
const { main } = await import(compiled.href);
process.exitCode = await main(process.argv.slice(2));
