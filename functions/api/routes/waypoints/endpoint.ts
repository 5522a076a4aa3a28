import { pagedQuery, pageOf } from '../../../models/common';
import { ROUTE_PAGE_SIZES, RouteParams, routesEndpoint } from '../schemas';
import { RouteWaypoint } from '../waypoint-schemas';

export const listWaypoints = routesEndpoint('GET /dcs/{dc_id}/routes/{route_id}/waypoints', {
  operationId: 'listWaypoints',
  module: import.meta.url,
  linksToApi: true,
  summary: 'The waypoints of a route in visiting order',
  request: { params: RouteParams, query: pagedQuery(ROUTE_PAGE_SIZES.waypoints) },
  responses: {
    200: {
      description: 'waypoints in visiting order',
      data: pageOf('waypoints', RouteWaypoint),
    },
  },
});
