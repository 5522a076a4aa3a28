import * as z from '../../../shared/zod';
import { DriverLocation, driversEndpoint } from '../schemas';

export const getDriverLocation = driversEndpoint('GET /dcs/{dc_id}/drivers/{driver_id}/location', {
  operationId: 'getDriverLocation',
  module: import.meta.url,
  summary: 'Read a driver’s latest location',
  responses: {
    200: { description: 'latest location', data: z.object({ driver_location: DriverLocation }) },
  },
});
