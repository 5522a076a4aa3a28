import * as z from 'zod';
import { NextToken, pagedQuery } from '../../../models/common';
import { defineEndpoint } from '../../define';
import { AccountingRecord } from '../accounting-schemas';
import { ROUTE_PAGE_SIZES, RouteParams, TAG } from '../schemas';

export const getRouteAccounting = defineEndpoint({
  operationId: 'getRouteAccounting',
  method: 'GET',
  path: '/dcs/{dc_id}/routes/{route_id}/accounting',
  auth: 'apiKey',
  module: import.meta.url,
  summary: 'Cash accounting records of a route, oldest first',
  tag: TAG,
  access: { table: 'read' },
  request: { params: RouteParams, query: pagedQuery(ROUTE_PAGE_SIZES.accountingRecords) },
  responses: {
    200: {
      description: 'the route’s records',
      data: z.object({ records: z.array(AccountingRecord), next_token: NextToken }),
    },
  },
  errorCodes: [3003],
});
