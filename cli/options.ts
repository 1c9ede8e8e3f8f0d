import { CliError } from './output';

/** A TCP port from a command-line option (0 means a free one). */
export function parsePort(value: string, flag: string): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new CliError(`${flag} must be a port number (0-65535), got "${value}"`, 2);
  return port;
}

/** A positive number of seconds. */
export function parseSeconds(value: string, flag: string): number {
  const seconds = Number(value);
  if (!Number.isFinite(seconds) || seconds <= 0) throw new CliError(`${flag} must be a positive number of seconds, got "${value}"`, 2);
  return seconds;
}
