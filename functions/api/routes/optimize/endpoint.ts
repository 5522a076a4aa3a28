import * as channels from '../../../models/channels';
import { Id } from '../../../models/common';
import { IMPORT_LIMITS } from '../../../models/import-model';
import * as z from '../../../shared/zod';

import { RouteParams, routesEndpoint } from '../schemas';

export const OptimizationRequest = /* @__PURE__ */ z.withMeta(
  /* @__PURE__ */ z.object({
    apply: /* @__PURE__ */ z.withMeta(/* @__PURE__ */ z._default(/* @__PURE__ */ z.boolean(), false), {
      description:
        'apply the order once found, as PUT …/waypoint-order applies one (unless the route changed meanwhile: 3106)',
    }),
    locked_waypoint_ids: /* @__PURE__ */ z.withMeta(
      /* @__PURE__ */ z._default(
        /* @__PURE__ */ z.array(Id).check(/* @__PURE__ */ z.maxLength(IMPORT_LIMITS.waypoints)),
        [],
      ),
      {
        description: 'waypoints that keep their place; those between two of them stay between them',
      },
    ),
  }),
  { id: 'OptimizationRequest' },
);

export const requestOptimization = /* @__PURE__ */ routesEndpoint(
  'POST /dcs/{dc_id}/routes/{route_id}/optimizations',
  {
    operationId: 'requestOptimization',
    module: import.meta.url,
    summary:
      'Ask for the best order of the route’s waypoints still to visit, lateness first and driving time second (asynchronous: read it by its optimization_id); with apply, applied as a reorder; ROUTE_UPDATED then',
    access: { table: 'readWrite', sendTo: [channels.optimizations] },
    request: { params: RouteParams, body: OptimizationRequest },
    responses: import.meta.responseSchemas !== false && {
      202: {
        description: 'accepted',
        data: /* @__PURE__ */ z.object({ optimization_id: /* @__PURE__ */ z.string() }),
      },
    },
    errorCodes: [3003, 3012, 3013, 3102, 3104],
    // Every call runs seconds of a worker's CPU.
    throttling: { rateLimit: 2, burstLimit: 10 },
  },
);
