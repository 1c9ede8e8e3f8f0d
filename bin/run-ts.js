#!/usr/bin/env node
// Runs a TypeScript file of this project (bench/, scripts/) with the same loader the CLI uses.
import { register } from 'tsx/esm/api';
import { pathToFileURL } from 'node:url';
import path from 'node:path';

register();
const file = process.argv[2];
if (!file) {
  console.error('usage: run-ts <file.ts> [args…]');
  process.exit(2);
}
process.argv.splice(1, 1);
await import(pathToFileURL(path.resolve(file)).href);
