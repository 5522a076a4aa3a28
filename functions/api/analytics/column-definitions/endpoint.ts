import * as z from '../../../shared/zod';
import { ok } from '../../define';
import { analyticsEndpoint, ColumnDefinitions } from '../schemas';

export const getColumnDefinitions = /* @__PURE__ */ analyticsEndpoint('GET /analytics/column-definitions', {
  operationId: 'getColumnDefinitions',
  module: import.meta.url,
  summary: 'What every column of the route and attempt analytics means',
  access: {},
  responses:
    import.meta.responseSchemas !== false &&
    ok(
      'both maps',
      z.object({
        route_analysis_column_definitions: ColumnDefinitions,
        attempt_analysis_column_definitions: ColumnDefinitions,
      }),
    ),
});
