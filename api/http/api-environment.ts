// The Demand API settings of a worker or CLI process. With nothing configured, they point at the
// sandbox that `studyflow dev` runs, so the embedded default works without any set-up, in the connection
// profile that dev stack speaks (`studyflow dev --profile cint`).
import fs from 'node:fs';
import path from 'node:path';
import { ApiConfigError, CONNECTION_PROFILES, type ConnectionProfileName } from './api-config';

/** Where `studyflow dev` serves the sandbox, and its seeded (public, non-secret) credentials. */
export const DEV_SANDBOX_DEFAULTS = {
  port: 4010,
  clientId: 'studyflow-sandbox',
  clientSecret: 'sandbox-secret',
  audience: 'https://demand-api.sandbox.local',
};

export function devSandboxEnv(baseUrl: string, authUrl: string): Record<string, string> {
  return {
    STUDYFLOW_API_BASE_URL: baseUrl,
    STUDYFLOW_AUTH_URL: authUrl,
    STUDYFLOW_AUDIENCE: DEV_SANDBOX_DEFAULTS.audience,
    STUDYFLOW_CLIENT_ID: DEV_SANDBOX_DEFAULTS.clientId,
    STUDYFLOW_CLIENT_SECRET: DEV_SANDBOX_DEFAULTS.clientSecret,
  };
}

/** Where a running `studyflow dev` notes its connection profile (relative to the directory it runs in). */
export const DEV_API_PROFILE_FILE = path.join('.studyflow', 'api-profile');

/** Notes the dev stack's profile in its state directory (`<stateDir>/api-profile`); returns a remover. */
export function writeDevApiProfile(stateDir: string, profile: ConnectionProfileName): () => void {
  const file = path.join(stateDir, 'api-profile');
  fs.mkdirSync(stateDir, { recursive: true });
  fs.writeFileSync(file, `${profile}\n`);
  return () => fs.rmSync(file, { force: true });
}

/** The profile a dev stack in this directory speaks, when one noted it (an unknown note is ignored). */
export function devApiProfile(file = DEV_API_PROFILE_FILE): ConnectionProfileName | undefined {
  let noted: string;
  try {
    noted = fs.readFileSync(file, 'utf8').trim();
  } catch {
    return undefined;
  }
  return Object.hasOwn(CONNECTION_PROFILES, noted) ? (noted as ConnectionProfileName) : undefined;
}

/**
 * The process environment with the dev sandbox filled in where no STUDYFLOW_API_BASE_URL is set, in the profile
 * the dev stack of this directory speaks (.studyflow/api-profile, as the payload key is found in .studyflow/).
 * @throws ApiConfigError when STUDYFLOW_API_PROFILE names another profile than that dev stack's.
 */
export function withDevDefaults(env: NodeJS.ProcessEnv | Record<string, string | undefined>, profileFile = DEV_API_PROFILE_FILE): Record<string, string | undefined> {
  if (env.STUDYFLOW_API_BASE_URL) return env;
  const base = `http://127.0.0.1:${DEV_SANDBOX_DEFAULTS.port}`;
  const filled: Record<string, string | undefined> = { ...devSandboxEnv(base, `${base}/auth`), ...env };
  const dev = devApiProfile(profileFile);
  if (dev) {
    const asked = env.STUDYFLOW_API_PROFILE?.trim();
    if (asked && asked !== dev) {
      throw new ApiConfigError([
        {
          setting: 'STUDYFLOW_API_PROFILE',
          message: `is ${asked}, but the dev stack of this directory speaks the ${dev} profile (${profileFile}, from \`studyflow dev --profile ${dev}\`): unset it, set it to ${dev}, or restart the dev stack with --profile ${asked}`,
        },
      ]);
    }
    filled.STUDYFLOW_API_PROFILE = dev;
  }
  return filled;
}
