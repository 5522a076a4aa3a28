import { Id } from '../../../models/common';
import * as z from '../../../shared/zod';
import { Attempt } from '../../routes/waypoint-schemas';
import { AttemptBody, driverAppEndpoint, RouteParams } from '../schemas';

export const recordDriverAttempt = driverAppEndpoint(
  'POST /driver/routes/{route_id}/waypoints/{waypoint_id}/attempts',
  {
    operationId: 'recordDriverAttempt',
    module: import.meta.url,
    // Its ROUTE_ETAS_CHANGED gives the waypoints' tracking links.
    linksToApi: true,
    summary: 'Record a visit of a waypoint with its items’ outcomes; WAYPOINT_STATUS_CHANGED, then new ETAs',
    request: { params: z.extend(RouteParams, { waypoint_id: Id }), body: AttemptBody },
    responses: {
      200: {
        description: 'the attempt as recorded (the first one, for a repeated id)',
        data: z.object({ attempt: Attempt }),
      },
    },
    errorCodes: [3003, 3011, 3012, 3013, 9001, 9002, 3102],
  },
);
