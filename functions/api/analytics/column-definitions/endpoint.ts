import * as z from '../../../shared/zod';
import { analyticsEndpoint, ColumnDefinitions } from '../schemas';

export const getColumnDefinitions = analyticsEndpoint('GET /analytics/column-definitions', {
  operationId: 'getColumnDefinitions',
  module: import.meta.url,
  summary: 'What every column of the route and attempt analytics means',
  access: {},
  responses: {
    200: {
      description: 'both maps',
      data: z.object({
        route_analysis_column_definitions: ColumnDefinitions,
        attempt_analysis_column_definitions: ColumnDefinitions,
      }),
    },
  },
});
