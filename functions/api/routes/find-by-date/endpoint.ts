import { CalendarDate, DcParams, pagedQuery, pageOf } from '../../../models/common';
import * as z from '../../../shared/zod';
import { ROUTE_PAGE_SIZES, Route, routesEndpoint } from '../schemas';

export const findRoutesByDate = routesEndpoint('GET /dcs/{dc_id}/routes/find_by_date/{date}', {
  operationId: 'findRoutesByDate',
  module: import.meta.url,
  summary: 'Routes whose start_time falls on a date of the DC’s time zone, by start time',
  request: {
    params: z.extend(DcParams, {
      date: z.withMeta(CalendarDate, { description: 'YYYY-MM-DD in the DC’s time zone' }),
    }),
    query: pagedQuery(ROUTE_PAGE_SIZES.routesOfDate),
  },
  responses: {
    200: {
      description: 'the routes of that local date',
      data: pageOf('routes', Route),
    },
  },
  errorCodes: [],
});
