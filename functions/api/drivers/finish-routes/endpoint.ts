import * as z from 'zod';
import { alsoAs, defineEndpoint } from '../../define';
import { DriverParams, TAG } from '../schemas';

export const finishDriverRoutes = defineEndpoint({
  operationId: 'finishDriverRoutes',
  method: 'PATCH',
  path: '/dcs/{dc_id}/drivers/{driver_id}/finish-routes',
  auth: 'apiKey',
  module: import.meta.url,
  summary: 'Finalize all active routes of a driver',
  tag: TAG,
  access: { table: 'readWrite' },
  request: { params: DriverParams },
  responses: {
    200: {
      description: 'ids of the routes this call finalized',
      data: z.object({ finalized_route_ids: z.array(z.string()) }),
    },
  },
  errorCodes: [1003],
});

/** The same endpoint under PUT (one Lambda). */
export const finishDriverRoutesPut = alsoAs(finishDriverRoutes, 'PUT');
