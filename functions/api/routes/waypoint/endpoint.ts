import * as z from 'zod';
import { Id } from '../../../models/common';
import { defineEndpoint } from '../../define';
import { RouteParams, TAG } from '../schemas';
import { Waypoint } from '../waypoint-schemas';

export const getWaypoint = defineEndpoint({
  operationId: 'getWaypoint',
  method: 'GET',
  path: '/dcs/{dc_id}/routes/{route_id}/waypoints/{waypoint_id}',
  auth: 'apiKey',
  module: import.meta.url,
  summary: 'One waypoint of a route',
  tag: TAG,
  access: { table: 'read' },
  request: { params: RouteParams.extend({ waypoint_id: Id }) },
  responses: { 200: { description: 'the waypoint', data: z.object({ waypoint: Waypoint }) } },
  errorCodes: [3003, 1003],
});
