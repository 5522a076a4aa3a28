import { DriverData, driversEndpoint } from '../schemas';

export const getDriver = driversEndpoint('GET /dcs/{dc_id}/drivers/{driver_id}', {
  operationId: 'getDriver',
  module: import.meta.url,
  summary: 'Read a driver',
  responses: { 200: { description: 'the driver', data: DriverData } },
});
