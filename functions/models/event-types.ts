import type { EventType, StreamEventType } from './event-catalog';

/*
 * The event catalog's type names (event-catalog.ts), apart from its schemas: a function that only names the
 * types (the channels' message schemas, the webhook endpoints) does not load the schemas' code, which a
 * bundler cannot leave out of a module that another chunk of the same function needs whole.
 */

/**
 * The event types a webhook can subscribe to, in the catalog's order: the stream's (a webhook gets PING
 * whatever its types). Spelled out so that reading them builds no schema; the compiler holds them to the
 * catalog's schemas, and test/unit/event-catalog.test.ts the order.
 */
export const SUBSCRIBABLE_EVENTS = [
  'ROUTE_CREATED',
  'ROUTE_STARTED',
  'ROUTE_ETAS_CHANGED',
  'WAYPOINT_STATUS_CHANGED',
  'ROUTE_FINISHED',
  'ROUTE_IMPORT_FAILED',
  'ROUTE_UPDATED',
  'WAYPOINT_ARRIVED',
  'WAYPOINT_DEPARTED',
  'WAYPOINT_APPROACHING',
  'NOTIFICATION_FAILED',
] as const satisfies readonly StreamEventType[];

/** Every event type, in the catalog's order. */
export const EVENT_TYPES = [...SUBSCRIBABLE_EVENTS, 'PING'] as const satisfies readonly EventType[];

// `satisfies` above: every name listed is a type of the schemas; this: no type of the schemas is left out.
({}) satisfies Record<Exclude<EventType, (typeof EVENT_TYPES)[number]>, never>;

export type SubscribableEvent = StreamEventType;

export const isSubscribableEvent = (type: unknown): type is SubscribableEvent =>
  SUBSCRIBABLE_EVENTS.includes(type as SubscribableEvent);
