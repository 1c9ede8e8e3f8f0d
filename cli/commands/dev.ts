import fs from 'node:fs';
import path from 'node:path';
import { DEV_WEBHOOK_PORT, noteDevApiProfile, startEmbeddedStack, type EmbeddedStack } from '../../dev/embedded-stack';
import { DEFAULT_DEV_STATE_DIR, DEV_STATE_DIR_VARIABLE, type DevStackInfo } from '../../client/dev-stack';
import type { CliContext } from '../main';
import { CliError } from '../output';
import { metricsPortOf, parsePort } from '../options';
import { devStackFileIn, writeDevStackFile } from '../dev-stack-file';
import { parseApiProfile } from './sandbox';

export interface DevOptions {
  temporalPort: string;
  uiPort: string;
  sandboxPort: string;
  /** Absent: 4020, or a free port when 4020 is taken. */
  webhookPort?: string;
  /** Absent: STUDYFLOW_METRICS_PORT, else no endpoint. */
  metricsPort?: string;
  stateDir: string;
  blob?: 'local' | 's3';
  profile?: string;
}

const portOf = (url: string | undefined) => (url ? Number(new URL(url).port) : undefined);

/** What <state-dir>/dev-stack.json says about the running stack (client/dev-stack.ts reads it). */
export function devStackInfo(stack: EmbeddedStack, stateDir: string, profile: string): DevStackInfo {
  const env = stack.env;
  return {
    pid: process.pid,
    state_dir: stateDir,
    profile,
    ports: {
      temporal: Number(stack.temporalAddress.split(':').at(-1)),
      ...(stack.uiUrl ? { ui: portOf(stack.uiUrl) } : {}),
      sandbox: portOf(stack.sandbox.baseUrl),
      ...(stack.webhooks ? { webhook: portOf(stack.webhooks.url) } : {}),
      ...(stack.metrics ? { metrics: portOf(stack.metrics.url) } : {}),
    },
    temporal_address: stack.temporalAddress,
    ...(stack.uiUrl ? { ui_url: stack.uiUrl } : {}),
    api: {
      base_url: env.STUDYFLOW_API_BASE_URL,
      auth_url: env.STUDYFLOW_AUTH_URL,
      audience: env.STUDYFLOW_AUDIENCE,
      client_id: env.STUDYFLOW_CLIENT_ID,
      client_secret: env.STUDYFLOW_CLIENT_SECRET,
    },
    ...(stack.webhooks ? { webhook_url: stack.webhooks.url } : {}),
    ...(stack.metrics ? { metrics_url: `${stack.metrics.url}/metrics` } : {}),
    ...(stack.codec ? { codec_key_file: stack.codec.keyFile } : {}),
    blob: env.STUDYFLOW_BLOB_URL ? { url: env.STUDYFLOW_BLOB_URL, env_file: path.join(stateDir, 's3.env') } : { dir: env.STUDYFLOW_BLOB_DIR },
    webhook_secrets_file: env.STUDYFLOW_WEBHOOK_SECRETS_FILE,
  };
}

