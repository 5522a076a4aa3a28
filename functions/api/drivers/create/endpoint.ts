import { DcParams } from '../../../models/common';
import { ok } from '../../define';
import { CreateDriverBody, DriverData, driverChangeEndpoint } from '../schemas';

export const createDriver = /* @__PURE__ */ driverChangeEndpoint('POST /dcs/{dc_id}/drivers', {
  operationId: 'createDriver',
  module: import.meta.url,
  summary: 'Create a driver in a DC',
  request: { params: DcParams, body: CreateDriverBody },
  responses: import.meta.responseSchemas !== false && ok('the created driver', DriverData),
  errorCodes: [2000, 2002],
});
