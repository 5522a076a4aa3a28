import { DcParams, PaginationQuery, pageOf } from '../../../models/common';
import { ok } from '../../define';
import { Driver, driversEndpoint } from '../schemas';

export const listDrivers = /* @__PURE__ */ driversEndpoint('GET /dcs/{dc_id}/drivers', {
  operationId: 'listDrivers',
  module: import.meta.url,
  summary: 'List the drivers of a DC',
  request: { params: DcParams, query: PaginationQuery },
  responses: import.meta.responseSchemas !== false && ok('the DC’s drivers', pageOf('drivers', Driver)),
  errorCodes: [],
});
