import { randomId } from '../shared/crypto';
import { tableName } from './client';

/** Event types (spec §6 and DESIGN §4). */
export type EventType =
  | 'ROUTE_CREATED'
  | 'ROUTE_IMPORT_FAILED'
  | 'ROUTE_STARTED'
  | 'ROUTE_ETAS_CHANGED'
  | 'WAYPOINT_STATUS_CHANGED'
  | 'ROUTE_FINISHED'
  | 'PING';

export interface RouteEvent {
  accountId: string;
  dcId: string;
  /** Absent only for an upload that failed before its route id was read. */
  routeId?: string;
  type: EventType;
  /** Type-specific fields of the webhook body (DESIGN §4). */
  details: Record<string, unknown>;
  occurredAt: number;
}

/** Events only need to live until the stream has carried them to the events queue. */
const RETENTION_SECONDS = 7 * 86_400;

/**
 * Transaction item recording an event next to the state change that causes it (transactional outbox):
 * the table stream carries it to the webhooks, so an event is never lost when a handler dies after
 * its write, and never sent for a change that did not happen.
 */
export function putEventItem(event: RouteEvent) {
  const eventId = randomId('evt_');
  return {
    Put: {
      TableName: tableName,
      Item: {
        pk: `EVENT#${event.accountId}/${eventId}`,
        sk: 'EVENT',
        entity: 'EVENT',
        event_id: eventId,
        event_type: event.type,
        account_id: event.accountId,
        dc_id: event.dcId,
        ...(event.routeId === undefined ? {} : { route_id: event.routeId }),
        details: event.details,
        occurred_at: event.occurredAt,
        expires_at: Math.floor(event.occurredAt / 1000) + RETENTION_SECONDS,
      },
    },
  };
}
