import * as z from '../../../shared/zod';
import { ActiveRoute, driversEndpoint } from '../schemas';

export const getDriverActiveRoutes = driversEndpoint('GET /dcs/{dc_id}/drivers/{driver_id}/active-routes', {
  operationId: 'getDriverActiveRoutes',
  module: import.meta.url,
  summary: 'List a driver’s active (and started) routes by planned start',
  responses: {
    200: { description: 'active routes', data: z.object({ active_routes: z.array(ActiveRoute) }) },
  },
});
