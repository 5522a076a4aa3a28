import * as z from '../../../shared/zod';
import { NOT_BUNDLED } from '../../define';
import { Driver, DriverLocation, driversEndpoint } from '../schemas';

export const getDriverBulkInfo = /* @__PURE__ */ driversEndpoint(
  'GET /dcs/{dc_id}/drivers/{driver_id}/driver_bulk_info',
  {
    operationId: 'getDriverBulkInfo',
    module: import.meta.url,
    summary: 'Read a driver together with its latest location',
    responses:
      import.meta.responseSchemas === false
        ? NOT_BUNDLED
        : {
            200: {
              description: 'driver and latest location',
              data: /* @__PURE__ */ z.object({ driver: Driver, driver_location: DriverLocation }),
            },
          },
  },
);
