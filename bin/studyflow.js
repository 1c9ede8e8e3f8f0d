#!/usr/bin/env node
// Entry point of the `studyflow` command: runs the compiled CLI (dist/, made by `npm run build`; `npm test`,
// `npm run demo` and `npm run dev` build it first, and `npm pack` builds it into the package).
import { existsSync } from 'node:fs';

const compiled = new URL('../dist/cli/studyflow.js', import.meta.url);
if (!existsSync(compiled)) {
  process.stderr.write('studyflow: this checkout is not built yet: run `npm run build` first\n');
  process.exit(1);
}
const { main } = await import(compiled.href);
process.exitCode = await main(process.argv.slice(2));
