// Prebuilds the workflow bundle from the sources of this checkout: node bin/run-ts.js scripts/bundle-workflows.ts [out-file]
// (`studyflow worker --write-bundle FILE` does the same from an installed package). Then run workers with
// STUDYFLOW_WORKFLOW_BUNDLE=<out-file>: they start without webpack, and every worker of a deployment runs
// byte-identical workflow code.
import path from 'node:path';
import { writeWorkflowBundle } from '../worker/studyflow-worker';

const out = path.resolve(process.argv[2] ?? 'dist/workflow-bundle.js');
const { bytes } = await writeWorkflowBundle(out);
process.stdout.write(`${out} (${Math.round(bytes / 1024)} KiB)\n`);
