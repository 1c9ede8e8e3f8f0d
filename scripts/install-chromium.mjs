#!/usr/bin/env node
// Unpacks the pinned headless Chromium (npm package @sparticuz/chromium) into the user cache (no-op when it is
// there or STUDYFLOW_CHROMIUM_PATH is set). `npm test` runs it; the report test drives the browser it leaves.
import { installChromium } from './chromium.mjs';

try {
  const bin = await installChromium();
  if (process.argv.includes('--print-path')) process.stdout.write(`${bin}\n`);
} catch (error) {
  process.stderr.write(`studyflow: ${error.message}\n`);
  process.exit(1);
}
