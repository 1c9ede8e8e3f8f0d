#!/usr/bin/env node
// Installs the pinned temporal CLI into the user cache (no-op when it is there or TEMPORAL_CLI_PATH is set).
import { installTemporalCli } from '../dev/temporal-cli.mjs';

try {
  const bin = installTemporalCli();
  if (process.argv.includes('--print-path')) process.stdout.write(`${bin}\n`);
} catch (error) {
  process.stderr.write(`studyflow: ${error.message}\n`);
  process.exit(1);
}
