import * as z from 'zod';
import { NextToken, pagedQuery } from '../../../models/common';
import { defineEndpoint } from '../../define';
import { ROUTE_PAGE_SIZES, RouteParams, TAG } from '../schemas';
import { Waypoint } from '../waypoint-schemas';

export const listWaypoints = defineEndpoint({
  operationId: 'listWaypoints',
  method: 'GET',
  path: '/dcs/{dc_id}/routes/{route_id}/waypoints',
  auth: 'apiKey',
  module: import.meta.url,
  summary: 'The waypoints of a route in sequence',
  tag: TAG,
  access: { table: 'read' },
  request: { params: RouteParams, query: pagedQuery(ROUTE_PAGE_SIZES.waypoints) },
  responses: {
    200: {
      description: 'waypoints in sequence',
      data: z.object({ waypoints: z.array(Waypoint), next_token: NextToken }),
    },
  },
  errorCodes: [3003],
});
