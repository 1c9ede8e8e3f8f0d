// GET {base_url}/v1/accounts: the seeded accounts the token may access.
import { ok, type RouteModule } from '../core/route-module';
import { SEEDED_ACCOUNTS } from '../core/seed-data';

export const accountsRoutes: RouteModule = {
  name: 'accounts',
  routes: [
    {
      method: 'GET',
      path: '/v1/accounts',
      handler: () =>
        ok({
          data: SEEDED_ACCOUNTS.map((a) => ({
            id: String(a.account_id),
            account_id: a.account_id,
            name: a.name,
            business_unit_ids: [...a.business_unit_ids],
            project_manager_ids: [...a.project_manager_ids],
            features: [...a.features],
          })),
          has_more: false,
          next_cursor: null,
        }),
    },
  ],
};
