// The checks of `studyflow doctor` in the study client: the configured Demand API connection the way a first
// apply would use it (settings, a token, read-only calls). A module of its own, so that doctor loads no
// Temporal package; the checking is api/operations/connection-check.ts.
import { checkConnection, type DoctorCheck } from '../api/operations/connection-check';
import { devStackSettings } from './dev-stack';

export type { DoctorCheck } from '../api/operations/connection-check';

/**
 * Runs the connection checks with the settings of `env` (a running `studyflow dev` stack's filled in where unset, as
 * the study client does); a failed check stops the ones that depend on it.
 */
export async function doctorChecks(env: NodeJS.ProcessEnv, options: { account?: string; businessUnit?: string }, cwd = process.cwd()): Promise<DoctorCheck[]> {
  return await checkConnection(devStackSettings(env, cwd), options);
}
