// The CLI run from its TypeScript sources through tsx, as bin/studyflow.js ran it before the compiled build:
// the "before" of bench/cli-startup.ts. `node bin/run-ts.js bench/cli-from-source.ts --help`
import { main } from '../cli/main';

process.exitCode = await main(process.argv.slice(2));
