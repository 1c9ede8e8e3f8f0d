// The connection check behind `studyflow doctor`: the settings, a token request and three read-only calls
// (the accounts, the business units of the account, one page of its projects), each reported as it went.
// It writes nothing and never reports a secret. The study client runs it (client/doctor.ts); each call is a plain
// operation of this folder over a caller of its own client (its own dispatcher, closed when the checks end).
import { Agent } from 'undici';
import { CURRENT_API_VERSION } from '../../shared/api-version';
import { ApiConfigError, loadApiConfig, type ApiConfig } from '../http/api-config';
import { AccessTokenProvider } from '../http/access-token-provider';
import { createDemandApiClient, type DemandApiClient } from '../http/demand-api-client';
import { getAccounts, getBusinessUnits } from './accounts';
import { apiCaller } from './caller';
import { readProjectsPage } from './projects';

export interface DoctorCheck {
  check: 'settings' | 'token' | 'accounts' | 'business_unit' | 'projects';
  ok: boolean;
  /** What was found, or what went wrong and what to do about it. */
  detail: string;
}

/**
 * Runs the checks in order with the connection settings of `env`; a failed check stops the ones that
 * depend on it (they are not listed).
 */
export async function checkConnection(env: NodeJS.ProcessEnv, options: { account?: string; businessUnit?: string }): Promise<DoctorCheck[]> {
  const checks: DoctorCheck[] = [];
  let config: ApiConfig;
  try {
    config = loadApiConfig(env);
  } catch (error) {
    if (!(error instanceof ApiConfigError)) throw error;
    return [{ check: 'settings', ok: false, detail: error.issues.map((i) => `${i.setting}: ${i.message}`).join('; ') }];
  }
  checks.push({ check: 'settings', ok: true, detail: `API ${config.baseUrl}, tokens from ${config.authUrl}, version header ${config.versionHeader}` });

  const dispatcher = new Agent({ connect: { timeout: config.timeouts.connectMs } });
  try {
    return await connectionChecks(config, dispatcher, checks, options);
  } finally {
    await dispatcher.close();
  }
}

async function connectionChecks(config: ApiConfig, dispatcher: Agent, checks: DoctorCheck[], options: { account?: string; businessUnit?: string }): Promise<DoctorCheck[]> {
  const tokens = new AccessTokenProvider({ config, dispatcher, clock: Date.now, userAgent: 'studyflow doctor' });
  try {
    await tokens.getToken();
    checks.push({ check: 'token', ok: true, detail: `client ${config.clientId} got a token for audience ${config.audience}` });
  } catch (error) {
    checks.push({ check: 'token', ok: false, detail: `${messageOf(error)} (check STUDYFLOW_AUTH_URL, STUDYFLOW_CLIENT_ID, STUDYFLOW_CLIENT_SECRET and STUDYFLOW_AUDIENCE)` });
    return checks;
  }

  const api: DemandApiClient = createDemandApiClient({ config, dispatcher, userAgent: 'studyflow doctor' });
  const version = CURRENT_API_VERSION;
  let accountId = options.account;
  try {
    const found = await getAccounts(apiCaller(api, { accountId: accountId ?? '0', apiVersion: version }));
    const ids = found.map((a) => a.id);
    if (accountId !== undefined && !ids.includes(accountId)) {
      checks.push({ check: 'accounts', ok: false, detail: `the credentials reach account(s) ${ids.join(', ') || 'none'}, not ${accountId}` });
      return checks;
    }
    accountId ??= ids[0];
    if (accountId === undefined) {
      checks.push({ check: 'accounts', ok: false, detail: 'the credentials reach no account' });
      return checks;
    }
    checks.push({ check: 'accounts', ok: true, detail: `reachable: ${found.map((a) => (a.name ? `${a.id} (${String(a.name)})` : a.id)).join(', ')}; checking ${accountId}` });
  } catch (error) {
    checks.push({ check: 'accounts', ok: false, detail: `${messageOf(error)} (check STUDYFLOW_API_BASE_URL and the version header)` });
    return checks;
  }

  try {
    const businessUnits = await getBusinessUnits(apiCaller(api, { accountId, apiVersion: version }));
    const ids = businessUnits.map((b) => b.id);
    if (options.businessUnit !== undefined && !ids.includes(options.businessUnit)) {
      checks.push({ check: 'business_unit', ok: false, detail: `account ${accountId} has business unit(s) ${ids.join(', ') || 'none'}, not ${options.businessUnit}` });
    } else {
      checks.push({ check: 'business_unit', ok: ids.length > 0, detail: ids.length ? `account ${accountId} has business unit(s) ${ids.join(', ')}` : `account ${accountId} has no business unit` });
    }
  } catch (error) {
    checks.push({ check: 'business_unit', ok: false, detail: messageOf(error) });
  }

  try {
    const page = await readProjectsPage(apiCaller(api, { accountId, apiVersion: version }), 1);
    const count = page.projects.length;
    checks.push({ check: 'projects', ok: true, detail: `listed ${count === 0 ? 'no project yet' : 'the first project'}${page.hasMore ? ' (there are more)' : ''}` });
  } catch (error) {
    checks.push({ check: 'projects', ok: false, detail: messageOf(error) });
  }
  return checks;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
