import { pagedQuery, pageOf } from '../../../models/common';
import { ok } from '../../define';
import { AnalyticsRecord, ATTEMPT_ANALYTICS_PAGE, RouteParams, routeAnalyticsEndpoint } from '../schemas';

export const getAttemptAnalytics = /* @__PURE__ */ routeAnalyticsEndpoint(
  'GET /dcs/{dc_id}/routes/{route_id}/analytics/attempts',
  {
    operationId: 'getAttemptAnalytics',
    module: import.meta.url,
    summary: 'A finished route’s attempt analytics, in attempt order (404 until it is finished)',
    request: { params: RouteParams, query: /* @__PURE__ */ pagedQuery(ATTEMPT_ANALYTICS_PAGE) },
    responses:
      import.meta.responseSchemas !== false &&
      ok('the analytics', pageOf('attempt_analytics', AnalyticsRecord)),
  },
);
