import { Id } from '../../../models/common';
import { IMPORT_LIMITS } from '../../../models/import-model';
import * as z from '../../../shared/zod';
import { RouteParams, routeChangeEndpoint } from '../schemas';

export const WaypointOrder = /* @__PURE__ */ z.withMeta(
  /* @__PURE__ */ z.object({
    waypoint_ids: /* @__PURE__ */ z.withMeta(
      /* @__PURE__ */ z
        .array(Id)
        .check(/* @__PURE__ */ z.minLength(1), /* @__PURE__ */ z.maxLength(IMPORT_LIMITS.waypoints)),
      {
        description:
          'every waypoint of the route, once, in the order they are to be visited; a waypoint whose visit is done keeps its place',
      },
    ),
  }),
  { id: 'WaypointOrder' },
);

export const reorderWaypoints = /* @__PURE__ */ routeChangeEndpoint(
  'PUT /dcs/{dc_id}/routes/{route_id}/waypoint-order',
  {
    operationId: 'reorderWaypoints',
    module: import.meta.url,
    // On a started route its ROUTE_ETAS_CHANGED gives the waypoints' tracking links.
    linksToApi: true,
    summary:
      'Give the route’s waypoints a new visiting order (started routes too); ETAs are recomputed; ROUTE_UPDATED with order_changed',
    description:
      'No waypoint changes its `sequence`; the route’s `waypoint_ids` and every read of its waypoints follow the new order. The same order again changes nothing (no new version, no event).',
    request: { params: RouteParams, body: WaypointOrder },
    errorCodes: [3003, 3012, 3013, 3100, 3102],
  },
);
