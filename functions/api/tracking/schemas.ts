import * as z from 'zod';
import { EpochMillis } from '../../models/common';
import { endpointGroup } from '../define';

/** What a waypoint's tracking page tells its customer, as JSON (docs/api.md, Tracking links). */
export const TrackedStop = z
  .object({
    status: z
      .enum(['PENDING', 'SUCCESSFUL', 'FAILED', 'VISIT_LATER'])
      .meta({ description: 'the waypoint’s status, as the waypoint reads answer it' }),
    route_status: z
      .enum(['PLANNED', 'STARTED', 'FINISHED'])
      .meta({ description: 'the route has not started, is under way, or has finished' }),
    eta: EpochMillis.nullable().meta({
      description: 'expected arrival while the waypoint is to be visited on a route not finished; else null',
    }),
    eta_window: z.object({ start: EpochMillis, end: EpochMillis }).nullable().meta({
      description: 'the window shown: the ETA ± 15 minutes, widened to whole 5 minutes; null with `eta`',
    }),
    stops_before: z.number().int().min(0).nullable().meta({
      description:
        'waypoints of the route still to visit before this one; null once it is done, or the route finished',
    }),
    completed_at: EpochMillis.nullable().meta({
      description:
        'when the final visit (SUCCESSFUL or FAILED) happened; null while the waypoint is not done',
    }),
    dc_name: z.string(),
    stop_name: z.string().nullable().meta({ description: 'the waypoint’s name as imported' }),
    address: z.string().nullable().meta({ description: 'the waypoint’s address as imported' }),
    driver_first_name: z
      .string()
      .nullable()
      .meta({ description: 'the first word of the route’s driver’s name; null without a driver' }),
    time_zone: z.string().meta({ description: 'the DC’s IANA time zone, in which the page writes times' }),
    expires_at: EpochMillis.nullable().meta({
      description:
        'when the link stops working: 24 hours after the waypoint was done or the route finished, whichever came first; null before either',
    }),
  })
  .meta({ id: 'TrackedStop' });

/** The tracking page: anyone holding a link's token, no authorizer; it reads the table only. */
export const trackingEndpoint = endpointGroup({ auth: 'none', tag: 'Tracking' });
