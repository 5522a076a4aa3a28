import * as z from '../../../shared/zod';
import { alsoAs } from '../../define';
import { driverChangeEndpoint } from '../schemas';

export const finishDriverRoutes = driverChangeEndpoint(
  'PATCH /dcs/{dc_id}/drivers/{driver_id}/finish-routes',
  {
    operationId: 'finishDriverRoutes',
    module: import.meta.url,
    summary: 'Finalize all active routes of a driver',
    responses: {
      200: {
        description: 'ids of the routes this call finalized',
        data: z.object({ finalized_route_ids: z.array(z.string()) }),
      },
    },
  },
);

/** The same endpoint under PUT (one Lambda). */
export const finishDriverRoutesPut = alsoAs(finishDriverRoutes, 'PUT');
