// GET {base_url}/v1/accounts (reference: get_user_accounts) -> {accounts: [{id, name}]}, and
// GET {base_url}/v1/accounts/{account_id}/business-units (reference: get_business_units) ->
// {business_units: [{id, name, currency_code, pricing_models}]}. Ids are integers, as the reference types them.
import { ok, type RouteModule } from '../core/route-module';
import { SEEDED_ACCOUNTS } from '../core/seed-data';

export const accountsRoutes: RouteModule = {
  name: 'accounts',
  routes: [
    {
      method: 'GET',
      path: '/v1/accounts',
      handler: () => ok({ accounts: SEEDED_ACCOUNTS.map((a) => ({ id: a.account_id, name: a.name })) }),
    },
    {
      method: 'GET',
      path: '/v1/accounts/{account_id}/business-units',
      handler: (ctx) =>
        ok({
          business_units: ctx.account!.business_unit_ids.map((id, i) => ({
            id,
            name: `${ctx.account!.name} unit ${i + 1}`,
            currency_code: 'USD',
            pricing_models: ['rate_card', 'dynamic'],
          })),
        }),
    },
  ],
};
