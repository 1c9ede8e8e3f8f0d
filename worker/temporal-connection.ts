import { loadClientConnectConfig } from '@temporalio/envconfig';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';

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
  const config = loadClientConnectConfig({ overrideEnvVars: env as Record<string, string> });
  const options = { ...(config.connectionOptions as Record<string, unknown>) };
  const address = (options.address as string | undefined) ?? env.TEMPORAL_ADDRESS ?? '127.0.0.1:7233';
  delete options.address;
  return { address, namespace: config.namespace ?? env.TEMPORAL_NAMESPACE ?? 'default', connectionOptions: options };
}

/** A client for the CLI and tests. */
export async function connectClient(settings = temporalSettings()): Promise<{ client: Client; connection: Connection }> {
  const connection = await Connection.connect({ ...settings.connectionOptions, address: settings.address, connectTimeout: 5000 });
  const client = new Client({ connection, namespace: settings.namespace });
  return { client, connection };
}

/** The worker's native connection. */
export async function connectWorker(settings = temporalSettings()): Promise<NativeConnection> {
  return await NativeConnection.connect({ ...settings.connectionOptions, address: settings.address } as Parameters<typeof NativeConnection.connect>[0]);
}
