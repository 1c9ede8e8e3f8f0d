#!/usr/bin/env node
// Entry point of the `studyflow` command. The sources are TypeScript; tsx compiles them on load,
// so the package needs no build step and the worker bundles workflows from the same files.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../cli/main.ts');
const code = await main(process.argv.slice(2));
process.exitCode = code;
