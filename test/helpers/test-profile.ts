// The one switch that runs the tests under the real exchange's dialect (docs/sandbox.md, "Dialects"):
// STUDYFLOW_TEST_PROFILE=cint makes every sandbox the tests start speak the `cint` dialect (the published
// reference exactly) and every client the tests build use the `cint` connection profile
// (STUDYFLOW_API_PROFILE=cint). Unset or `sandbox`: the spec's dialect and the `sandbox` profile, as before.
// An unknown value fails loudly, naming the variable, so that a typo never runs the default silently.

/** A connection profile of the client (api/http/api-config.ts CONNECTION_PROFILES). */
export type TestProfile = 'sandbox' | 'cint';
/** The sandbox's dialect that goes with it (sandbox/index.ts SandboxOptions.dialect). */
export type TestDialect = 'spec' | 'cint';

export const TEST_PROFILE_ENV = 'STUDYFLOW_TEST_PROFILE';

/** The profile the test run uses: STUDYFLOW_TEST_PROFILE, `sandbox` when unset. */
export function testProfile(env: Record<string, string | undefined> = process.env): TestProfile {
  const raw = env[TEST_PROFILE_ENV]?.trim() || 'sandbox';
  if (raw !== 'sandbox' && raw !== 'cint') throw new Error(`${TEST_PROFILE_ENV} must be sandbox or cint (got ${JSON.stringify(raw)})`);
  return raw;
}

/** The sandbox dialect of the test run: `cint` under the cint profile, else the spec's. */
export function testDialect(env: Record<string, string | undefined> = process.env): TestDialect {
  return testProfile(env) === 'cint' ? 'cint' : 'spec';
}

/** The version header each profile sends (the same names as CONNECTION_PROFILES; the sandbox side is sandbox/core/dialect.ts). */
export function testVersionHeader(env: Record<string, string | undefined> = process.env): string {
  return testProfile(env) === 'cint' ? 'Cint-API-Version' : 'Svc-API-Version';
}

/** Environment for a studyflow process (CLI, worker, receiver) of the test run: its connection profile. */
export function testClientEnv(env: Record<string, string | undefined> = process.env): Record<string, string> {
  return { STUDYFLOW_API_PROFILE: testProfile(env) };
}

/** Options for a sandbox a test starts to talk to studyflow's client: the run's dialect. */
export function testSandboxOptions(env: Record<string, string | undefined> = process.env): { dialect: TestDialect } {
  return { dialect: testDialect(env) };
}
