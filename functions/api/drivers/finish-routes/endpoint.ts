import * as z from 'zod';
import { alsoAs } from '../../define';
import { driversEndpoint } from '../schemas';

export const finishDriverRoutes = driversEndpoint(
  'finishDriverRoutes',
  'PATCH /dcs/{dc_id}/drivers/{driver_id}/finish-routes',
  {
    module: import.meta.url,
    summary: 'Finalize all active routes of a driver',
    access: { table: 'readWrite' },
    responses: {
      200: {
        description: 'ids of the routes this call finalized',
        data: z.object({ finalized_route_ids: z.array(z.string()) }),
      },
    },
    errorCodes: [1003],
  },
);

/** The same endpoint under PUT (one Lambda). */
export const finishDriverRoutesPut = alsoAs(finishDriverRoutes, 'PUT');
