/** The cash accounting record schema, shared by the route and driver-app endpoints that answer it. */
import * as z from '../../shared/zod';

// Schema-building calls marked pure: a bundle builds only the schemas of this module its function uses
// (docs/architecture.md, cold starts).

export const AccountingRecord = /* @__PURE__ */ z.withMeta(
  /* @__PURE__ */ z.object({
    id: /* @__PURE__ */ z.string(),
    driver_id: /* @__PURE__ */ z.string(),
    cash_received_cents: /* @__PURE__ */ z.int(),
    cash_container_id: /* @__PURE__ */ z.string(),
  }),
  { id: 'AccountingRecord' },
);
