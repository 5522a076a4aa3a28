import * as z from '../../../shared/zod';
import { Driver, DriverLocation, driversEndpoint } from '../schemas';

export const getDriverBulkInfo = driversEndpoint('GET /dcs/{dc_id}/drivers/{driver_id}/driver_bulk_info', {
  operationId: 'getDriverBulkInfo',
  module: import.meta.url,
  summary: 'Read a driver together with its latest location',
  responses: {
    200: {
      description: 'driver and latest location',
      data: z.object({ driver: Driver, driver_location: DriverLocation }),
    },
  },
});
