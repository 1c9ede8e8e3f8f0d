import { checkReachability } from '../../worker/reachability-check';
import { runReceiverProcess } from '../../worker/receiver-process';
import type { CliContext } from '../main';
import { metricsPortOf, parsePort } from '../options';
import { CliError } from '../output';
import { reportReachability } from '../reachability-view';

/**
 * `studyflow receiver`: a webhook receiver on its own (no workflow work; worker/receiver-process.ts). Several
 * can run behind a load balancer on machines that share nothing but Temporal and the object storage.
 */
export async function run(ctx: CliContext, options: { port: string; host: string; metricsPort?: string; metricsHost?: string; check?: boolean; json?: boolean }): Promise<number> {
  if (options.check) return reportReachability(ctx, 'receiver', await checkReachability('receiver', ctx.env), Boolean(options.json));
  const port = parsePort(options.port, '--port');
  let onStop: () => void = () => undefined;
  const stop = new Promise<void>((resolve) => (onStop = resolve));
  process.once('SIGTERM', onStop);
  void ctx.interrupted.then(onStop);
  try {
    await runReceiverProcess({ env: ctx.env, port, host: options.host, metricsPort: metricsPortOf(options.metricsPort, ctx.env), metricsHost: options.metricsHost, stop, log: (line) => ctx.out.progress(line) });
    return 0;
  } catch (error) {
    if (error instanceof Error && error.name === 'ReceiverStartError') throw new CliError(error.message);
    throw error;
  } finally {
    process.off('SIGTERM', onStop);
  }
}
