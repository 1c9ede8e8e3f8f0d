import { startSandbox } from '../../sandbox';
import type { CliContext } from '../main';
import { CliError } from '../output';
import { parsePort } from '../options';

export async function run(ctx: CliContext, options: { port: string; host: string; stateFile?: string }): Promise<number> {
  const port = parsePort(options.port, '--port');
  const sandbox = await startSandbox({ port, host: options.host, stateFile: options.stateFile }).catch((error: Error) => {
    throw new CliError(`cannot start the sandbox on ${options.host}:${port}: ${error.message}`);
  });
  ctx.out.progress(`sandbox API  ${sandbox.baseUrl}  (token: POST ${sandbox.authUrl}/oauth/token)`);
  ctx.out.progress(`admin        ${sandbox.baseUrl}/_sandbox/info`);
  ctx.out.progress(`client id    ${sandbox.info.client_id}  audience ${sandbox.info.audience}`);
  if (options.stateFile) ctx.out.progress(`state file   ${options.stateFile}`);
  ctx.out.progress('Ctrl-C stops it.');
  await ctx.interrupted;
  await sandbox.close();
  ctx.out.progress('sandbox stopped');
  return 0;
}
