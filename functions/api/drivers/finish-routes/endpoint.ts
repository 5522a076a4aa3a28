import * as z from '../../../shared/zod';
import { alsoAs, ok } from '../../define';
import { driverChangeEndpoint } from '../schemas';

export const finishDriverRoutes = /* @__PURE__ */ driverChangeEndpoint(
  'PATCH /dcs/{dc_id}/drivers/{driver_id}/finish-routes',
  {
    operationId: 'finishDriverRoutes',
    module: import.meta.url,
    summary: 'Finalize all active routes of a driver',
    responses:
      import.meta.responseSchemas !== false &&
      ok(
        'ids of the routes this call finalized',
        z.object({
          finalized_route_ids: /* @__PURE__ */ z.array(/* @__PURE__ */ z.string()),
        }),
      ),
  },
);

/** The same endpoint under PUT (one Lambda). */
export const finishDriverRoutesPut = /* @__PURE__ */ alsoAs(finishDriverRoutes, 'PUT');
