import { CalendarDate, DcParams, pagedQuery, pageOf } from '../../../models/common';
import * as z from '../../../shared/zod';
import { ok } from '../../define';
import { ROUTE_PAGE_SIZES, Route, routesEndpoint } from '../schemas';

export const findRoutesByDate = /* @__PURE__ */ routesEndpoint(
  'GET /dcs/{dc_id}/routes/find_by_date/{date}',
  {
    operationId: 'findRoutesByDate',
    module: import.meta.url,
    summary: 'Routes whose start_time falls on a date of the DC’s time zone, by start time',
    request: {
      params: /* @__PURE__ */ z.extend(DcParams, {
        date: /* @__PURE__ */ z.withMeta(CalendarDate, { description: 'YYYY-MM-DD in the DC’s time zone' }),
      }),
      query: /* @__PURE__ */ pagedQuery(ROUTE_PAGE_SIZES.routesOfDate),
    },
    responses:
      import.meta.responseSchemas !== false && ok('the routes of that local date', pageOf('routes', Route)),
    errorCodes: [],
  },
);
