import * as z from 'zod';
import { defineEndpoint } from '../../define';
import { Driver, DriverLocation, DriverParams, TAG } from '../schemas';

export const getDriverBulkInfo = defineEndpoint({
  operationId: 'getDriverBulkInfo',
  method: 'GET',
  path: '/dcs/{dc_id}/drivers/{driver_id}/driver_bulk_info',
  auth: 'apiKey',
  module: import.meta.url,
  summary: 'Read a driver together with its latest location',
  tag: TAG,
  access: { table: 'read' },
  request: { params: DriverParams },
  responses: {
    200: {
      description: 'driver and latest location',
      data: z.object({ driver: Driver, driver_location: DriverLocation }),
    },
  },
  errorCodes: [1003],
});
