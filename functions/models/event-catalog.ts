import * as z from '../shared/zod';
import { EVENT_DOCS } from './event-docs';
import { EVENT_TYPES, isSubscribableEvent, SUBSCRIBABLE_EVENTS, type SubscribableEvent } from './event-types';

/**
 * The event catalog (docs/api.md §7): every event type and its payload, declared once as a zod discriminated union
 * on `type`. The producers write event items of it (data/events.ts parses each one before it is written), the
 * pipe's filter lets through only its types (data/events.ts), the fan-out and the webhook body read it
 * (domain/webhook-events.ts), POST /webhooks documents its types, and the OpenAPI document's `webhooks`
 * section documents each type's body with an example.
 *
 * An event's body is its payload (`details`), but for the types that give each waypoint's tracking link: their
 * payload holds the route's tracking key once, and the body the links made from it (webhook-body.ts): 2,000
 * waypoints' links in the payload would pass the 256 KiB of its stream record (data/events.ts).
 *
 * A model module: it imports nothing of the service (zod, and the models of its docs and of the webhook body,
 * which derives the tracking links), so every layer, CDK code and the tests may use it.
 */

const EpochMillis = z.int().check(z.minimum(0));
const millis = (description: string) => z.withMeta(EpochMillis, { description: `${description} (epoch ms)` });

