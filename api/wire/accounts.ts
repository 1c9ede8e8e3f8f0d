// Account operations on the wire (reference: get_user_accounts, get_business_units). Ids are integers there.
import { z } from 'zod';

/** AccountsList: `{accounts: [{id, name}]}`. */
export const AccountsList = z.object({ accounts: z.array(z.looseObject({ id: z.number().int(), name: z.string().optional() })) });
/** get_business_units: `{business_units: [{id, name, currency_code, pricing_models}]}`. */
export const BusinessUnitsList = z.object({
  business_units: z.array(
    z.looseObject({ id: z.number().int(), name: z.string().optional(), currency_code: z.string().optional(), pricing_models: z.array(z.string()).optional() }),
  ),
});
