// The worker's side of Temporal: the native connection (it loads @temporalio/worker, which only workers need).
import { NativeConnection } from '@temporalio/worker';
import { installRuntimeLogging } from './runtime-logging';
import { temporalSettings } from '../temporal/temporal-connection';

/** The worker's native connection, with the SDK's runtime logs routed through studyflow's logging. */
export async function connectWorker(settings = temporalSettings()): Promise<NativeConnection> {
  installRuntimeLogging();
  return await NativeConnection.connect({ ...settings.connectionOptions, address: settings.address } as Parameters<typeof NativeConnection.connect>[0]);
}
