/** The cash accounting record schema, shared by the route and driver-app endpoints that answer it. */
import * as z from '../../shared/zod';

export const AccountingRecord = z.withMeta(
  z.object({
    id: z.string(),
    driver_id: z.string(),
    cash_received_cents: z.int(),
    cash_container_id: z.string(),
  }),
  { id: 'AccountingRecord' },
);
