import { EpochMillis } from '../../models/common';
import * as z from '../../shared/zod';

/** What an order achieves under the service's travel model (docs/api.md, "Optimizations"). */
export const OrderFigures = z.withMeta(
  z.object({
    distance_meters: z.withMeta(z.int(), { description: 'driven from where the route is to its end' }),
    driving_seconds: z.withMeta(z.int(), { description: 'time at the wheel, waiting and service left out' }),
    late_waypoints: z.withMeta(z.int(), {
      description: 'waypoints reached after every one of their time windows closed',
    }),
    lateness_seconds: z.withMeta(z.int(), {
      description: 'how late those are together: each one’s arrival after its last window closed',
    }),
    finish_timestamp: z.withMeta(EpochMillis, {
      description: 'when the driver reaches the end warehouse (or leaves the last waypoint, without one)',
    }),
  }),
  { id: 'OrderFigures' },
);

export const Optimization = z.withMeta(
  z.object({
    optimization_id: z.string(),
    status: z.enum(['PENDING', 'SUCCEEDED', 'FAILED']),
    apply: z.withMeta(z.boolean(), { description: 'whether the order is to be applied once found' }),
    locked_waypoint_ids: z.array(z.string()),
    waypoint_ids: z.withMeta(z.nullable(z.array(z.string())), {
      description: 'the proposed order: every waypoint of the route; null until SUCCEEDED',
    }),
    before: z.withMeta(z.nullable(OrderFigures), {
      description: 'the current order’s figures; null until SUCCEEDED',
    }),
    after: z.withMeta(z.nullable(OrderFigures), {
      description: 'the proposed order’s figures; null until SUCCEEDED',
    }),
    applied: z.withMeta(z.boolean(), { description: 'true once the proposed order is the route’s' }),
    stopped_by_time_limit: z.withMeta(z.nullable(z.boolean()), {
      description: 'true when the search’s time limit ended it before its work budget; null until SUCCEEDED',
    }),
    error: z.withMeta(z.nullable(z.object({ code: z.int(), message: z.string() })), {
      description: 'why it FAILED (3003, 3012, 3102, 3105, 3106 ...); null otherwise',
    }),
    created_timestamp: EpochMillis,
    finished_timestamp: z.nullable(EpochMillis),
  }),
  { id: 'Optimization' },
);
