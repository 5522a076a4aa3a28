import { DcParams, PaginationQuery, pageOf } from '../../../models/common';
import { Driver, driversEndpoint } from '../schemas';

export const listDrivers = driversEndpoint('GET /dcs/{dc_id}/drivers', {
  operationId: 'listDrivers',
  module: import.meta.url,
  summary: 'List the drivers of a DC',
  request: { params: DcParams, query: PaginationQuery },
  responses: {
    200: {
      description: 'the DC’s drivers',
      data: pageOf('drivers', Driver),
    },
  },
  errorCodes: [],
});
