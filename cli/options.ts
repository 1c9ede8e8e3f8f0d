import { CliError } from './output';
import { API_PROFILES, apiProfileNamed, type ApiProfileName } from '../shared/api-profile';

/** A TCP port from a command-line option (0 means a free one). */
export function parsePort(value: string, flag: string): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new CliError(`${flag} must be a port number (0-65535), got "${value}"`, 2);
  return port;
}

/** `--metrics-port`, else STUDYFLOW_METRICS_PORT (empty counts as unset); undefined: no /metrics and /healthz endpoint. */
export function metricsPortOf(flag: string | undefined, env: NodeJS.ProcessEnv | Record<string, string | undefined>): number | undefined {
  if (flag !== undefined) return parsePort(flag, '--metrics-port');
  const fromEnv = env.STUDYFLOW_METRICS_PORT?.trim();
  return fromEnv ? parsePort(fromEnv, 'STUDYFLOW_METRICS_PORT') : undefined;
}

/** A positive number of seconds. */
export function parseSeconds(value: string, flag: string): number {
  const seconds = Number(value);
  if (!Number.isFinite(seconds) || seconds <= 0) throw new CliError(`${flag} must be a positive number of seconds, got "${value}"`, 2);
  return seconds;
}

/**
 * The connection profile a command checks study files against: `--profile`, else STUDYFLOW_API_PROFILE, else
 * `sandbox`. An unknown STUDYFLOW_API_PROFILE is a usage error (exit 2) naming the choices.
 */
export function cliApiProfile(ctx: { env: NodeJS.ProcessEnv }, option: ApiProfileName | undefined): ApiProfileName {
  if (option) return option;
  const named = apiProfileNamed(ctx.env.STUDYFLOW_API_PROFILE);
  if (!named) throw new CliError(`STUDYFLOW_API_PROFILE must be one of ${API_PROFILES.join(', ')}`, 2);
  return named;
}
