import { EpochMillis } from '../../models/common';
import * as z from '../../shared/zod';

// Schema-building calls marked pure: a bundle builds only the schemas of this module its function uses
// (docs/architecture.md, cold starts).

/** What an order achieves under the service's travel model (docs/api.md, "Optimizations"). */
export const OrderFigures = /* @__PURE__ */ z.withMeta(
  /* @__PURE__ */ z.object({
    distance_meters: /* @__PURE__ */ z.withMeta(/* @__PURE__ */ z.int(), {
      description: 'driven from where the route is to its end',
    }),
    driving_seconds: /* @__PURE__ */ z.withMeta(/* @__PURE__ */ z.int(), {
      description: 'time at the wheel, waiting and service left out',
    }),
    late_waypoints: /* @__PURE__ */ z.withMeta(/* @__PURE__ */ z.int(), {
      description: 'waypoints reached after every one of their time windows closed',
    }),
    lateness_seconds: /* @__PURE__ */ z.withMeta(/* @__PURE__ */ z.int(), {
      description: 'how late those are together: each one’s arrival after its last window closed',
    }),
    finish_timestamp: /* @__PURE__ */ z.withMeta(EpochMillis, {
      description: 'when the driver reaches the end warehouse (or leaves the last waypoint, without one)',
    }),
  }),
  { id: 'OrderFigures' },
);

export const Optimization = /* @__PURE__ */ z.withMeta(
  /* @__PURE__ */ z.object({
    optimization_id: /* @__PURE__ */ z.string(),
    status: /* @__PURE__ */ z.enum(['PENDING', 'SUCCEEDED', 'FAILED']),
    apply: /* @__PURE__ */ z.withMeta(/* @__PURE__ */ z.boolean(), {
      description: 'whether the order is to be applied once found',
    }),
    locked_waypoint_ids: /* @__PURE__ */ z.array(/* @__PURE__ */ z.string()),
    waypoint_ids: /* @__PURE__ */ z.withMeta(
      /* @__PURE__ */ z.nullable(/* @__PURE__ */ z.array(/* @__PURE__ */ z.string())),
      {
        description: 'the proposed order: every waypoint of the route; null until SUCCEEDED',
      },
    ),
    before: /* @__PURE__ */ z.withMeta(/* @__PURE__ */ z.nullable(OrderFigures), {
      description: 'the current order’s figures; null until SUCCEEDED',
    }),
    after: /* @__PURE__ */ z.withMeta(/* @__PURE__ */ z.nullable(OrderFigures), {
      description: 'the proposed order’s figures; null until SUCCEEDED',
    }),
    applied: /* @__PURE__ */ z.withMeta(/* @__PURE__ */ z.boolean(), {
      description: 'true once the proposed order is the route’s',
    }),
    stopped_by_time_limit: /* @__PURE__ */ z.withMeta(
      /* @__PURE__ */ z.nullable(/* @__PURE__ */ z.boolean()),
      {
        description:
          'true when the search’s time limit ended it before its work budget; null until SUCCEEDED',
      },
    ),
    error: /* @__PURE__ */ z.withMeta(
      /* @__PURE__ */ z.nullable(
        /* @__PURE__ */ z.object({ code: /* @__PURE__ */ z.int(), message: /* @__PURE__ */ z.string() }),
      ),
      {
        description: 'why it FAILED (3003, 3012, 3102, 3105, 3106 ...); null otherwise',
      },
    ),
    created_timestamp: EpochMillis,
    finished_timestamp: /* @__PURE__ */ z.nullable(EpochMillis),
  }),
  { id: 'Optimization' },
);