/** Single-quoted for a POSIX shell. */
const shellQuoted = (value: string) => (/^[\w@%+=:,./-]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`);

export async function run(ctx: CliContext, options: DevOptions): Promise<number> {
  const stateDir = path.resolve(ctx.cwd, options.stateDir);
  const apiProfile = parseApiProfile(options.profile);
  const temporalPort = parsePort(options.temporalPort, '--temporal-port');
  const uiPort = parsePort(options.uiPort, '--ui-port');
  const sandboxPort = parsePort(options.sandboxPort, '--sandbox-port');
  // An explicit --webhook-port that is taken is an error naming it; the default one falls back to a free port.
  const webhookPort = options.webhookPort === undefined ? DEV_WEBHOOK_PORT : parsePort(options.webhookPort, '--webhook-port');
  const metricsPort = metricsPortOf(options.metricsPort, ctx.env);
  ctx.out.progress(`starting Temporal (SQLite), the sandbox API${options.blob === 's3' ? ', a local S3 server (versitygw)' : ''} and a worker…`);
  const stack = await startEmbeddedStack({
    encryptPayloads: true,
    simulateFielding: true,
    stateDir,
    temporalPort,
    uiPort,
    sandboxPort,
    webhookPort,
    webhookPortFallback: options.webhookPort === undefined,
    metricsPort,
    blob: options.blob,
    apiProfile,
    // The worker takes its settings (notification targets, pacing, ...) from this environment, as `studyflow worker` does.
    env: ctx.env,
  }).catch((error: Error) => {
    throw new CliError(`cannot start the embedded stack: ${error.message}`);
  });
  // The CLI in other shells finds the whole stack here: from this directory (.studyflow/, or a parent's), or
  // anywhere with STUDYFLOW_DEV_STATE_DIR naming the state directory.
  const stackFile = writeDevStackFile(stateDir, devStackInfo(stack, stateDir, apiProfile));
  // A worker in this directory finds the profile here (api/http/api-environment.ts withDevDefaults).
  const forgetProfile = noteDevApiProfile(stateDir, apiProfile);
  ctx.out.progress('');
  ctx.out.progress(`Temporal     ${stack.temporalAddress}`);
  if (stack.uiUrl) ctx.out.progress(`Temporal UI  ${stack.uiUrl}`);
  ctx.out.progress(`Sandbox API  ${stack.sandbox.baseUrl}   (admin: ${stack.sandbox.baseUrl}/_sandbox/info)`);
  ctx.out.progress(`Profile      ${apiProfile} (the sandbox speaks ${apiProfile === 'cint' ? 'the published reference exactly' : 'the spec'}; STUDYFLOW_API_PROFILE=${apiProfile} for worker, receiver and CLI)`);
  if (stack.codec) {
    ctx.out.progress(`Encryption   payloads are AES-256-GCM encrypted (key ${path.relative(ctx.cwd, stack.codec.keyFile)}); the UI decodes through the local codec server`);
    ctx.out.progress(`Codec server ${stack.codec.url}  (bearer token in ${path.relative(ctx.cwd, stack.codec.tokenFile)}, for \`temporal --codec-endpoint\`)`);
  }
  if (stack.webhooks) {
    const taken = stack.webhookPortTaken !== undefined ? `; port ${stack.webhookPortTaken} was taken, so a free one` : '';
    ctx.out.progress(`Webhooks     ${stack.webhooks.url}   (use it as a webhook url in study files${taken})`);
  }
  if (stack.metrics) ctx.out.progress(`Metrics      ${stack.metrics.url}/metrics   (health: ${stack.metrics.url}/healthz)`);
  if (stack.s3) ctx.out.progress(`S3 (blobs)   ${stack.s3.endpoint}  bucket studyflow, ID lists and sealed webhook secrets under s3://studyflow/blobs`);
  ctx.out.progress(`State        ${stateDir}  (the stack: ${path.relative(ctx.cwd, stackFile) || stackFile})`);
  ctx.out.progress('');
  // A CLI finds <dir>/.studyflow/dev-stack.json from <dir> and below it; from anywhere else, the variable names it.
  const foundFrom = path.basename(stateDir) === DEFAULT_DEV_STATE_DIR ? path.dirname(stateDir) : undefined;
  if (foundFrom) {
    const where = foundFrom === ctx.cwd ? 'this directory' : foundFrom;
    ctx.out.progress(`In another terminal in ${where} (or below it), \`npx studyflow apply examples/quickstart/study.yaml\` finds this stack; from anywhere else, first:`);
  } else {
    ctx.out.progress('In another terminal, first:');
  }
  ctx.out.progress(`  export ${DEV_STATE_DIR_VARIABLE}=${shellQuoted(stateDir)}`);
  ctx.out.progress('Ctrl-C stops everything.');
  await ctx.interrupted;
  ctx.out.progress('stopping…');
  fs.rmSync(devStackFileIn(stateDir), { force: true });
  forgetProfile();
  await stack.stop();
  ctx.out.progress('stopped');
  return 0;
}