/** The catalog's schemas; built by eventSchemas() on first use. */
function buildEventSchemas() {
  const RouteSummary = z.withMeta(
    z.object({
      id: z.string(),
      name: z.string(),
      start_time: millis('the planned start'),
      driver_id: z.withMeta(z.nullable(z.string()), {
        description: 'the assigned driver; null when none is',
      }),
      waypoint_count: z.int().check(z.minimum(0)),
      is_active: z.boolean(),
    }),
    { id: 'RouteSummary', description: 'the imported route, in brief' },
  );

  const RouteCreated = z.object({
    type: z.literal('ROUTE_CREATED'),
    details: z.object({ route: RouteSummary }),
  });

  /** How a body's tracking links are made (models/tracking-links.ts): in the payload, never in a body. */
  const TrackingLinks = z.optional(
    z.object({
      api_url: z.string(),
      key: z.string(),
      // The sequences of the waypoints whose tokens derive from them (a revision added them).
      sequences: z.optional(z.record(z.string(), z.int())),
    }),
  );
  const TrackingUrl = z.withMeta(z.nullable(z.string()), {
    description:
      'the waypoint’s tracking page for its customer, as the waypoint reads answer it (`tracking_url`); null on a route imported before tracking links',
  });

  const startedFields = {
    driver_id: z.withMeta(z.string(), { description: 'the driver who started it' }),
    started_timestamp: millis('when the route started, as the driver (or the API call) reported it'),
  };
  const RouteStarted = z.object({
    type: z.literal('ROUTE_STARTED'),
    details: z.object({
      ...startedFields,
      // Absent in events written before tracking links (a redelivery of one has no waypoints).
      waypoint_ids: z.optional(z.array(z.string())),
      tracking_links: TrackingLinks,
      // The codes of the stops that require a PIN, in the order of waypoint_ids (null for a stop without);
      // absent when no stop of the route requires one.
      pins: z.optional(z.array(z.nullable(z.string()))),
    }),
  });
  const RouteStartedBody = z.object({
    ...startedFields,
    waypoints: z.withMeta(
      z.array(
        z.object({
          waypoint_id: z.string(),
          tracking_url: TrackingUrl,
          pin: z.withMeta(z.optional(z.string()), {
            description:
              'the 6-digit code the customer gives the driver, present only for a stop that requires a PIN (`requirements.pin`): for the ERP’s own messages to its customer (the stop’s tracking page shows it too). The code when the route started: a reset later draws another, which the reset answers',
          }),
        }),
      ),
      {
        description:
          'every waypoint of the route, in route order, with its tracking page (and its PIN, where the stop requires one)',
      },
    ),
  });

  const Eta = z.object({ waypoint_id: z.string(), eta_timestamp: millis('the estimated arrival') });
  const etasDescription = 'the waypoints not yet done, in route order, with their new ETAs';
  const RouteEtasChanged = z.object({
    type: z.literal('ROUTE_ETAS_CHANGED'),
    details: z.object({
      etas: z.withMeta(z.array(Eta), { description: etasDescription }),
      tracking_links: TrackingLinks,
    }),
  });
  const RouteEtasChangedBody = z.object({
    etas: z.withMeta(z.array(z.extend(Eta, { tracking_url: TrackingUrl })), { description: etasDescription }),
  });

  const WaypointStatusChanged = z.object({
    type: z.literal('WAYPOINT_STATUS_CHANGED'),
    details: z.object({
      waypoint_id: z.string(),
      status: z.withMeta(z.enum(['SUCCESSFUL', 'FAILED', 'VISIT_LATER']), {
        description: 'the visit’s outcome',
      }),
      attempt_id: z.withMeta(z.string(), { description: 'the visit (attempt) the driver recorded' }),
      timestamp: millis('when the visit happened'),
      proof_ids: z.withMeta(z.array(z.string()), {
        description:
          'the proofs of delivery (photos, signatures) the visit names; read them with the waypoint’s proofs',
      }),
      signer_name: z.withMeta(z.nullable(z.string()), {
        description: 'who signed for the delivery; null when not given',
      }),
    }),
  });

  const RouteFinished = z.object({
    type: z.literal('ROUTE_FINISHED'),
    details: z.object({
      finalized_timestamp: millis('when the route was finished'),
      driver_id: z.withMeta(z.nullable(z.string()), {
        description: 'the route’s driver; null when it had none',
      }),
    }),
  });

  const RouteImportFailed = z.object({
    type: z.literal('ROUTE_IMPORT_FAILED'),
    details: z.object({
      txid: z.withMeta(z.string(), { description: 'the import (`txid` of its POST)' }),
      error: z.withMeta(z.object({ code: z.int(), message: z.string() }), {
        description: 'why it failed: the code and message GET of the import answers',
      }),
    }),
  });

  const IdChanges = z.withMeta(
    z.object({
      added: z.array(z.string()),
      removed: z.array(z.string()),
      changed: z.withMeta(z.array(z.string()), {
        description: 'still on the route, with other fields than before',
      }),
    }),
    { id: 'IdChanges', description: 'ids added, removed and changed, each in route order' },
  );
  const RouteUpdated = z.object({
    type: z.literal('ROUTE_UPDATED'),
    details: z.object({
      version: z.withMeta(z.int(), { description: 'the route’s version after the change' }),
      changes: z.withMeta(z.object({ waypoints: IdChanges, invoices: IdChanges, items: IdChanges }), {
        id: 'RouteChanges',
        description: 'what changed on the route',
      }),
      order_changed: z.withMeta(z.optional(z.boolean()), {
        description:
          'true when the waypoints still on the route are visited in another order than before (a reorder, an optimization applied, a revision that moves waypoints): read the new order with GET of the route (`waypoint_ids`) or its waypoints. Absent on events written before the order could change',
      }),
      txid: z.withMeta(z.optional(z.string()), {
        description:
          'the revision (`txid` of its PUT) that made the change; absent for a cancelled waypoint, a reorder and an optimization',
      }),
      optimization_id: z.withMeta(z.optional(z.string()), {
        description: 'the optimization whose order was applied (`POST …/optimizations` with `apply: true`)',
      }),
      changes_truncated: z.withMeta(z.optional(z.literal(true)), {
        description:
          'present when the id lists did not fit the event (over 96 KiB of ids): `changes` then holds empty lists, and GET of the revision’s import status (`txid`) answers them all',
      }),
    }),
  });

  const visitFields = {
    waypoint_id: z.string(),
    driver_id: z.withMeta(z.string(), { description: 'the driver whose pings showed the visit' }),
    arrived_timestamp: millis(
      'the first ping of the stay within the DC’s arrival radius: it names the visit',
    ),
  };
  const WaypointArrived = z.object({ type: z.literal('WAYPOINT_ARRIVED'), details: z.object(visitFields) });
  const WaypointDeparted = z.object({
    type: z.literal('WAYPOINT_DEPARTED'),
    details: z.object({
      ...visitFields,
      departed_timestamp: millis('the first ping farther than the arrival radius plus the departure margin'),
      dwell_seconds: z.withMeta(z.int().check(z.minimum(0)), {
        description: 'departed_timestamp - arrived_timestamp, in whole seconds',
      }),
    }),
  });

  const approachingFields = {
    waypoint_id: z.string(),
    eta_timestamp: millis('the recomputed ETA that came within the DC’s `approaching_minutes`'),
    stops_before: z.withMeta(z.int().check(z.minimum(0)), {
      description: 'waypoints still to visit before this one, in the route’s visiting order',
    }),
  };
  const WaypointApproaching = z.object({
    type: z.literal('WAYPOINT_APPROACHING'),
    details: z.object({ ...approachingFields, tracking_links: TrackingLinks }),
  });
  const WaypointApproachingBody = z.object({ ...approachingFields, tracking_url: TrackingUrl });

  const NotificationFailed = z.object({
    type: z.literal('NOTIFICATION_FAILED'),
    details: z.object({
      waypoint_id: z.string(),
      notification_id: z.withMeta(z.string(), {
        description: 'the message, as GET .../waypoints/{waypoint_id}/notifications lists it',
      }),
      trigger: z.withMeta(z.string(), {
        description: 'what the message told: ROUTE_STARTED, APPROACHING, ...',
      }),
      channel: z.enum(['SMS', 'EMAIL']),
      to: z.withMeta(z.string(), { description: 'the masked address it went to' }),
      status: z.withMeta(z.enum(['BOUNCED', 'FAILED']), {
        description:
          'BOUNCED: the email bounced for good or its recipient complained; FAILED: it was not delivered',
      }),
      reason: z.withMeta(z.string(), { description: 'the provider’s words, without addresses' }),
    }),
  });

  const Ping = z.object({ type: z.literal('PING'), details: z.object({}) });

  /** The events written as event items (transactional outbox) and carried by the table stream. */
  const StreamEvent = z.discriminatedUnion('type', [
    RouteCreated,
    RouteStarted,
    RouteEtasChanged,
    WaypointStatusChanged,
    RouteFinished,
    RouteImportFailed,
    RouteUpdated,
    WaypointArrived,
    WaypointDeparted,
    WaypointApproaching,
    NotificationFailed,
  ]);

  /** Every event a webhook can receive: the stream's, and PING, which only the test call sends. */
  const CatalogEvent = z.discriminatedUnion('type', [...StreamEvent.def.options, Ping]);
  /** The body's own fields of the types whose body is not their payload (bodyDetailsOf, webhook-body.ts). */
  const BodyDetails = {
    ROUTE_STARTED: RouteStartedBody,
    ROUTE_ETAS_CHANGED: RouteEtasChangedBody,
    WAYPOINT_APPROACHING: WaypointApproachingBody,
  };
  return { StreamEvent, CatalogEvent, BodyDetails };
}

