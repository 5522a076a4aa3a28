import { EpochMillis } from '../../models/common';
import * as z from '../../shared/zod';
import { endpointGroup } from '../define';

// Schema-building calls marked pure: a bundle builds only the schemas of this module its function uses
// (docs/architecture.md, cold starts).

/** What a waypoint's tracking page tells its customer, as JSON (docs/api.md, Tracking links). */
export const TrackedStop = /* @__PURE__ */ z.withMeta(
  /* @__PURE__ */ z.object({
    status: /* @__PURE__ */ z.withMeta(
      /* @__PURE__ */ z.enum(['PENDING', 'SUCCESSFUL', 'FAILED', 'VISIT_LATER']),
      {
        description: 'the waypoint’s status, as the waypoint reads answer it',
      },
    ),
    route_status: /* @__PURE__ */ z.withMeta(/* @__PURE__ */ z.enum(['PLANNED', 'STARTED', 'FINISHED']), {
      description: 'the route has not started, is under way, or has finished',
    }),
    eta: /* @__PURE__ */ z.withMeta(/* @__PURE__ */ z.nullable(EpochMillis), {
      description: 'expected arrival while the waypoint is to be visited on a route not finished; else null',
    }),
    eta_window: /* @__PURE__ */ z.withMeta(
      /* @__PURE__ */ z.nullable(/* @__PURE__ */ z.object({ start: EpochMillis, end: EpochMillis })),
      {
        description: 'the window shown: the ETA ± 15 minutes, widened to whole 5 minutes; null with `eta`',
      },
    ),
    stops_before: /* @__PURE__ */ z.withMeta(
      /* @__PURE__ */ z.nullable(/* @__PURE__ */ z.int().check(/* @__PURE__ */ z.minimum(0))),
      {
        description:
          'waypoints of the route still to visit before this one; null once it is done, or the route finished',
      },
    ),
    driver_close: /* @__PURE__ */ z.withMeta(/* @__PURE__ */ z.boolean(), {
      description:
        'the driver is close: the waypoint’s ETA came within the DC’s `approaching_minutes` (WAYPOINT_APPROACHING went out) and it is still to be visited',
    }),
    completed_at: /* @__PURE__ */ z.withMeta(/* @__PURE__ */ z.nullable(EpochMillis), {
      description:
        'when the final visit (SUCCESSFUL or FAILED) happened; null while the waypoint is not done',
    }),
    dc_name: /* @__PURE__ */ z.string(),
    stop_name: /* @__PURE__ */ z.withMeta(/* @__PURE__ */ z.nullable(/* @__PURE__ */ z.string()), {
      description: 'the waypoint’s name as imported',
    }),
    address: /* @__PURE__ */ z.withMeta(/* @__PURE__ */ z.nullable(/* @__PURE__ */ z.string()), {
      description: 'the waypoint’s address as imported',
    }),
    driver_first_name: /* @__PURE__ */ z.withMeta(/* @__PURE__ */ z.nullable(/* @__PURE__ */ z.string()), {
      description: 'the first word of the route’s driver’s name; null without a driver',
    }),
    pin: /* @__PURE__ */ z.withMeta(/* @__PURE__ */ z.nullable(/* @__PURE__ */ z.string()), {
      description:
        'the 6-digit code the customer gives the driver at the door, for a stop that requires a PIN (`requirements.pin`), while the delivery is to come; null otherwise',
    }),
    time_zone: /* @__PURE__ */ z.withMeta(/* @__PURE__ */ z.string(), {
      description: 'the DC’s IANA time zone, in which the page writes times',
    }),
    expires_at: /* @__PURE__ */ z.withMeta(/* @__PURE__ */ z.nullable(EpochMillis), {
      description:
        'when the link stops working: 24 hours after the waypoint was done or the route finished, whichever came first; null before either',
    }),
  }),
  { id: 'TrackedStop' },
);

/** An unsubscribe link's path (models/unsubscribe-links.ts). */
export const UnsubscribeParams = /* @__PURE__ */ z.object({
  token: /* @__PURE__ */ z.withMeta(/* @__PURE__ */ z.string(), {
    description: 'the token of the stop’s `tracking_url`',
  }),
  address_key: /* @__PURE__ */ z.withMeta(/* @__PURE__ */ z.string(), {
    description: 'names the email address the message went to, without showing it (a keyed hash)',
  }),
});

/** What an unsubscribe link answers as JSON. */
export const UnsubscribeStatus = /* @__PURE__ */ z.withMeta(
  /* @__PURE__ */ z.object({
    dc_name: /* @__PURE__ */ z.string(),
    email: /* @__PURE__ */ z.withMeta(/* @__PURE__ */ z.string(), {
      description: 'the address the link names, masked (`d***@example.com`)',
    }),
    unsubscribed: /* @__PURE__ */ z.withMeta(/* @__PURE__ */ z.boolean(), {
      description: 'the address gets no more emails from the account (any of its DCs)',
    }),
  }),
  { id: 'UnsubscribeStatus' },
);

/**
 * The tracking page: anyone holding a link's token, no authorizer; it reads the table, and opens the PIN of a
 * stop that requires one (the customer's own code, which the page shows).
 */
export const trackingEndpoint = /* @__PURE__ */ endpointGroup({
  auth: 'none',
  tag: 'Tracking',
  access: { table: 'read', stopPins: 'decrypt' },
});
