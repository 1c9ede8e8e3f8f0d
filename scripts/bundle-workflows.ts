// Prebuilds the workflow bundle for worker processes: node bin/run-ts.js scripts/bundle-workflows.ts [out-file]
// Then run workers with STUDYFLOW_WORKFLOW_BUNDLE=<out-file>: they start without webpack, and every worker of a
// deployment runs byte-identical workflow code.
import path from 'node:path';
import { writeWorkflowBundle } from '../worker/studyflow-worker';

const out = path.resolve(process.argv[2] ?? 'dist/workflow-bundle.js');
const { bytes } = await writeWorkflowBundle(out);
process.stdout.write(`${out} (${Math.round(bytes / 1024)} KiB)\n`);
