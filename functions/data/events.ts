import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import type { StreamRecord } from '../models/channels';
import {
  eventSchemas,
  isSubscribableEvent,
  type StreamEvent,
  SUBSCRIBABLE_EVENTS,
  type WebhookEvent,
} from '../models/event-catalog';
import { randomId } from '../shared/crypto';
import { getAll, type Item, tableName } from './client';
import { codec } from './codec';

/** The types of event items: the catalog's stream types (every type but PING, which is never written). */
export type { StreamEventType as EventType } from '../models/event-catalog';

/** An event item to write: where and when it happened, and its type with that type's payload (the catalog's). */
export type RouteEvent = {
  accountId: string;
  dcId: string;
  /** Absent only for an upload that failed before its route id was read. */
  routeId?: string;
  /**
   * The event's place among its route's events (1, 2, 3 ...), taken in the same transaction
   * (data/route-event-sequences.ts). Absent only for an event of no route's own: a failed import.
   */
  sequence?: number;
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

/**
 * Where the stream record of an event item holds its account and its id, as JSON paths into the record (the
 * dynamic path parameters of a pipe's SQS target): the feed pipe's FIFO message group, one per account, and
 * its deduplication id (lib/constructs/event-pipe.ts). Account ids (`acc_` and 16 hex digits) and event ids
 * fit SQS's 128 characters of either.
 */
export const EVENT_RECORD_FIFO_IDS = {
  messageGroupId: '$.dynamodb.NewImage.account_id.S',
  messageDeduplicationId: '$.dynamodb.NewImage.event_id.S',
} as const;

/** What a record of the table stream, as the events queue carries it, holds. */
export type StreamedItem =
  | { kind: 'event'; accountId: string; event: WebhookEvent }
  /** An event item of a type the catalog does not have (the pipe lets none through): nothing subscribes to it. */
  | { kind: 'eventOutsideCatalog'; eventId: unknown; eventType: unknown }
  /** Any other item, or no new image (a record of a removal). */
  | { kind: 'other' };

/** An event item's fields (the event's type and details are the catalog's, checked when read). */
interface StoredEvent {
  eventId: string;
  eventType: string;
  accountId: string;
  /** Read as null from items without it. */
  dcId: string | null;
  /** Not written for an event without a route (an upload that failed before its route id was read). */
  routeId?: string | null;
  /** The event's place among its route's events; absent for an event of no route's own (read as null). */
  sequence?: number | null;
  details: unknown;
  occurredAt: number;
}

/** How an event's identity and place are stored, in its own item and in its feed entry alike. */
export const EVENT_PLACE_FIELDS = {
  eventId: {},
  eventType: {},
  dcId: { absent: null },
  routeId: { absent: null },
  sequence: { absent: null },
  occurredAt: {},
} as const;

const eventCodec = codec<StoredEvent>({ ...EVENT_PLACE_FIELDS, accountId: {}, details: {} });

/** The event item a stream record's new image holds, read from DynamoDB's attribute-value form. */
export function readStreamRecord(record: StreamRecord): StreamedItem {
  const image = record.dynamodb?.NewImage;
  if (!image) return { kind: 'other' };
  // The channel checked that each attribute is an object; unmarshall reads its form (S, N, M, L...).
  const item = unmarshall(image as unknown as Record<string, AttributeValue>);
  if (item.entity !== 'EVENT') return { kind: 'other' };
  const stored = eventCodec.fromItem(item);
  if (!isSubscribableEvent(stored.eventType))
    return { kind: 'eventOutsideCatalog', eventId: stored.eventId, eventType: stored.eventType };
  return {
    kind: 'event',
    accountId: stored.accountId,
    event: webhookEventOf(stored, stored.details),
  };
}

/** The event an event item or a feed entry holds: its identity and place (EVENT_PLACE_FIELDS) and its details. */
export function webhookEventOf(
  place: Pick<StoredEvent, 'eventId' | 'eventType' | 'dcId' | 'routeId' | 'sequence' | 'occurredAt'>,
  details: unknown,
): WebhookEvent {
  return {
    event_id: place.eventId,
    type: place.eventType,
    dc_id: place.dcId,
    route_id: place.routeId,
    sequence: place.sequence,
    occurred_at: place.occurredAt,
    details: details ?? {},
  } as WebhookEvent;
}

/**
 * How long an event item is kept: the event feed reads an event's details from its item for 30 days after it
 * took the event (FEED_RETENTION_MS, data/event-feed.ts), and takes it at most the feed queue's retention
 * (4 days) plus the pipe's record age (6 hours) after it happened; a day more for the clocks.
 */
export const EVENT_RETENTION_SECONDS = 35 * 86_400;

/** The key of an event's item. */
const eventKey = (accountId: string, eventId: string) => ({
  pk: `EVENT#${accountId}/${eventId}`,
  sk: 'EVENT',
});

/**
 * The details of the account's events `eventIds`, read (consistently, 100 a request) from their items, by event
 * id; an event whose item is gone (past its retention) is not in the answer.
 */
export async function eventDetails(
  accountId: string,
  eventIds: readonly string[],
): Promise<Map<string, unknown>> {
  const items = await getAll(eventIds.map((eventId) => eventKey(accountId, eventId)));
  return new Map(
    items.map((item) => {
      const { eventId, details } = eventCodec.fromItem(item);
      return [eventId, details ?? {}];
    }),
  );
}

/**
 * The largest message an event item may make: the pipe sends each stream record as one message, so this bounds
 * a message of the events queue, and the pipe's batches in bytes (lib/constructs/event-pipe.ts). The largest
 * event, a ROUTE_ETAS_CHANGED of 2,000 waypoints, stays within it by the import's limits (MAX_LISTED_ID_BYTES).
 */
export const MAX_EVENT_RECORD_BYTES = 256 * 1024;

/**
 * What the stream record of an item weighs as the pipe sends it to the events queue: the record's JSON with
 * the item in DynamoDB's attribute-value form, and generous room for the fields around it (an ARN with a
 * 255-character table name).
 */
export function streamRecordBytes(item: Record<string, unknown>): number {
  const record = {
    eventID: 'f'.repeat(32),
    eventName: 'INSERT',
    eventVersion: '1.1',
    eventSource: 'aws:dynamodb',
    awsRegion: 'ap-southeast-2',
    dynamodb: {
      ApproximateCreationDateTime: 4_102_444_800,
      Keys: marshall({ pk: item.pk, sk: item.sk }),
      NewImage: marshall(item, { removeUndefinedValues: true }),
      SequenceNumber: '9'.repeat(40),
      SizeBytes: 409_600,
      StreamViewType: 'NEW_IMAGE',
    },
    eventSourceARN: `arn:aws:dynamodb:ap-southeast-2:123456789012:table/${'t'.repeat(255)}/stream/2026-11-23T00:00:00.000`,
  };
  return Buffer.byteLength(JSON.stringify(record));
}

/**
 * Transaction item recording an event next to the state change that causes it (transactional outbox):
 * the table stream carries it to the webhooks, so an event is never lost when a handler dies after
 * its write, and never sent for a change that did not happen. The type and payload are parsed with the
 * event catalog first (microseconds; a third of a millisecond for the ETAs of 2,000 stops): a producer cannot
 * write a shape receivers are not told of. An item whose stream record would pass MAX_EVENT_RECORD_BYTES is
 * refused before anything is written (a few milliseconds for those ETAs): its record could hold up the pipe.
 */
export function putEventItem(event: RouteEvent) {
  const { type, details } = eventSchemas().StreamEvent.parse({ type: event.type, details: event.details });
  const eventId = randomId('evt_');
  const item: Item = {
    ...eventKey(event.accountId, eventId),
    entity: 'EVENT',
    ...eventCodec.toItem({
      eventId,
      eventType: type,
      accountId: event.accountId,
      dcId: event.dcId,
      routeId: event.routeId,
      sequence: event.sequence,
      details,
      occurredAt: event.occurredAt,
    }),
    expires_at: Math.floor(event.occurredAt / 1000) + EVENT_RETENTION_SECONDS,
  };
  const bytes = streamRecordBytes(item);
  if (bytes > MAX_EVENT_RECORD_BYTES)
    throw new Error(
      `a ${type} event of ${bytes} bytes as a stream record; at most ${MAX_EVENT_RECORD_BYTES}`,
    );
  return { Put: { TableName: tableName(), Item: item } };
}
