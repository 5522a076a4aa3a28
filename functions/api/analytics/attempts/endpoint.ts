import * as z from 'zod';
import { NextToken, pagedQuery } from '../../../models/common';
import { defineEndpoint } from '../../define';
import { AnalyticsRecord, ATTEMPT_ANALYTICS_PAGE, RouteParams, singleRouteAnalytics } from '../schemas';

export const getAttemptAnalytics = defineEndpoint({
  ...singleRouteAnalytics(import.meta.url, 'attempts'),
  request: { params: RouteParams, query: pagedQuery(ATTEMPT_ANALYTICS_PAGE) },
  responses: {
    200: {
      description: 'the analytics',
      data: z.object({ attempt_analytics: z.array(AnalyticsRecord), next_token: NextToken }),
    },
  },
});
