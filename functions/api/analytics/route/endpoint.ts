import * as z from '../../../shared/zod';
import { ok } from '../../define';
import { AnalyticsRecord, routeAnalyticsEndpoint } from '../schemas';

export const getRouteAnalytics = /* @__PURE__ */ routeAnalyticsEndpoint(
  'GET /dcs/{dc_id}/routes/{route_id}/analytics/route',
  {
    operationId: 'getRouteAnalytics',
    module: import.meta.url,
    summary: 'A finished route’s analytics record (404 until it is finished)',
    responses:
      import.meta.responseSchemas !== false &&
      ok('the analytics', z.object({ route_analytics: AnalyticsRecord })),
  },
);
