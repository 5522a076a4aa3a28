import { pagedQuery, pageOf } from '../../../models/common';
import { AccountingRecord } from '../accounting-schemas';
import { ROUTE_PAGE_SIZES, RouteParams, routesEndpoint } from '../schemas';

export const getRouteAccounting = routesEndpoint('GET /dcs/{dc_id}/routes/{route_id}/accounting', {
  operationId: 'getRouteAccounting',
  module: import.meta.url,
  summary: 'Cash accounting records of a route, oldest first',
  // The spec answers a missing route here with 400, not 404.
  errorStatuses: { 3003: 400 },
  request: { params: RouteParams, query: pagedQuery(ROUTE_PAGE_SIZES.accountingRecords) },
  responses: {
    200: {
      description: 'the route’s records',
      data: pageOf('records', AccountingRecord),
    },
  },
});
