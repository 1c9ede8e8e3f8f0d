// Accounts: which demand accounts the credentials can act for, and an account's business units.
import { AccountsList, BusinessUnitsList } from '../wire/accounts';
import { readAnswer } from '../wire/read-answer';
import { seg, type ApiCaller } from './caller';

export type AccountItem = Record<string, unknown> & { id: string };

/** GET {base_url}/v1/accounts (get_user_accounts): `{id, name}` per account, ids as strings. */
export async function getAccounts(caller: ApiCaller): Promise<AccountItem[]> {
  const req = { method: 'GET', path: '/v1/accounts' } as const;
  const body = readAnswer({ operation: 'get_user_accounts', ...req }, AccountsList, await caller.send(req));
  return body.accounts.map((a) => ({ ...a, id: String(a.id) }));
}

/** GET {base_url}/v1/accounts/{account_id}/business-units (get_business_units), for the caller's account. */
export async function getBusinessUnits(caller: ApiCaller): Promise<AccountItem[]> {
  const req = { method: 'GET', path: `/v1/accounts/${seg(caller.accountId)}/business-units` } as const;
  const body = readAnswer({ operation: 'get_business_units', ...req }, BusinessUnitsList, await caller.send(req));
  return body.business_units.map((b) => ({ ...b, id: String(b.id) }));
}
