import * as z from '../../../shared/zod';
import { ok } from '../../define';
import { ActiveRoute, driversEndpoint } from '../schemas';

export const getDriverActiveRoutes = /* @__PURE__ */ driversEndpoint(
  'GET /dcs/{dc_id}/drivers/{driver_id}/active-routes',
  {
    operationId: 'getDriverActiveRoutes',
    module: import.meta.url,
    summary: 'List a driver’s active (and started) routes by planned start',
    responses:
      import.meta.responseSchemas !== false &&
      ok('active routes', z.object({ active_routes: /* @__PURE__ */ z.array(ActiveRoute) })),
  },
);
