// The Demand API settings of a worker or CLI process. With nothing configured, they point at the
// sandbox that `studyflow dev` runs, so the embedded default works without any set-up.

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

/** The process environment with the dev sandbox filled in where no STUDYFLOW_API_BASE_URL is set. */
export function withDevDefaults(env: NodeJS.ProcessEnv): Record<string, string | undefined> {
  if (env.STUDYFLOW_API_BASE_URL) return env;
  const base = `http://127.0.0.1:${DEV_SANDBOX_DEFAULTS.port}`;
  return { ...devSandboxEnv(base, `${base}/auth`), ...env };
}
