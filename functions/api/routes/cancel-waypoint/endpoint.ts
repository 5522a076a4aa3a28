import { Id } from '../../../models/common';
import * as z from '../../../shared/zod';
import { ok } from '../../define';
import { RouteData, RouteParams, routesEndpoint } from '../schemas';

export const cancelWaypoint = /* @__PURE__ */ routesEndpoint(
  'DELETE /dcs/{dc_id}/routes/{route_id}/waypoints/{waypoint_id}',
  {
    operationId: 'cancelWaypoint',
    module: import.meta.url,
    // On a started route its ROUTE_ETAS_CHANGED gives the waypoints' tracking links.
    linksToApi: true,
    summary:
      'Cancel a waypoint not yet visited (started routes too): it leaves the route with its invoices and items, their ids are freed, ETAs are recomputed; ROUTE_UPDATED',
    access: { table: 'readWrite' },
    request: { params: /* @__PURE__ */ z.extend(RouteParams, { waypoint_id: Id }) },
    responses:
      import.meta.responseSchemas !== false && ok('the route after the change (version bumped)', RouteData),
    errorCodes: [3003, 3012, 1003, 3100, 3102],
  },
);
