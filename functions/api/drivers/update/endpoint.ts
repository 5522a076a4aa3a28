import { ok } from '../../define';
import { DriverData, DriverParams, driverChangeEndpoint, UpdateDriverBody } from '../schemas';

export const updateDriver = /* @__PURE__ */ driverChangeEndpoint('PATCH /dcs/{dc_id}/drivers/{driver_id}', {
  operationId: 'updateDriver',
  module: import.meta.url,
  summary: 'Rename a driver or change its login token',
  request: { params: DriverParams, body: UpdateDriverBody },
  responses: import.meta.responseSchemas !== false && ok('the updated driver', DriverData),
  errorCodes: [1003, 2002],
});
