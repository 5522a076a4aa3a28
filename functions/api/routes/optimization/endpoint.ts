import { Id } from '../../../models/common';
import * as z from '../../../shared/zod';
import { Optimization } from '../optimization-schemas';
import { RouteParams, routesEndpoint } from '../schemas';

export const getOptimization = routesEndpoint(
  'GET /dcs/{dc_id}/routes/{route_id}/optimizations/{optimization_id}',
  {
    operationId: 'getOptimization',
    module: import.meta.url,
    summary:
      'Read an optimization of the route: PENDING, then SUCCEEDED with the proposed order and its figures, or FAILED',
    request: { params: z.extend(RouteParams, { optimization_id: Id }) },
    responses: { 200: { description: 'the optimization', data: z.object({ optimization: Optimization }) } },
    errorCodes: [3003, 1003],
  },
);
