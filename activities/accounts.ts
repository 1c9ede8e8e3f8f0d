// Accounts: which demand accounts the credentials can act for, and an account's business units.
import { getAccounts, getBusinessUnits } from '../api/operations/accounts';
import { activityCaller } from './api-call';
import { checkCtx } from './activity-input';
import type { ActivityDeps } from './activity-deps';
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
    /** get_user_accounts */
    async getAccounts(input: GetAccountsInput): Promise<GetAccountsOutput> {
      const ctx = checkCtx('getAccounts', input.ctx);
      return { accounts: await getAccounts(activityCaller(deps, ctx)) };
    },

    /** get_business_units, for the ctx's account. */
    async getBusinessUnits(input: GetAccountsInput): Promise<GetBusinessUnitsOutput> {
      const ctx = checkCtx('getBusinessUnits', input.ctx);
      return { businessUnits: await getBusinessUnits(activityCaller(deps, ctx)) };
    },
  };
}
