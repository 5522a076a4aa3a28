import { DcParams, FULL_PAGES, Id } from '../../models/common';
import * as z from '../../shared/zod';
import { endpointGroup } from '../define';

// Schema-building calls marked pure: a bundle builds only the schemas of this module its function uses
// (docs/architecture.md, cold starts).

export const TAG = 'Analytics';

export const RouteParams = /* @__PURE__ */ z.extend(DcParams, { route_id: Id });

export const ColumnDefinitions = /* @__PURE__ */ z.withMeta(
  /* @__PURE__ */ z.record(
    /* @__PURE__ */ z.string(),
    /* @__PURE__ */ z.object({
      column_name: /* @__PURE__ */ z.string(),
      column_description: /* @__PURE__ */ z.string(),
    }),
  ),
  { id: 'ColumnDefinitions', description: 'by column id, in CSV column order' },
);

export const AnalyticsRecord = /* @__PURE__ */ z.withMeta(
  /* @__PURE__ */ z.record(
    /* @__PURE__ */ z.string(),
    /* @__PURE__ */ z.union([
      /* @__PURE__ */ z.string(),
      /* @__PURE__ */ z.number(),
      /* @__PURE__ */ z.null(),
    ]),
  ),
  {
    id: 'AnalyticsRecord',
    description: 'values by column id (see the column definitions)',
  },
);

/**
 * Attempt records per page: a record weighs 9.5 KB (proxyBytesOf) when every name and id is at its maximum
 * length (with 20 time windows), so the byte budget ends a page of such records after about 440.
 */
export const ATTEMPT_ANALYTICS_PAGE = FULL_PAGES;

/** The analytics rows: an API key's and read-only unless the row says otherwise. */
export const analyticsEndpoint = /* @__PURE__ */ endpointGroup({ tag: TAG });

/** The analytics of one finished route, which a read computes and stores if it is still missing. */
export const routeAnalyticsEndpoint = /* @__PURE__ */ endpointGroup({
  tag: TAG,
  access: { table: 'readWrite' },
  request: { params: RouteParams },
  errorCodes: [3003, 1003],
});
