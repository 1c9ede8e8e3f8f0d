#!/usr/bin/env node
// Installs the pinned versitygw (local S3 server) into the user cache (no-op when it is there or VERSITYGW_PATH is set).
import { installVersitygw } from '../dev/versitygw.mjs';

try {
  const bin = installVersitygw();
  if (process.argv.includes('--print-path')) process.stdout.write(`${bin}\n`);
} catch (error) {
  process.stderr.write(`studyflow: ${error.message}\n`);
  process.exit(1);
}
