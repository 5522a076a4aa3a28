import { DcParams, EpochMillis, FULL_PAGES, Id, type PageSize, ReportedTimestamp } from '../../models/common';
import * as z from '../../shared/zod';
import { type EndpointDefinition, endpointGroup, ok } from '../define';

// Schema-building calls marked pure: a bundle builds only the schemas of this module its function uses
// (docs/architecture.md, cold starts).

export const TAG = 'Routes';

export const RouteParams = /* @__PURE__ */ z.extend(DcParams, { route_id: Id });

export const Route = /* @__PURE__ */ z.withMeta(
  /* @__PURE__ */ z.object({
    id: /* @__PURE__ */ z.string(),
    name: /* @__PURE__ */ z.string(),
    assigned_driver_id: /* @__PURE__ */ z.nullable(/* @__PURE__ */ z.string()),
    start_time: EpochMillis,
    start_warehouse_id: /* @__PURE__ */ z.nullable(/* @__PURE__ */ z.string()),
    end_warehouse_id: /* @__PURE__ */ z.nullable(/* @__PURE__ */ z.string()),
    vehicle_id: /* @__PURE__ */ z.nullable(/* @__PURE__ */ z.string()),
    version: /* @__PURE__ */ z.withMeta(/* @__PURE__ */ z.int(), { description: 'bumped by every change' }),
    waypoint_ids: /* @__PURE__ */ z.array(/* @__PURE__ */ z.string()),
    is_active: /* @__PURE__ */ z.boolean(),
    is_finalized: /* @__PURE__ */ z.boolean(),
    started_timestamp: /* @__PURE__ */ z.nullable(EpochMillis),
    finalized_timestamp: /* @__PURE__ */ z.nullable(EpochMillis),
  }),
  { id: 'Route' },
);

/**
 * Page sizes of the reads that grow with a route: full pages, which the byte budget ends earlier when the
 * rows are large (an invoice with 50 long name attributes, a route listing 2,000 waypoint ids).
 */
export const ROUTE_PAGE_SIZES = {
  /** I# rows: each invoice and each item is one. */
  invoiceRows: FULL_PAGES,
  waypoints: FULL_PAGES,
  /** 1,000 worst-case records (1.7 MB) stay within the byte budget: these pages never end early. */
  accountingRecords: FULL_PAGES,
  routesOfDate: FULL_PAGES,
} as const satisfies Record<string, PageSize>;

export const RouteData = /* @__PURE__ */ z.object({ route: Route });

export const IMPORT_FAILURE_CODES = [3005, 3006, 3008, 3009, 3010];

/**
 * What a start of a route takes and may be refused with, by API key or from the driver app (both run
 * functions/domain/route-start.ts): its events give the waypoints' tracking links (ROUTE_STARTED,
 * ROUTE_ETAS_CHANGED), and ROUTE_STARTED carries the codes of the stops that require a PIN, for the ERP (an
 * answer never does), which only these two functions may open.
 */
export const ROUTE_START = {
  linksToApi: true,
  access: { table: 'readWrite', stopPins: 'decrypt' },
  errorCodes: [3003, 3010, 3011, 3012, 3102],
} satisfies Pick<EndpointDefinition, 'linksToApi' | 'access' | 'errorCodes'>;

/** What the rows about one route share: its params, and 3003 when it is missing. */
const ONE_ROUTE = { tag: TAG, request: { params: RouteParams }, errorCodes: [3003] };

/** The routes' rows: about one route, an API key's and read-only unless the row says otherwise. */
export const routesEndpoint = /* @__PURE__ */ endpointGroup(ONE_ROUTE);

/** Rows that change a route and answer it, refused for a missing, finished or started route. */
export const routeChangeEndpoint = /* @__PURE__ */ endpointGroup({
  // ONE_ROUTE's fields spelt out: esbuild keeps a call whose argument spreads, and with it RouteData.
  tag: TAG,
  request: { params: RouteParams },
  errorCodes: [3003, 3011, 3012, 3102],
  access: { table: 'readWrite' },
  responses: import.meta.responseSchemas !== false && ok('the route after the change', RouteData),
});

export const OptionalTimestampBody = /* @__PURE__ */ z.optional(
  /* @__PURE__ */ z.object({
    timestamp: /* @__PURE__ */ z.withMeta(/* @__PURE__ */ z.optional(ReportedTimestamp), {
      description: 'when it happened; now when absent',
    }),
  }),
);
