import { NOT_BUNDLED } from '../../define';
import { DriverData, DriverParams, driverChangeEndpoint, UpdateDriverBody } from '../schemas';

export const updateDriver = /* @__PURE__ */ driverChangeEndpoint('PATCH /dcs/{dc_id}/drivers/{driver_id}', {
  operationId: 'updateDriver',
  module: import.meta.url,
  summary: 'Rename a driver or change its login token',
  request: { params: DriverParams, body: UpdateDriverBody },
  responses:
    import.meta.responseSchemas === false
      ? NOT_BUNDLED
      : { 200: { description: 'the updated driver', data: DriverData } },
  errorCodes: [1003, 2002],
});