type EventSchemas = ReturnType<typeof buildEventSchemas>;
let eventSchemasBuilt: EventSchemas | undefined;

/**
 * The catalog's zod schemas: `StreamEvent`, the events written as event items (transactional outbox) and
 * carried by the table stream, and `CatalogEvent`, every event a webhook can receive (the stream's, and PING,
 * which only the test call sends). Built when first asked for: building them takes several milliseconds of
 * a cold start, and most functions that import the catalog only need its type names (the pipe filter, the
 * webhook endpoints) or write no event before their first request.
 */
export function eventSchemas(): EventSchemas {
  eventSchemasBuilt ??= buildEventSchemas();
  return eventSchemasBuilt;
}

export type StreamEvent = z.infer<EventSchemas['StreamEvent']>;
export type CatalogEvent = z.infer<EventSchemas['CatalogEvent']>;
export type EventType = CatalogEvent['type'];
export type StreamEventType = StreamEvent['type'];
export type EventOf<T extends EventType> = Extract<CatalogEvent, { type: T }>;
export type EventDetails<T extends EventType> = EventOf<T>['details'];
type BodyDetailsSchemas = EventSchemas['BodyDetails'];
/** The type's own fields of its webhook body: its payload, or what bodyDetailsOf (webhook-body.ts) makes of it. */
export type BodyDetails<T extends EventType> = T extends keyof BodyDetailsSchemas
  ? z.infer<BodyDetailsSchemas[T]>
  : EventDetails<T>;

