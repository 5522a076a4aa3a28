import { eventSchemas, type StreamEvent, SUBSCRIBABLE_EVENTS } from '../models/event-catalog';
import { randomId } from '../shared/crypto';
import { tableName } from './client';

/** The types of event items: the catalog's stream types (every type but PING, which is never written). */
export type { StreamEventType as EventType } from '../models/event-catalog';

/** An event item to write: where and when it happened, and its type with that type's payload (the catalog's). */
export type RouteEvent = {
  accountId: string;
  dcId: string;
  /** Absent only for an upload that failed before its route id was read. */
  routeId?: string;
  occurredAt: number;
} & StreamEvent;

/**
 * The table-stream records that carry events: new event items of the event catalog's types, as an EventBridge
 * event pattern on the DynamoDB stream record. The EventBridge Pipe filters with it on AWS; the local stream
 * poller applies the same pattern, read from the synthesized pipe.
 */
export const EVENT_RECORD_PATTERN = {
  eventName: ['INSERT'],
  dynamodb: { NewImage: { entity: { S: ['EVENT'] }, event_type: { S: [...SUBSCRIBABLE_EVENTS] } } },
} as const;

/** Events only need to live until the stream has carried them to the events queue. */
const RETENTION_SECONDS = 7 * 86_400;

/**
 * Transaction item recording an event next to the state change that causes it (transactional outbox):
 * the table stream carries it to the webhooks, so an event is never lost when a handler dies after
 * its write, and never sent for a change that did not happen. The type and payload are parsed with the
 * event catalog first (microseconds; a third of a millisecond for the ETAs of 2,000 stops): a producer cannot
 * write a shape receivers are not told of.
 */
export function putEventItem(event: RouteEvent) {
  const { type, details } = eventSchemas().StreamEvent.parse({ type: event.type, details: event.details });
  const eventId = randomId('evt_');
  return {
    Put: {
      TableName: tableName(),
      Item: {
        pk: `EVENT#${event.accountId}/${eventId}`,
        sk: 'EVENT',
        entity: 'EVENT',
        event_id: eventId,
        event_type: type,
        account_id: event.accountId,
        dc_id: event.dcId,
        ...(event.routeId === undefined ? {} : { route_id: event.routeId }),
        details,
        occurred_at: event.occurredAt,
        expires_at: Math.floor(event.occurredAt / 1000) + RETENTION_SECONDS,
      },
    },
  };
}
