import path from 'node:path';
import { checkReachability } from '../../worker/reachability-check';
import { writeWorkflowBundle } from '../../worker/studyflow-worker';
import { runWorkerProcess } from '../../worker/worker-process';
import type { CliContext } from '../main';
import { metricsPortOf, parsePort } from '../options';
import { CliError } from '../output';
import { reportReachability } from '../reachability-view';

/**
 * `studyflow worker`: one worker process (worker/worker-process.ts); SIGTERM or Ctrl-C shuts it down
 * gracefully, also while it starts. It refuses to start (exit 1, a named error) in a namespace that does not
 * exist or lacks studyflow's search attributes, rather than poll nothing. `--check` only checks what it needs.
 */
export async function run(
  ctx: CliContext,
  options: {
    webhookPort?: string;
    webhookHost: string;
    metricsPort?: string;
    metricsHost?: string;
    writeBundle?: string;
    check?: boolean;
    json?: boolean;
    buildId?: string;
    deployment?: string;
  } = {
    webhookHost: '127.0.0.1',
  },
): Promise<number> {
  if (options.check) return reportReachability(ctx, 'worker', await checkReachability('worker', ctx.env), Boolean(options.json));
  if (options.writeBundle !== undefined) {
    const file = path.resolve(ctx.cwd, options.writeBundle);
    const { bytes } = await writeWorkflowBundle(file);
    ctx.out.progress(`workflow bundle written: ${file} (${Math.round(bytes / 1024)} KiB); run workers with STUDYFLOW_WORKFLOW_BUNDLE=${file}`);
    return 0;
  }
  const webhookPort = options.webhookPort === undefined ? undefined : parsePort(options.webhookPort, '--webhook-port');
  const metricsPort = metricsPortOf(options.metricsPort, ctx.env);
  let onStop: () => void = () => undefined;
  const stop = new Promise<void>((resolve) => (onStop = resolve));
  process.on('SIGTERM', onStop);
  void ctx.interrupted.then(onStop);
  try {
    // --build-id and --deployment win over STUDYFLOW_BUILD_ID and STUDYFLOW_DEPLOYMENT (worker/deployment.ts).
    const env = { ...ctx.env, ...(options.buildId ? { STUDYFLOW_BUILD_ID: options.buildId } : {}), ...(options.deployment ? { STUDYFLOW_DEPLOYMENT: options.deployment } : {}) };
    await runWorkerProcess({ env, webhookPort, webhookHost: options.webhookHost, metricsPort, metricsHost: options.metricsHost, stop, log: (line) => ctx.out.progress(line) });
    return 0;
  } catch (error) {
    if (error instanceof Error && ['NamespaceMissingError', 'SearchAttributesMissingError', 'OpsEndpointError', 'DeploymentNameError'].includes(error.name)) throw new CliError(error.message);
    throw error;
  } finally {
    process.off('SIGTERM', onStop);
  }
}