/** The catalog's type names, in a module of their own that builds no schema (event-types.ts). */
export { EVENT_TYPES, isSubscribableEvent, SUBSCRIBABLE_EVENTS, type SubscribableEvent };

// ---- The webhook body ----

/** An event as it travels through the queues: its id, where and when it happened, and its payload. */
export type WebhookEvent = {
  event_id: string;
  dc_id: string | null;
  route_id: string | null;
  /**
   * The event's place among its route's events: 1 (ROUTE_CREATED), 2, 3 ... with no gaps, taken in the
   * transaction of the change (docs/architecture.md); a refused revision's ROUTE_IMPORT_FAILED takes one too.
   * Null for an event of no route's own (PING, a failed import) and for an event written before sequences.
   */
  sequence: number | null;
  occurred_at: number;
} & CatalogEvent;

/** The body receivers get, and its bytes (webhook-body.ts); WEBHOOK_BODY_SCHEMAS (below) is its schema. */
export { type WebhookBody, webhookBody, webhookBodyOf } from './webhook-body';

const schemaName = (type: EventType) =>
  `${type
    .toLowerCase()
    .split('_')
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join('')}Event`;

/** The body schema of a type (zod): the catalog's details, under the fields every body has. */
function webhookBodySchema(type: EventType): z.ZodMiniObject {
  const { CatalogEvent, BodyDetails: bodyDetails } = eventSchemas();
  const option = CatalogEvent.def.options.find((candidate) => candidate.shape.type.def.values[0] === type);
  if (!option) throw new Error(`no event type ${type} in the catalog`);
  const { scope, summary } = EVENT_DOCS[type];
  return z.withMeta(
    z.object({
      event: z.literal(type),
      hook_timestamp_millis: millis('when the event happened'),
      dc_id:
        scope === 'none'
          ? z.withMeta(z.null(), { description: 'none' })
          : z.withMeta(z.string(), { description: 'the DC' }),
      route_id:
        scope === 'route'
          ? z.withMeta(z.string(), { description: 'the route' })
          : scope === 'route-if-known'
            ? z.withMeta(z.nullable(z.string()), {
                description: 'the route; null when its id was never read',
              })
            : z.withMeta(z.null(), { description: 'none' }),
      event_id: z.withMeta(z.string(), {
        description: 'the event’s id, also in `webhook-id`: the same on every attempt and redelivery',
      }),
      sequence:
        scope === 'route'
          ? z.withMeta(z.nullable(z.int().check(z.minimum(1))), {
              description:
                'the event’s place among its route’s events: 1 (ROUTE_CREATED), 2, 3 ... with no gaps, so a gap or a smaller number than the last tells a missed or reordered event; null only on an event written before sequences',
            })
          : scope === 'route-if-known'
            ? z.withMeta(z.nullable(z.int().check(z.minimum(1))), {
                description:
                  'a refused revision’s: its place among its route’s events, as any event of the route (it takes the next number); null for a failed import, which made no route whose events it would count among',
              })
            : z.withMeta(z.null(), { description: 'none: the event belongs to no route’s sequence' }),
      ...(type in bodyDetails ? bodyDetails[type as keyof typeof bodyDetails] : option.shape.details).shape,
    }),
    { id: schemaName(type), description: summary },
  );
}

/**
 * The body schema of each type (zod), for the OpenAPI document and for tests that check what arrived. Each
 * one is built when first read: the functions that import the catalog (producers, the pipe filter, fan-out,
 * delivery) never read them, and building them all at import cost each of their cold starts.
 */
export const WEBHOOK_BODY_SCHEMAS = /* @__PURE__ */ lazyWebhookBodySchemas();

/**
 * Made by a call marked pure rather than by statements at the top of the module: a bundle that imports only
 * the catalog's type names (the channels' delivery message, the pipe filter) drops it, and with it the
 * schemas and the docs.
 */
function lazyWebhookBodySchemas(): Readonly<Record<EventType, z.ZodMiniObject>> {
  const schemas = {} as Record<EventType, z.ZodMiniObject>;
  for (const type of EVENT_TYPES) {
    let schema: z.ZodMiniObject | undefined;
    Object.defineProperty(schemas, type, {
      enumerable: true,
      get: () => {
        schema ??= webhookBodySchema(type);
        return schema;
      },
    });
  }
  return schemas;
}
