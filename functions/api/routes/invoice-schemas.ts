/** The invoice status schemas, shared by the route and driver-app endpoints that answer them. */
import * as z from 'zod';
import { EpochMillis } from '../../models/common';

const ItemStatus = z
  .object({
    status: z.enum(['SUCCESSFUL', 'FAILED']),
    timestamp: EpochMillis,
    reason: z
      .object({ code: z.string(), message: z.string() })
      .optional()
      .meta({ description: 'present when FAILED' }),
  })
  .nullable()
  .meta({ id: 'ItemStatus', description: 'null until the item has been attempted' });

export const InvoiceStatus = z
  .object({
    id: z.string(),
    payment_method: z.string().nullable(),
    invoice_name_attributes: z.array(z.object({ key: z.string(), value: z.string() })),
    items: z.array(
      z.object({
        id: z.string(),
        sku: z.string().nullable(),
        name: z.string().nullable(),
        quantity: z.number(),
        display_unit_of_measure: z
          .string()
          .nullable()
          .meta({ description: 'what `quantity` counts (`CASE`, `KG`), as imported; null when it was not' }),
        total_price_cents: z.number().int(),
        currency: z.string(),
        status: ItemStatus,
      }),
    ),
  })
  .meta({ id: 'InvoiceStatus' });
