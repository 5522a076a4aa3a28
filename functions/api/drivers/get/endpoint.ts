import { DriverData, driversEndpoint } from '../schemas';

export const getDriver = driversEndpoint('getDriver', 'GET /dcs/{dc_id}/drivers/{driver_id}', {
  module: import.meta.url,
  summary: 'Read a driver',
  responses: { 200: { description: 'the driver', data: DriverData } },
  errorCodes: [1003],
});
