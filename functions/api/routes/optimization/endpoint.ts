import { Id } from '../../../models/common';
import * as z from '../../../shared/zod';
import { ok } from '../../define';
import { Optimization } from '../optimization-schemas';
import { RouteParams, routesEndpoint } from '../schemas';

export const getOptimization = /* @__PURE__ */ routesEndpoint(
  'GET /dcs/{dc_id}/routes/{route_id}/optimizations/{optimization_id}',
  {
    operationId: 'getOptimization',
    module: import.meta.url,
    summary:
      'Read an optimization of the route: PENDING, then SUCCEEDED with the proposed order and its figures, or FAILED',
    request: { params: /* @__PURE__ */ z.extend(RouteParams, { optimization_id: Id }) },
    responses:
      import.meta.responseSchemas !== false &&
      ok('the optimization', z.object({ optimization: Optimization })),
    errorCodes: [3003, 1003],
  },
);
