import * as z from 'zod';
import { defineEndpoint } from '../../define';
import { ActiveRoute, DriverParams, TAG } from '../schemas';

export const getDriverActiveRoutes = defineEndpoint({
  operationId: 'getDriverActiveRoutes',
  method: 'GET',
  path: '/dcs/{dc_id}/drivers/{driver_id}/active-routes',
  auth: 'apiKey',
  module: import.meta.url,
  summary: 'List a driver’s active (and started) routes by planned start',
  tag: TAG,
  access: { table: 'read' },
  request: { params: DriverParams },
  responses: {
    200: { description: 'active routes', data: z.object({ active_routes: z.array(ActiveRoute) }) },
  },
  errorCodes: [1003],
});
