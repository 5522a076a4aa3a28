import { NOT_BUNDLED } from '../../define';
import { DriverData, driversEndpoint } from '../schemas';

export const getDriver = /* @__PURE__ */ driversEndpoint('GET /dcs/{dc_id}/drivers/{driver_id}', {
  operationId: 'getDriver',
  module: import.meta.url,
  summary: 'Read a driver',
  responses:
    import.meta.responseSchemas === false
      ? NOT_BUNDLED
      : { 200: { description: 'the driver', data: DriverData } },
});
