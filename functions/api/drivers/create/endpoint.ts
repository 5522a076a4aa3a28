import { DcParams } from '../../../models/common';
import { NOT_BUNDLED } from '../../define';
import { CreateDriverBody, DriverData, driverChangeEndpoint } from '../schemas';

export const createDriver = /* @__PURE__ */ driverChangeEndpoint('POST /dcs/{dc_id}/drivers', {
  operationId: 'createDriver',
  module: import.meta.url,
  summary: 'Create a driver in a DC',
  request: { params: DcParams, body: CreateDriverBody },
  responses:
    import.meta.responseSchemas === false
      ? NOT_BUNDLED
      : { 200: { description: 'the created driver', data: DriverData } },
  errorCodes: [2000, 2002],
});
