import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { WebhookEvent } from '../models/event-catalog';
import {
  conditionFailedAt,
  db,
  type Item,
  isTransactionConflict,
  tableName,
  writeTransaction,
} from './client';
import { codec } from './codec';
import { getRecord } from './item-ops';
import type { TableKey } from './table-schema';

/**
 * The account's event feed (GET /events; docs/architecture.md, "The event feed"): every event of the account,
 * appended after its change committed by the events queue's consumer, each at the next position of the
 * account's feed (1, 2, 3 ...). One partition per account:
 *   LAST            the last position taken
 *   P#<position>    the event at that position, zero-padded so that key order is position order
 * and beside it, in a partition of its own, a marker per appended event, so that an event the queue delivers
 * again is not appended twice. Entries and markers expire FEED_RETENTION_MS after they were appended.
 */
const feedPartition = (accountId: string) => `FEED#${accountId}`;
const POSITION_PREFIX = 'P#';
const POSITION_WIDTH = 15;
const positionKey = (accountId: string, position: number): TableKey => ({
  pk: feedPartition(accountId),
  sk: `${POSITION_PREFIX}${String(position).padStart(POSITION_WIDTH, '0')}`,
});
const lastPositionKey = (accountId: string): TableKey => ({ pk: feedPartition(accountId), sk: 'LAST' });
const appendedMarkerKey = (accountId: string, eventId: string): TableKey => ({
  pk: `FEED_EVENT#${accountId}/${eventId}`,
  sk: 'FEED',
});

/** How long the feed keeps an event: 30 days after it was appended. */
export const FEED_RETENTION_MS = 30 * 86_400_000;

/** An event of the feed: where it is, when it was appended, and the event as the queues carry it. */
export interface FeedEntry {
  position: number;
  appendedAt: number;
  event: WebhookEvent;
}

/** True once the entry is past its 30 days (TTL deletes it within a few days after). */
export const feedEntryExpired = (entry: Pick<FeedEntry, 'appendedAt'>, now: number) =>
  entry.appendedAt + FEED_RETENTION_MS <= now;

/** An entry's item: its place, when it was appended, and the event's fields. */
interface StoredEntry {
  position: number;
  appendedAt: number;
  eventId: string;
  eventType: string;
  dcId: string | null;
  routeId: string | null;
  sequence: number | null;
  occurredAt: number;
  details: unknown;
}

const entryCodec = codec<StoredEntry>({
  position: {},
  appendedAt: {},
  eventId: {},
  eventType: {},
  dcId: { absent: null },
  routeId: { absent: null },
  sequence: { absent: null },
  occurredAt: {},
  details: {},
});

/** The feed's last position taken, and the position an appended event's marker records. */
const lastPositionCodec = codec<{ lastPosition: number }>({ lastPosition: {} });
const markerCodec = codec<{ position: number }>({ position: {} });

const expiresAt = (appendedAt: number) => Math.ceil((appendedAt + FEED_RETENTION_MS) / 1000);

/** The last position the account's feed took; 0 before its first event. */
async function lastPosition(accountId: string): Promise<number> {
  const last = await getRecord(lastPositionKey(accountId), lastPositionCodec.fromItem);
  return last?.lastPosition ?? 0;
}

/**
 * Appends the event at the account's next position, in one transaction with the position taken (on
 * condition that it is still the one read) and the event's marker (on condition that it is new): entries
 * commit one after another in position order, and an event appended before is not appended again
 * ('duplicate'). 'raced' when another append took the position first: read it again and retry.
 */
export async function appendToFeed(
  accountId: string,
  event: WebhookEvent,
  appendedAt: number,
): Promise<'appended' | 'duplicate' | 'raced'> {
  const last = await lastPosition(accountId);
  const position = last + 1;
  const expires_at = expiresAt(appendedAt);
  try {
    await writeTransaction([
      {
        Put: {
          TableName: tableName(),
          Item: {
            ...appendedMarkerKey(accountId, event.event_id),
            entity: 'FEED_MARKER',
            ...markerCodec.toItem({ position }),
            expires_at,
          },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
      {
        Put: {
          TableName: tableName(),
          Item: {
            ...lastPositionKey(accountId),
            entity: 'FEED_LAST',
            ...lastPositionCodec.toItem({ lastPosition: position }),
          },
          ConditionExpression: last === 0 ? 'attribute_not_exists(pk)' : 'last_position = :last',
          ...(last === 0 ? {} : { ExpressionAttributeValues: { ':last': last } }),
        },
      },
      {
        Put: {
          TableName: tableName(),
          Item: {
            ...positionKey(accountId, position),
            entity: 'FEED_ENTRY',
            ...entryCodec.toItem({
              position,
              appendedAt,
              eventId: event.event_id,
              eventType: event.type,
              dcId: event.dc_id,
              routeId: event.route_id,
              sequence: event.sequence,
              occurredAt: event.occurred_at,
              details: event.details,
            }),
            expires_at,
          },
        },
      },
    ]);
    return 'appended';
  } catch (error) {
    if (conditionFailedAt(error, 0)) return 'duplicate';
    if (conditionFailedAt(error, 1) || isTransactionConflict(error)) return 'raced';
    throw error;
  }
}

function entryFromItem(item: Item): FeedEntry {
  const stored = entryCodec.fromItem(item);
  return {
    position: stored.position,
    appendedAt: stored.appendedAt,
    event: {
      event_id: stored.eventId,
      type: stored.eventType,
      dc_id: stored.dcId,
      route_id: stored.routeId,
      sequence: stored.sequence,
      occurred_at: stored.occurredAt,
      details: stored.details ?? {},
    } as WebhookEvent,
  };
}

/** The entry at `position` of the account's feed (read consistently); undefined when there is none (or it expired). */
export async function getFeedEntry(accountId: string, position: number): Promise<FeedEntry | undefined> {
  return getRecord(positionKey(accountId, position), entryFromItem);
}

/**
 * The account's entries after `afterPosition` (from the oldest kept without it), in position order, read
 * consistently a query page at a time while `take` asks for more: it is given each entry in turn (an
 * expired one too: TTL deletes late), and answers whether to go on. Stops at the end of the feed
 * (`readAll`), or once `maxRead` entries were read.
 */
export async function readFeed(
  accountId: string,
  afterPosition: number,
  options: { pageSize: number; maxRead: number },
  take: (entry: FeedEntry) => boolean,
): Promise<{ readAll: boolean }> {
  let startKey: Record<string, unknown> | undefined;
  let read = 0;
  do {
    const page = await db.send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
        ExpressionAttributeValues: {
          ':pk': feedPartition(accountId),
          ':from': positionKey(accountId, afterPosition + 1).sk,
          ':to': `${POSITION_PREFIX}${'9'.repeat(POSITION_WIDTH)}`,
        },
        ExclusiveStartKey: startKey,
        Limit: Math.min(options.pageSize, options.maxRead - read),
        ConsistentRead: true,
      }),
    );
    for (const item of page.Items ?? []) {
      read++;
      if (!take(entryFromItem(item))) return { readAll: false };
    }
    startKey = page.LastEvaluatedKey;
  } while (startKey && read < options.maxRead);
  return { readAll: !startKey };
}
