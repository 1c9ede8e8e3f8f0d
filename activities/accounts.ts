// Accounts: which demand accounts the credentials can act for.
import { callApi } from './api-call';
import { checkCtx } from './activity-input';
import type { ActivityDeps } from './activity-deps';
import { unexpectedResponseFailure } from './http/errors';
import type { ActivityCtx } from './types';

export interface GetAccountsInput {
  /** `accountId` is not used by this call but keeps the ctx shape uniform; the version header comes from it. */
  ctx: ActivityCtx;
}

export interface GetAccountsOutput {
  accounts: Record<string, unknown>[];
}

export function accountActivities(deps: ActivityDeps) {
  return {
    /** GET {base_url}/v1/accounts */
    async getAccounts(input: GetAccountsInput): Promise<GetAccountsOutput> {
      const ctx = checkCtx('getAccounts', input.ctx);
      const req = { method: 'GET', path: '/v1/accounts' } as const;
      const res = await callApi(deps.api, ctx, req);
      const body = res.body as unknown;
      const list = Array.isArray(body) ? body : (body as Record<string, unknown> | undefined)?.data;
      if (!Array.isArray(list)) throw unexpectedResponseFailure(req, res.status, 'expected a list of accounts');
      return { accounts: list.filter((a): a is Record<string, unknown> => typeof a === 'object' && a !== null) };
    },
  };
}
