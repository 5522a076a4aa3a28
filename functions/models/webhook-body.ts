import { inKeyOrder } from '../shared/key-order';
import type { BodyDetails, EventType, WebhookEvent } from './event-catalog';
import { trackingToken, trackingUrl } from './tracking-links';

/**
 * The webhook body made from a catalog event (docs/api.md §7): the fields every body starts with, then the type's
 * own, which is its payload, but for the types that give each waypoint's tracking link, made from the tracking key
 * their payload holds once (event-catalog.ts says why). The catalog re-exports it; its schemas stay there.
 *
 * A model module: it imports only the catalog's types, the tracking links' derivation and the key order.
 */

/** The fields every body starts with (docs/api.md §7), then the type's own (`details`). */
interface BodyEnvelope<T extends EventType> {
  event: T;
  hook_timestamp_millis: number;
  dc_id: string | null;
  route_id: string | null;
  event_id: string;
  sequence: number | null;
}
export type WebhookBody<T extends EventType = EventType> = T extends EventType
  ? BodyEnvelope<T> & BodyDetails<T>
  : never;

/** A waypoint's tracking page, from the links of the payload (none for a route imported before them). */
function trackingUrlOf(
  links: { api_url: string; key: string; sequences?: Record<string, number> } | undefined,
  waypointId: string,
): string | null {
  if (!links) return null;
  const sequence = Object.hasOwn(links.sequences ?? {}, waypointId)
    ? links.sequences?.[waypointId]
    : undefined;
  return trackingUrl(links.api_url, trackingToken(links.key, waypointId, sequence));
}

/** The type's own fields of the body: its payload, or, for the types that give tracking links, made from it. */
function bodyDetailsOf(event: WebhookEvent): BodyDetails<EventType> {
  switch (event.type) {
    case 'ROUTE_STARTED': {
      const { driver_id, started_timestamp, waypoint_ids = [], tracking_links, pins } = event.details;
      return {
        driver_id,
        started_timestamp,
        waypoints: waypoint_ids.map((waypoint_id, index) => {
          const pin = pins?.[index];
          return {
            waypoint_id,
            tracking_url: trackingUrlOf(tracking_links, waypoint_id),
            ...(typeof pin === 'string' && { pin }),
          };
        }),
      };
    }
    case 'ROUTE_ETAS_CHANGED': {
      const { etas, tracking_links } = event.details;
      return {
        etas: etas.map(({ waypoint_id, eta_timestamp }) => ({
          waypoint_id,
          eta_timestamp,
          tracking_url: trackingUrlOf(tracking_links, waypoint_id),
        })),
      };
    }
    case 'WAYPOINT_APPROACHING': {
      const { waypoint_id, eta_timestamp, stops_before, tracking_links } = event.details;
      return {
        waypoint_id,
        eta_timestamp,
        stops_before,
        tracking_url: trackingUrlOf(tracking_links, waypoint_id),
      };
    }
    default:
      // The table keeps a map's keys in no order, so the stream record a delivery is made from and the item the
      // feed reads could list them differently; in key order, the feed and every delivery carry the same bytes.
      return inKeyOrder(event.details) as BodyDetails<EventType>;
  }
}

/**
 * The body receivers get: the same fields in the same order on every attempt and every redelivery, and in the
 * event feed (what is made from the payload is made the same way every time; the rest is in key order).
 */
export function webhookBodyOf(event: WebhookEvent): WebhookBody {
  return {
    event: event.type,
    hook_timestamp_millis: event.occurred_at,
    dc_id: event.dc_id,
    route_id: event.route_id,
    event_id: event.event_id,
    sequence: event.sequence,
    ...bodyDetailsOf(event),
  } as WebhookBody;
}

/** The body's bytes, as signed and sent. */
export const webhookBody = (event: WebhookEvent): string => JSON.stringify(webhookBodyOf(event));
