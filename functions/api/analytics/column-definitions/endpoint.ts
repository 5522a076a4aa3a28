import * as z from 'zod';
import { defineEndpoint } from '../../define';
import { ColumnDefinitions, TAG } from '../schemas';

export const getColumnDefinitions = defineEndpoint({
  operationId: 'getColumnDefinitions',
  method: 'GET',
  path: '/analytics/column-definitions',
  auth: 'apiKey',
  module: import.meta.url,
  summary: 'What every column of the route and attempt analytics means',
  tag: TAG,
  access: {},
  request: {},
  responses: {
    200: {
      description: 'both maps',
      data: z.object({
        route_analysis_column_definitions: ColumnDefinitions,
        attempt_analysis_column_definitions: ColumnDefinitions,
      }),
    },
  },
  errorCodes: [],
});
