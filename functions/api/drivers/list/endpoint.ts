import { DcParams, PaginationQuery, pageOf } from '../../../models/common';
import { NOT_BUNDLED } from '../../define';
import { Driver, driversEndpoint } from '../schemas';

export const listDrivers = /* @__PURE__ */ driversEndpoint('GET /dcs/{dc_id}/drivers', {
  operationId: 'listDrivers',
  module: import.meta.url,
  summary: 'List the drivers of a DC',
  request: { params: DcParams, query: PaginationQuery },
  responses:
    import.meta.responseSchemas === false
      ? NOT_BUNDLED
      : {
          200: {
            description: 'the DC’s drivers',
            data: /* @__PURE__ */ pageOf('drivers', Driver),
          },
        },
  errorCodes: [],
});
