/**
 * The event catalog's documentation (docs/api.md §7): what each event type means, which ids its body carries, and
 * an example of it. The examples are typed by the catalog (event-catalog.ts), so they cannot drift from it; the
 * OpenAPI document's `webhooks` section and the API reference page show them.
 */
import type { EventDetails, EventType, WebhookEvent } from './event-catalog';

interface EventDoc<T extends EventType> {
  summary: string;
  description: string;
  /** Which ids the body carries: a route's event names its DC and route; PING neither. */
  scope: 'route' | 'route-if-known' | 'none';
  example: {
    event_id: string;
    dc_id: string | null;
    route_id: string | null;
    sequence: number | null;
    occurred_at: number;
    details: EventDetails<T>;
  };
}

/*
 * Nothing here runs at import but what esbuild can tell is free of effects: the examples' times through `at`,
 * the key through a call marked pure (an addition to a large number, or an unmarked call, would keep every doc
 * in each bundle that imports the catalog, though only the OpenAPI document and the docs page read them).
 */
const T0 = 1_795_438_800_000; // 2026-11-23T09:00:00Z
/** An example's time, `offset` ms after T0. */
const at = /* @__NO_SIDE_EFFECTS__ */ (offset: number) => T0 + offset;

/** `length` bytes counting up from `first`, in base64url. */
const countingBytes = (first: number, length: number) =>
  Buffer.from(Array.from({ length }, (_, index) => first + index)).toString('base64url');

/** The examples' route: a deployment's URL, and a key of 32 bytes 0x20..0x3f. */
const EXAMPLE_TRACKING_LINKS = {
  api_url: 'https://a1b2c3d4e5.execute-api.us-east-1.amazonaws.com/v1/',
  key: /* @__PURE__ */ countingBytes(0x20, 32),
};

