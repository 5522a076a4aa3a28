import * as z from '../../../shared/zod';
import { ok } from '../../define';
import { Driver, DriverLocation, driversEndpoint } from '../schemas';

export const getDriverBulkInfo = /* @__PURE__ */ driversEndpoint(
  'GET /dcs/{dc_id}/drivers/{driver_id}/driver_bulk_info',
  {
    operationId: 'getDriverBulkInfo',
    module: import.meta.url,
    summary: 'Read a driver together with its latest location',
    responses:
      import.meta.responseSchemas !== false &&
      ok('driver and latest location', z.object({ driver: Driver, driver_location: DriverLocation })),
  },
);
