import { pagedQuery, pageOf } from '../../../models/common';
import { AnalyticsRecord, ATTEMPT_ANALYTICS_PAGE, RouteParams, routeAnalyticsEndpoint } from '../schemas';

export const getAttemptAnalytics = routeAnalyticsEndpoint(
  'GET /dcs/{dc_id}/routes/{route_id}/analytics/attempts',
  {
    operationId: 'getAttemptAnalytics',
    module: import.meta.url,
    summary: 'A finished route’s attempt analytics, in attempt order (404 until it is finished)',
    request: { params: RouteParams, query: pagedQuery(ATTEMPT_ANALYTICS_PAGE) },
    responses: {
      200: {
        description: 'the analytics',
        data: pageOf('attempt_analytics', AnalyticsRecord),
      },
    },
  },
);