/** One entry per type; the examples are typed by the catalog, so they cannot drift from it. */
export const EVENT_DOCS: { [T in EventType]: EventDoc<T> } = {
  ROUTE_CREATED: {
    summary: 'A route was imported',
    description:
      'Sent when an import (`POST /dcs/{dc_id}/invoiced-routes` or an upload) has stored the route. `route` is a summary; read the route for its waypoints.',
    scope: 'route',
    example: {
      event_id: 'evt_5f0c6a1b2d3e4f50',
      dc_id: 'dc-1',
      route_id: 'R-2026-11-23-01',
      sequence: 1,
      occurred_at: at(0),
      details: {
        route: {
          id: 'R-2026-11-23-01',
          name: 'Chicago North, Monday AM',
          start_time: at(3_600_000),
          driver_id: 'drv-042',
          waypoint_count: 38,
          is_active: true,
        },
      },
    },
  },
  ROUTE_STARTED: {
    summary: 'A driver started a route',
    description:
      'Sent when the route is started, by its driver in the app or through the API. `waypoints` gives every waypoint’s tracking page, to send each customer theirs, and for a stop that requires a PIN its `pin`: the code the customer gives the driver at the door, which the driver app is never shown.',
    scope: 'route',
    example: {
      event_id: 'evt_7a21c4e09b3d5f12',
      dc_id: 'dc-1',
      route_id: 'R-2026-11-23-01',
      sequence: 2,
      occurred_at: at(3_612_345),
      details: {
        driver_id: 'drv-042',
        started_timestamp: at(3_600_000),
        waypoint_ids: ['wp-001', 'wp-002', 'wp-003'],
        tracking_links: EXAMPLE_TRACKING_LINKS,
        pins: [null, '480213', null],
      },
    },
  },
  ROUTE_ETAS_CHANGED: {
    summary: 'The ETAs of a started route moved',
    description:
      'Sent when a recomputation (at the start, after a visit, or at most once a minute on location pings) moves some ETA by 5 minutes or more since the last set sent. Each ETA comes with its waypoint’s tracking page.',
    scope: 'route',
    example: {
      event_id: 'evt_0d9e8f7a6b5c4d3e',
      dc_id: 'dc-1',
      route_id: 'R-2026-11-23-01',
      sequence: 5,
      occurred_at: at(5_412_000),
      details: {
        etas: [
          { waypoint_id: 'wp-002', eta_timestamp: at(6_300_000) },
          { waypoint_id: 'wp-003', eta_timestamp: at(7_260_000) },
        ],
        tracking_links: EXAMPLE_TRACKING_LINKS,
      },
    },
  },
  WAYPOINT_STATUS_CHANGED: {
    summary: 'A driver recorded a visit to a waypoint',
    description: 'Sent for each visit (attempt) recorded; a waypoint visited again sends another.',
    scope: 'route',
    example: {
      event_id: 'evt_3c4d5e6f708192a3',
      dc_id: 'dc-1',
      route_id: 'R-2026-11-23-01',
      sequence: 4,
      occurred_at: at(4_815_000),
      details: {
        waypoint_id: 'wp-002',
        status: 'SUCCESSFUL',
        attempt_id: 'att-wp-002-1',
        timestamp: at(4_800_000),
        proof_ids: ['prf_5b1e0c9a7d3f2e84'],
        signer_name: 'Zoë Ålund',
      },
    },
  },
  ROUTE_FINISHED: {
    summary: 'A route was finished',
    description: 'Sent when the route is finalized, by its driver or through the API; its analytics follow.',
    scope: 'route',
    example: {
      event_id: 'evt_b1a2c3d4e5f60718',
      dc_id: 'dc-1',
      route_id: 'R-2026-11-23-01',
      sequence: 9,
      occurred_at: at(19_830_000),
      details: { finalized_timestamp: at(19_800_000), driver_id: 'drv-042' },
    },
  },
  ROUTE_IMPORT_FAILED: {
    summary: 'A route import failed',
    description:
      'Sent when an accepted import ends FAILED (e.g. another import of the same route id won: 3005), or a revision is refused (its import status answers why; the route is as it was). A failed import’s `sequence` is null: it made no route of its own. A refused revision’s is the route’s next, as any event of the route. `route_id` is null when an upload failed before its route id could be read.',
    scope: 'route-if-known',
    example: {
      event_id: 'evt_9e8d7c6b5a493827',
      dc_id: 'dc-1',
      route_id: 'R-2026-11-23-01',
      sequence: null,
      occurred_at: at(1_200),
      details: {
        txid: 'imp_4b3a29181706f5e4',
        error: { code: 3005, message: "route id 'R-2026-11-23-01' was already imported" },
      },
    },
  },
  ROUTE_UPDATED: {
    summary: 'A route’s waypoints changed after its import',
    description:
      'Sent when a waypoint was cancelled (`DELETE /dcs/{dc_id}/routes/{route_id}/waypoints/{waypoint_id}`), a revision applied (`PUT …/revision`), the waypoints reordered (`PUT …/waypoint-order`) or an optimization applied (`POST …/optimizations` with `apply: true`). `changes` lists the ids of the waypoints, invoices and items added, removed and changed; `order_changed` says whether the waypoints kept are visited in another order; `version` is the route’s new version. A removed waypoint’s tracking link stops working.',
    scope: 'route',
    example: {
      event_id: 'evt_3c4d5e6f7a8b9c0d',
      dc_id: 'dc-1',
      route_id: 'R-2026-11-23-01',
      sequence: 6,
      occurred_at: at(7_200_000),
      details: {
        version: 4,
        changes: {
          waypoints: { added: [], removed: ['WP-17'], changed: [] },
          invoices: { added: [], removed: ['INV-17-1'], changed: [] },
          items: { added: [], removed: ['ITEM-17-1-1', 'ITEM-17-1-2'], changed: [] },
        },
        order_changed: false,
      },
    },
  },
  WAYPOINT_ARRIVED: {
    summary: 'A driver arrived at a waypoint',
    description:
      'Sent when the driver’s location pings on a started route stayed within the DC’s arrival radius of a waypoint for its dwell time (docs/api.md, Arrivals and departures): once per visit, whether or not the driver records an attempt. A waypoint visited again sends another, with its own `arrived_timestamp`.',
    scope: 'route',
    example: {
      event_id: 'evt_6a5b4c3d2e1f0a9b',
      dc_id: 'dc-1',
      route_id: 'R-2026-11-23-01',
      sequence: 3,
      occurred_at: at(4_731_000),
      details: { waypoint_id: 'wp-002', driver_id: 'drv-042', arrived_timestamp: at(4_680_000) },
    },
  },
  WAYPOINT_DEPARTED: {
    summary: 'A driver left a waypoint',
    description:
      'Sent once per visit when, after WAYPOINT_ARRIVED, a ping of the driver was farther from the waypoint than the arrival radius plus the departure margin. `arrived_timestamp` names the visit it ends.',
    scope: 'route',
    example: {
      event_id: 'evt_8c7d6e5f4a3b2c1d',
      dc_id: 'dc-1',
      route_id: 'R-2026-11-23-01',
      sequence: 5,
      occurred_at: at(5_041_000),
      details: {
        waypoint_id: 'wp-002',
        driver_id: 'drv-042',
        arrived_timestamp: at(4_680_000),
        departed_timestamp: at(5_030_000),
        dwell_seconds: 350,
      },
    },
  },
  WAYPOINT_APPROACHING: {
    summary: 'A driver is close to a waypoint',
    description:
      'Sent once per waypoint of a started route when its recomputed ETA (at the start, after a visit, or on location pings) comes within the DC’s `approaching_minutes` (default 10): to tell its customer, with the waypoint’s tracking page and how many stops come before it.',
    scope: 'route',
    example: {
      event_id: 'evt_2b3c4d5e6f7a8b9c',
      dc_id: 'dc-1',
      route_id: 'R-2026-11-23-01',
      sequence: 6,
      occurred_at: at(5_100_000),
      details: {
        waypoint_id: 'wp-003',
        eta_timestamp: at(5_640_000),
        stops_before: 0,
        tracking_links: EXAMPLE_TRACKING_LINKS,
      },
    },
  },
  NOTIFICATION_FAILED: {
    summary: 'A customer message did not reach its customer',
    description:
      'Sent when a customer message (Customer notifications) ends BOUNCED (an email bounced for good, or its recipient marked it as spam) or FAILED (the provider refused it, or the carrier could not deliver the SMS), with the waypoint, what the message told, its channel, the masked address and the provider’s reason. A message SUPPRESSED (quiet hours, an opt-out) raises none: nothing was attempted.',
    scope: 'route',
    example: {
      event_id: 'evt_3c4d5e6f7a8b9c0d',
      dc_id: 'dc-1',
      route_id: 'R-2026-11-23-01',
      sequence: 7,
      occurred_at: at(5_160_000),
      details: {
        waypoint_id: 'wp-003',
        notification_id: 'Yc2mQe8l0cM3v9xWq1ZpAa',
        trigger: 'APPROACHING',
        channel: 'EMAIL',
        to: 'j***@e***.com',
        status: 'BOUNCED',
        reason: 'Permanent/General 5.1.1',
      },
    },
  },
  PING: {
    summary: 'A test event',
    description:
      'Sent only by `POST /webhooks/{id}/test`, whatever the event types of the webhook; delivered, signed and retried like any event. `dc_id` and `route_id` are null.',
    scope: 'none',
    example: {
      event_id: 'evt_1f2e3d4c5b6a7988',
      dc_id: null,
      route_id: null,
      sequence: null,
      occurred_at: at(0),
      details: {},
    },
  },
};

/** The example event of a type, as the queues carry it. */
export function exampleEvent<T extends EventType>(type: T): WebhookEvent & { type: T } {
  const { example } = EVENT_DOCS[type] as EventDoc<T>;
  return { ...example, type } as WebhookEvent & { type: T };
}
