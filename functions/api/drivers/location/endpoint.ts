import * as z from '../../../shared/zod';
import { ok } from '../../define';
import { DriverLocation, driversEndpoint } from '../schemas';

export const getDriverLocation = /* @__PURE__ */ driversEndpoint(
  'GET /dcs/{dc_id}/drivers/{driver_id}/location',
  {
    operationId: 'getDriverLocation',
    module: import.meta.url,
    summary: 'Read a driver’s latest location',
    responses:
      import.meta.responseSchemas !== false &&
      ok('latest location', z.object({ driver_location: DriverLocation })),
  },
);
