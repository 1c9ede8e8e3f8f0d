import { startSandbox } from '../../sandbox';
import { API_PROFILES, type ApiProfileName } from '../../shared/api-profile';
import type { CliContext } from '../main';
import { CliError } from '../output';
import { parsePort } from '../options';

/** The connection profile `--profile` names (STUDYFLOW_API_PROFILE by default); a named error for an unknown one. */
export function parseApiProfile(value: string | undefined, option = '--profile'): ApiProfileName {
  const name = value?.trim() || 'sandbox';
  if (!(API_PROFILES as readonly string[]).includes(name)) throw new CliError(`${option} must be one of ${API_PROFILES.join(', ')} (got ${JSON.stringify(name)}; the default comes from STUDYFLOW_API_PROFILE)`, 2);
  return name as ApiProfileName;
}

export async function run(ctx: CliContext, options: { port: string; host: string; stateFile?: string; profile?: string }): Promise<number> {
  const port = parsePort(options.port, '--port');
  const profile = parseApiProfile(options.profile);
  const sandbox = await startSandbox({ port, host: options.host, stateFile: options.stateFile, dialect: profile === 'cint' ? 'cint' : 'spec' }).catch((error: Error) => {
    throw new CliError(`cannot start the sandbox on ${options.host}:${port}: ${error.message}`);
  });
  ctx.out.progress(`sandbox API  ${sandbox.baseUrl}  (token: POST ${sandbox.authUrl}/oauth/token)`);
  ctx.out.progress(`dialect      ${sandbox.dialect === 'cint' ? 'cint (the published reference exactly)' : 'spec (the spec, its deviations included)'}: clients use STUDYFLOW_API_PROFILE=${profile}, header ${sandbox.info.version_header}`);
  ctx.out.progress(`admin        ${sandbox.baseUrl}/_sandbox/info`);
  ctx.out.progress(`client id    ${sandbox.info.client_id}  audience ${sandbox.info.audience}`);
  if (options.stateFile) ctx.out.progress(`state file   ${options.stateFile}`);
  ctx.out.progress('Ctrl-C stops it.');
  await ctx.interrupted;
  await sandbox.close();
  ctx.out.progress('sandbox stopped');
  return 0;
}
