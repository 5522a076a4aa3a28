import { pagedQuery, pageOf } from '../../../models/common';
import { ok } from '../../define';
import { ROUTE_PAGE_SIZES, RouteParams, routesEndpoint } from '../schemas';
import { RouteWaypoint } from '../waypoint-schemas';

export const listWaypoints = /* @__PURE__ */ routesEndpoint('GET /dcs/{dc_id}/routes/{route_id}/waypoints', {
  operationId: 'listWaypoints',
  module: import.meta.url,
  linksToApi: true,
  summary: 'The waypoints of a route in visiting order',
  request: { params: RouteParams, query: /* @__PURE__ */ pagedQuery(ROUTE_PAGE_SIZES.waypoints) },
  responses:
    import.meta.responseSchemas !== false &&
    ok('waypoints in visiting order', pageOf('waypoints', RouteWaypoint)),
});
