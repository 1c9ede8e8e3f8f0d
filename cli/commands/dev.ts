import fs from 'node:fs';
import path from 'node:path';
import { startEmbeddedStack } from '../../dev/embedded-stack';
import type { CliContext } from '../main';
import { CliError } from '../output';
import { parsePort } from '../options';
import { devStackFileIn, writeDevStackFile } from '../dev-stack-file';
import { writeDevApiProfile } from '../../api/http/api-environment';
import { parseApiProfile } from './sandbox';

export async function run(
  ctx: CliContext,
  options: { temporalPort: string; uiPort: string; sandboxPort: string; webhookPort: string; stateDir: string; blob?: 'local' | 's3'; profile?: string },
): Promise<number> {
  const stateDir = path.resolve(ctx.cwd, options.stateDir);
  const apiProfile = parseApiProfile(options.profile);
  ctx.out.progress(`starting Temporal (SQLite), the sandbox API${options.blob === 's3' ? ', a local S3 server (versitygw)' : ''} and a worker…`);
  const stack = await startEmbeddedStack({
    encryptPayloads: true,
    simulateFielding: true,
    stateDir,
    temporalPort: parsePort(options.temporalPort, '--temporal-port'),
    uiPort: parsePort(options.uiPort, '--ui-port'),
    sandboxPort: parsePort(options.sandboxPort, '--sandbox-port'),
    webhookPort: parsePort(options.webhookPort, '--webhook-port'),
    blob: options.blob,
    apiProfile,
  }).catch((error: Error) => {
    throw new CliError(`cannot start the embedded stack: ${error.message}`);
  });
  // The CLI in other shells of this directory reads the UI's URL (and the Temporal address it belongs to) here.
  writeDevStackFile(stateDir, { temporal_address: stack.temporalAddress, ...(stack.uiUrl ? { ui_url: stack.uiUrl } : {}), pid: process.pid });
  // A CLI or worker in this directory finds the profile here (api/http/api-environment.ts withDevDefaults), as it
  // finds the payload key, and refuses another STUDYFLOW_API_PROFILE by name.
  const forgetProfile = writeDevApiProfile(stateDir, apiProfile);
  ctx.out.progress('');
  ctx.out.progress(`Temporal     ${stack.temporalAddress}`);
  if (stack.uiUrl) ctx.out.progress(`Temporal UI  ${stack.uiUrl}`);
  ctx.out.progress(`Sandbox API  ${stack.sandbox.baseUrl}   (admin: ${stack.sandbox.baseUrl}/_sandbox/info)`);
  ctx.out.progress(`Profile      ${apiProfile} (the sandbox speaks ${apiProfile === 'cint' ? 'the published reference exactly' : 'the spec'}; STUDYFLOW_API_PROFILE=${apiProfile} for worker, receiver and CLI)`);
  if (stack.codec) {
    ctx.out.progress(`Encryption   payloads are AES-256-GCM encrypted (key ${path.relative(ctx.cwd, stack.codec.keyFile)}); the UI decodes through the local codec server`);
    ctx.out.progress(`Codec server ${stack.codec.url}  (bearer token in ${path.relative(ctx.cwd, stack.codec.tokenFile)}, for \`temporal --codec-endpoint\`)`);
  }
  if (stack.webhooks) ctx.out.progress(`Webhooks     ${stack.webhooks.url}   (use it as a webhook url in study files)`);
  if (stack.s3) ctx.out.progress(`S3 (blobs)   ${stack.s3.endpoint}  bucket studyflow, ID lists and sealed webhook secrets under s3://studyflow/blobs`);
  ctx.out.progress(`State        ${stateDir}`);
  ctx.out.progress('');
  ctx.out.progress('In another terminal (same directory), `npx studyflow apply examples/quickstart/study.yaml` uses these defaults.');
  if (stack.codec) ctx.out.progress(`The CLI finds the payload key in this directory; from elsewhere: export STUDYFLOW_CODEC_KEY_FILE=${stack.codec.keyFile}`);
  if (stack.s3) {
    ctx.out.progress(`The CLI stores ID lists in the S3 server: in that shell, first \`set -a; . ${path.relative(ctx.cwd, path.join(stateDir, 's3.env'))}; set +a\``);
  }
  ctx.out.progress('Ctrl-C stops everything.');
  await ctx.interrupted;
  ctx.out.progress('stopping…');
  fs.rmSync(devStackFileIn(stateDir), { force: true });
  forgetProfile();
  await stack.stop();
  ctx.out.progress('stopped');
  return 0;
}
