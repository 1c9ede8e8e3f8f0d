#!/usr/bin/env node
// Installs the pinned Temporal server the worker-versioning test runs into the user cache (no-op when it is there or
// TEMPORAL_SERVER_PATH is set), before the tests, so its build does not compete with them for the cores.
import { installTemporalServer } from '../dev/temporal-server.mjs';

try {
  const bin = installTemporalServer();
  if (process.argv.includes('--print-path')) process.stdout.write(`${bin}\n`);
} catch (error) {
  process.stderr.write(`studyflow: ${error.message}\n`);
  process.exit(1);
}
