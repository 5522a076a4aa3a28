import { Id } from '../../../models/common';
import * as z from '../../../shared/zod';
import { RouteParams, routesEndpoint } from '../schemas';
import { RouteWaypoint } from '../waypoint-schemas';

export const getWaypoint = routesEndpoint('GET /dcs/{dc_id}/routes/{route_id}/waypoints/{waypoint_id}', {
  operationId: 'getWaypoint',
  module: import.meta.url,
  linksToApi: true,
  summary: 'One waypoint of a route',
  request: { params: z.extend(RouteParams, { waypoint_id: Id }) },
  responses: { 200: { description: 'the waypoint', data: z.object({ waypoint: RouteWaypoint }) } },
  errorCodes: [3003, 1003],
});
