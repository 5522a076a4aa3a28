/** The invoice status schemas, shared by the route and driver-app endpoints that answer them. */

import { EpochMillis } from '../../models/common';
import * as z from '../../shared/zod';

// Schema-building calls marked pure: a bundle builds only the schemas of this module its function uses
// (docs/architecture.md, cold starts).

const ItemStatus = /* @__PURE__ */ z.withMeta(
  /* @__PURE__ */ z.nullable(
    /* @__PURE__ */ z.object({
      status: /* @__PURE__ */ z.enum(['SUCCESSFUL', 'FAILED']),
      timestamp: EpochMillis,
      reason: /* @__PURE__ */ z.withMeta(
        /* @__PURE__ */ z.optional(
          /* @__PURE__ */ z.object({ code: /* @__PURE__ */ z.string(), message: /* @__PURE__ */ z.string() }),
        ),
        {
          description: 'present when FAILED',
        },
      ),
    }),
  ),
  { id: 'ItemStatus', description: 'null until the item has been attempted' },
);

export const InvoiceStatus = /* @__PURE__ */ z.withMeta(
  /* @__PURE__ */ z.object({
    id: /* @__PURE__ */ z.string(),
    payment_method: /* @__PURE__ */ z.nullable(/* @__PURE__ */ z.string()),
    invoice_name_attributes: /* @__PURE__ */ z.array(
      /* @__PURE__ */ z.object({ key: /* @__PURE__ */ z.string(), value: /* @__PURE__ */ z.string() }),
    ),
    items: /* @__PURE__ */ z.array(
      /* @__PURE__ */ z.object({
        id: /* @__PURE__ */ z.string(),
        sku: /* @__PURE__ */ z.nullable(/* @__PURE__ */ z.string()),
        name: /* @__PURE__ */ z.nullable(/* @__PURE__ */ z.string()),
        quantity: /* @__PURE__ */ z.number(),
        display_unit_of_measure: /* @__PURE__ */ z.withMeta(
          /* @__PURE__ */ z.nullable(/* @__PURE__ */ z.string()),
          {
            description: 'what `quantity` counts (`CASE`, `KG`), as imported; null when it was not',
          },
        ),
        total_price_cents: /* @__PURE__ */ z.int(),
        currency: /* @__PURE__ */ z.string(),
        barcodes: /* @__PURE__ */ z.withMeta(/* @__PURE__ */ z.array(/* @__PURE__ */ z.string()), {
          description: 'what a scan’s value is matched against, as imported; empty when it gave none',
        }),
        status: ItemStatus,
      }),
    ),
  }),
  { id: 'InvoiceStatus' },
);
