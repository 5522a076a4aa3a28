/** The invoice status schemas, shared by the route and driver-app endpoints that answer them. */

import { EpochMillis } from '../../models/common';
import * as z from '../../shared/zod';

const ItemStatus = z.withMeta(
  z.nullable(
    z.object({
      status: z.enum(['SUCCESSFUL', 'FAILED']),
      timestamp: EpochMillis,
      reason: z.withMeta(z.optional(z.object({ code: z.string(), message: z.string() })), {
        description: 'present when FAILED',
      }),
    }),
  ),
  { id: 'ItemStatus', description: 'null until the item has been attempted' },
);

export const InvoiceStatus = z.withMeta(
  z.object({
    id: z.string(),
    payment_method: z.nullable(z.string()),
    invoice_name_attributes: z.array(z.object({ key: z.string(), value: z.string() })),
    items: z.array(
      z.object({
        id: z.string(),
        sku: z.nullable(z.string()),
        name: z.nullable(z.string()),
        quantity: z.number(),
        display_unit_of_measure: z.withMeta(z.nullable(z.string()), {
          description: 'what `quantity` counts (`CASE`, `KG`), as imported; null when it was not',
        }),
        total_price_cents: z.int(),
        currency: z.string(),
        barcodes: z.withMeta(z.array(z.string()), {
          description: 'what a scan’s value is matched against, as imported; empty when it gave none',
        }),
        status: ItemStatus,
      }),
    ),
  }),
  { id: 'InvoiceStatus' },
);
