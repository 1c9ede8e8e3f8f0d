import fs from 'node:fs';
import path from 'node:path';
// The CLI's side of Temporal: settings, payload codec and the client. Nothing here loads @temporalio/worker
// (about 70 ms at every CLI start); the worker's connection is in worker-connection.ts.
import { loadClientConnectConfig } from '@temporalio/envconfig';
import { Client, Connection } from '@temporalio/client';
import type { DataConverter } from '@temporalio/common';
import { loadCodecKeys } from './codec-keys';
import { dataConverterFor, KeylessPayloadCodec } from './payload-codec';

export const DEFAULT_TASK_QUEUE = 'studyflow';

/** The task queue of studyflow's workflows (STUDYFLOW_TASK_QUEUE, default "studyflow"); API activities use "<queue>-api". */
export function workflowTaskQueue(env: NodeJS.ProcessEnv | Record<string, string | undefined> = process.env): string {
  return env.STUDYFLOW_TASK_QUEUE || DEFAULT_TASK_QUEUE;
}

export interface TemporalSettings {
  address: string;
  namespace: string;
  /** TLS / API key options as envconfig read them (TEMPORAL_TLS_*, TEMPORAL_API_KEY, config profile). */
  connectionOptions: Record<string, unknown>;
}

/**
 * Reads the standard TEMPORAL_* variables (and the Temporal config file profile) through
 * @temporalio/envconfig, so the same settings reach a local dev server, any cluster or Temporal Cloud.
 * Without any, the address is the one `studyflow dev` uses: 127.0.0.1:7233, namespace "default".
 */
export function temporalSettings(env: NodeJS.ProcessEnv = process.env): TemporalSettings {
  // An unset CI secret expands to "": treat empty TEMPORAL_* values as absent.
  const present = Object.fromEntries(Object.entries(env).filter(([k, v]) => !(k.startsWith('TEMPORAL_') && (v ?? '').trim() === ''))) as Record<string, string>;
  env = present;
  const config = loadClientConnectConfig({ overrideEnvVars: present });
  const options = { ...(config.connectionOptions as Record<string, unknown>) };
  const address = (options.address as string | undefined) ?? env.TEMPORAL_ADDRESS ?? '127.0.0.1:7233';
  delete options.address;
  return { address, namespace: config.namespace ?? env.TEMPORAL_NAMESPACE ?? 'default', connectionOptions: options };
}

/** Where `studyflow dev` keeps its local payload key (relative to the directory it runs in). */
export const DEV_CODEC_KEY_FILE = path.join('.studyflow', 'codec-key.json');

/**
 * With no codec key configured and the dev defaults in effect (no STUDYFLOW_API_BASE_URL), the key
 * that `studyflow dev` made in this directory, so a second shell talks to the dev stack as is.
 */
export function withDevCodecKey(env: NodeJS.ProcessEnv | Record<string, string | undefined>): NodeJS.ProcessEnv {
  if (env.STUDYFLOW_CODEC_KEYS || env.STUDYFLOW_CODEC_KEY_FILE || env.STUDYFLOW_API_BASE_URL) return env as NodeJS.ProcessEnv;
  return fs.existsSync(DEV_CODEC_KEY_FILE) ? { ...env, STUDYFLOW_CODEC_KEY_FILE: DEV_CODEC_KEY_FILE } : (env as NodeJS.ProcessEnv);
}

/**
 * The payload codec of this process: AES-256-GCM when STUDYFLOW_CODEC_KEYS or STUDYFLOW_CODEC_KEY_FILE
 * is set (client and worker must agree), else one that leaves payloads clear and refuses encrypted
 * ones with an error naming those variables. Key warnings go to `warn`.
 */
export function dataConverterFromEnv(
  env: NodeJS.ProcessEnv | Record<string, string | undefined> = process.env,
  warn: (message: string) => void = (m) => process.stderr.write(`studyflow: ${m}\n`),
): DataConverter {
  const keys = loadCodecKeys(withDevCodecKey(env));
  for (const warning of keys?.warnings ?? []) warn(warning);
  return dataConverterFor(keys) ?? { payloadCodecs: [new KeylessPayloadCodec()] };
}

/** A client for the CLI and tests; it encrypts payloads when a codec key is configured. */
export async function connectClient(
  settings = temporalSettings(),
  env: NodeJS.ProcessEnv | Record<string, string | undefined> = process.env,
): Promise<{ client: Client; connection: Connection }> {
  const connection = await Connection.connect({ ...settings.connectionOptions, address: settings.address, connectTimeout: 5000 });
  const client = new Client({ connection, namespace: settings.namespace, dataConverter: dataConverterFromEnv(env) });
  return { client, connection };
}
