import { FULL_PAGES, PAGE_BYTES_NOTE, pagedQuery, pageOf } from '../../../models/common';
import * as z from '../../../shared/zod';
import { ok } from '../../define';
import { InvoiceStatus } from '../../routes/invoice-schemas';
import { Route } from '../../routes/schemas';
import { Waypoint } from '../../routes/waypoint-schemas';
import { driverAppEndpoint } from '../schemas';

export const DriverRoute = /* @__PURE__ */ z.withMeta(
  /* @__PURE__ */ z.extend(Route, {
    waypoints: /* @__PURE__ */ z.array(
      /* @__PURE__ */ z.extend(Waypoint, { invoices: /* @__PURE__ */ z.array(InvoiceStatus) }),
    ),
  }),
  { id: 'DriverRoute', description: 'a route with its waypoints, invoices and item statuses' },
);

/**
 * Waypoints per page of the driver's routes. One route of 2,000 worst-case waypoints is 10 MB without its
 * invoices, so pages count waypoints (with their invoices and items), and the byte budget ends a page of
 * large waypoints early.
 */
export const DRIVER_ROUTE_WAYPOINTS_PAGE = FULL_PAGES;

export const listDriverRoutes = /* @__PURE__ */ driverAppEndpoint('GET /driver/routes', {
  operationId: 'listDriverRoutes',
  module: import.meta.url,
  summary: 'The driver’s active and started routes in full, by planned start, a page of waypoints at a time',
  description:
    '`limit` counts waypoints (each with its invoices and items). A route cut by a page boundary continues on the next page under the same route id, holding the waypoints that follow. A `next_token` stops working when its route leaves the list (finished or reassigned): start again without one. ' +
    PAGE_BYTES_NOTE,
  request: { query: /* @__PURE__ */ pagedQuery(DRIVER_ROUTE_WAYPOINTS_PAGE) },
  responses: import.meta.responseSchemas !== false && ok('the routes', pageOf('routes', DriverRoute)),
});
