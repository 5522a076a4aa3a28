import { ok } from '../../define';
import { DriverData, driversEndpoint } from '../schemas';

export const getDriver = /* @__PURE__ */ driversEndpoint('GET /dcs/{dc_id}/drivers/{driver_id}', {
  operationId: 'getDriver',
  module: import.meta.url,
  summary: 'Read a driver',
  responses: import.meta.responseSchemas !== false && ok('the driver', DriverData),
});
