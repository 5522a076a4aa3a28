import { DriverData, DriverParams, driverChangeEndpoint, UpdateDriverBody } from '../schemas';

export const updateDriver = driverChangeEndpoint('PATCH /dcs/{dc_id}/drivers/{driver_id}', {
  operationId: 'updateDriver',
  module: import.meta.url,
  summary: 'Rename a driver or change its login token',
  request: { params: DriverParams, body: UpdateDriverBody },
  responses: { 200: { description: 'the updated driver', data: DriverData } },
  errorCodes: [1003, 2002],
});
