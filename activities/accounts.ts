// Accounts: which demand accounts the credentials can act for, and an account's business units.
import { callApi, seg } from './api-call';
import { checkCtx } from './activity-input';
import type { ActivityDeps } from './activity-deps';
import { AccountsList, BusinessUnitsList } from '../api/wire/accounts';
import { readAnswer } from '../api/wire/read-answer';
import type { ActivityCtx } from './types';

export interface GetAccountsInput {
  /** `accountId` is not used by this call but keeps the ctx shape uniform; the version header comes from it. */
  ctx: ActivityCtx;
}

export interface GetAccountsOutput {
  /** `{id, name}` per account; ids as strings, as studyflow addresses accounts in paths. */
  accounts: Array<Record<string, unknown> & { id: string }>;
}

export interface GetBusinessUnitsOutput {
  businessUnits: Array<Record<string, unknown> & { id: string }>;
}

export function accountActivities(deps: Pick<ActivityDeps, 'api'>) {
  return {
    /** GET {base_url}/v1/accounts (get_user_accounts) */
    async getAccounts(input: GetAccountsInput): Promise<GetAccountsOutput> {
      const ctx = checkCtx('getAccounts', input.ctx);
      const req = { method: 'GET', path: '/v1/accounts' } as const;
      const body = readAnswer({ operation: 'get_user_accounts', ...req }, AccountsList, await callApi(deps.api, ctx, req));
      return { accounts: body.accounts.map((a) => ({ ...a, id: String(a.id) })) };
    },

    /** GET {base_url}/v1/accounts/{account_id}/business-units (get_business_units), for the ctx's account. */
    async getBusinessUnits(input: GetAccountsInput): Promise<GetBusinessUnitsOutput> {
      const ctx = checkCtx('getBusinessUnits', input.ctx);
      const req = { method: 'GET', path: `/v1/accounts/${seg(ctx.accountId)}/business-units` } as const;
      const body = readAnswer({ operation: 'get_business_units', ...req }, BusinessUnitsList, await callApi(deps.api, ctx, req));
      return { businessUnits: body.business_units.map((b) => ({ ...b, id: String(b.id) })) };
    },
  };
}
