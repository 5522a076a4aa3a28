import * as z from '../../../shared/zod';
import { AnalyticsRecord, routeAnalyticsEndpoint } from '../schemas';

export const getRouteAnalytics = routeAnalyticsEndpoint(
  'GET /dcs/{dc_id}/routes/{route_id}/analytics/route',
  {
    operationId: 'getRouteAnalytics',
    module: import.meta.url,
    summary: 'A finished route’s analytics record (404 until it is finished)',
    responses: {
      200: { description: 'the analytics', data: z.object({ route_analytics: AnalyticsRecord }) },
    },
  },
);
