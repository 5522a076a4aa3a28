import { pagedQuery, pageOf } from '../../../models/common';
import { ok } from '../../define';
import { AccountingRecord } from '../accounting-schemas';
import { ROUTE_PAGE_SIZES, RouteParams, routesEndpoint } from '../schemas';

export const getRouteAccounting = /* @__PURE__ */ routesEndpoint(
  'GET /dcs/{dc_id}/routes/{route_id}/accounting',
  {
    operationId: 'getRouteAccounting',
    module: import.meta.url,
    summary: 'Cash accounting records of a route, oldest first',
    // The spec answers a missing route here with 400, not 404.
    errorStatuses: { 3003: 400 },
    request: { params: RouteParams, query: /* @__PURE__ */ pagedQuery(ROUTE_PAGE_SIZES.accountingRecords) },
    responses:
      import.meta.responseSchemas !== false && ok('the route’s records', pageOf('records', AccountingRecord)),
  },
);
