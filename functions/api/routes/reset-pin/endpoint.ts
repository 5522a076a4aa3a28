import { Id } from '../../../models/common';
import * as z from '../../../shared/zod';
import { ok } from '../../define';
import { RouteParams, routesEndpoint } from '../schemas';

export const resetWaypointPin = /* @__PURE__ */ routesEndpoint(
  'POST /dcs/{dc_id}/routes/{route_id}/waypoints/{waypoint_id}/reset-pin',
  {
    operationId: 'resetWaypointPin',
    module: import.meta.url,
    summary:
      'Draw a new PIN for a stop that requires one, ending a lock after 5 wrong codes; answers the new code',
    description:
      'The old code stops working at once, and the stop’s tracking page shows the new one; a ROUTE_STARTED sent before still carries the old code, so hand this one to the customer. The stop’s tries start again from 0.',
    // Seals the new code (domain/stop-pins.ts).
    access: { table: 'readWrite', stopPins: 'encrypt' },
    request: { params: /* @__PURE__ */ z.extend(RouteParams, { waypoint_id: Id }) },
    responses:
      import.meta.responseSchemas !== false &&
      ok(
        'the new code',
        z.object({
          waypoint_id: /* @__PURE__ */ z.string(),
          pin: /* @__PURE__ */ z.withMeta(/* @__PURE__ */ z.string(), {
            description: 'the stop’s new 6-digit code, for its customer: never for the driver app',
          }),
        }),
      ),
    errorCodes: [3003, 3012, 3013, 3102, 9108],
  },
);
