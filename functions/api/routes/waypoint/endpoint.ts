import { Id } from '../../../models/common';
import * as z from '../../../shared/zod';
import { ok } from '../../define';
import { RouteParams, routesEndpoint } from '../schemas';
import { RouteWaypoint } from '../waypoint-schemas';

export const getWaypoint = /* @__PURE__ */ routesEndpoint(
  'GET /dcs/{dc_id}/routes/{route_id}/waypoints/{waypoint_id}',
  {
    operationId: 'getWaypoint',
    module: import.meta.url,
    linksToApi: true,
    summary: 'One waypoint of a route',
    request: { params: /* @__PURE__ */ z.extend(RouteParams, { waypoint_id: Id }) },
    responses:
      import.meta.responseSchemas !== false && ok('the waypoint', z.object({ waypoint: RouteWaypoint })),
    errorCodes: [3003, 1003],
  },
);
