import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { WebhookEvent } from '../models/event-catalog';
import {
  conditionFailedAt,
  db,
  type Item,
  isTransactionConflict,
  MAX_TRANSACTION_ITEMS,
  tableName,
  writeTransaction,
} from './client';
import { codec } from './codec';
import { EVENT_PLACE_FIELDS, eventDetails, webhookEventOf } from './events';
import { getRecord, putRecordItem } from './item-ops';
import type { TableKey } from './table-schema';

/**
 * The account's event feed (GET /events; docs/architecture.md, "The event feed"): every event of the account,
 * appended after its change committed by the feed queue's consumer, each at the next position of the
 * account's feed (1, 2, 3 ...). One partition per account, FEED#<account>:
 *   P#<position>    the event at that position, zero-padded so that key order is position order: its id and
 *                   the fields the feed filters on, not its details, which stay in the event's own item
 * and beside it, each in a partition of its own so that the feed's key takes only the entries' write units:
 *   FEED_LAST#<account>            LAST   the last position taken (feeds appended before it: FEED#<account>, LAST)
 *   FEED_EVENT#<account>/<event>   FEED   a marker per appended event, so that an event the queue delivers
 *                                         again is not appended twice
 * Entries and markers expire FEED_RETENTION_MS after they were appended; the last position never does.
 */
const feedPartition = (accountId: string) => `FEED#${accountId}`;
const POSITION_PREFIX = 'P#';
const POSITION_WIDTH = 15;
const positionKey = (accountId: string, position: number): TableKey => ({
  pk: feedPartition(accountId),
  sk: `${POSITION_PREFIX}${String(position).padStart(POSITION_WIDTH, '0')}`,
});
const lastPositionKey = (accountId: string): TableKey => ({ pk: `FEED_LAST#${accountId}`, sk: 'LAST' });
/** Where feeds appended before the last position had a partition of its own kept it. */
const legacyLastPositionKey = (accountId: string): TableKey => ({ pk: feedPartition(accountId), sk: 'LAST' });
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

/**
 * An entry's item: its place, when it was appended, and the event's fields but its details (a few hundred
 * bytes whatever the event: two write units in the append's transaction). Entries appended before entries
 * were compact hold the details too.
 */
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
  ...EVENT_PLACE_FIELDS,
  details: { absent: undefined },
});

/** The feed's last position taken, and the position an appended event's marker records. */
const lastPositionCodec = codec<{ lastPosition: number }>({ lastPosition: {} });
const markerCodec = codec<{ position: number }>({ position: {} });

const expiresAt = (appendedAt: number) => Math.ceil((appendedAt + FEED_RETENTION_MS) / 1000);

/**
 * The last position the account's feed took (0 before its first event), and whether it is kept in its own
 * partition yet: a feed appended before it was read from the feed's partition, and its next append moves it.
 */
async function lastPosition(accountId: string): Promise<{ last: number; kept: boolean }> {
  const last = await getRecord(lastPositionKey(accountId), lastPositionCodec.fromItem);
  if (last) return { last: last.lastPosition, kept: true };
  const legacy = await getRecord(legacyLastPositionKey(accountId), lastPositionCodec.fromItem);
  return { last: legacy?.lastPosition ?? 0, kept: false };
}

/** Events one append takes: two items each (entry and marker) and the last position, within a transaction's 100. */
export const MAX_EVENTS_PER_APPEND = Math.floor((MAX_TRANSACTION_ITEMS - 1) / 2);

/** What an append did: its events took positions `first`, `first + 1`...; or why it wrote nothing. */
export type AppendOutcome =
  | { kind: 'appended'; first: number }
  /** These events were appended before (their markers exist): nothing was written; append the others. */
  | { kind: 'duplicates'; eventIds: string[] }
  /** Another append took the next position first: read it again and retry. */
  | { kind: 'raced' };

/**
 * Appends the events, in the order given, at the account's next positions, in one transaction with the last
 * position taken (on condition that it is still the one read) and each event's marker (on condition that it
 * is new): entries commit in position order, with no hole a later commit could fill, and an event appended
 * before is not appended again.
 */
export async function appendToFeed(
  accountId: string,
  events: readonly WebhookEvent[],
  appendedAt: number,
): Promise<AppendOutcome> {
  if (events.length === 0 || events.length > MAX_EVENTS_PER_APPEND)
    throw new Error(`an append takes 1..${MAX_EVENTS_PER_APPEND} events, not ${events.length}`);
  const { last, kept } = await lastPosition(accountId);
  const expires_at = expiresAt(appendedAt);
  const markers = events.map((event, index) =>
    putRecordItem({
      key: appendedMarkerKey(accountId, event.event_id),
      entity: 'FEED_MARKER',
      codec: markerCodec,
      record: { position: last + 1 + index },
      also: { expires_at },
      ifNew: true,
    }),
  );
  const lastPut = {
    Put: {
      TableName: tableName(),
      Item: {
        ...lastPositionKey(accountId),
        entity: 'FEED_LAST',
        ...lastPositionCodec.toItem({ lastPosition: last + events.length }),
      },
      ConditionExpression: kept ? 'last_position = :last' : 'attribute_not_exists(pk)',
      ...(kept ? { ExpressionAttributeValues: { ':last': last } } : {}),
    },
  };
  const entries = events.map((event, index) =>
    putRecordItem({
      key: positionKey(accountId, last + 1 + index),
      entity: 'FEED_ENTRY',
      codec: entryCodec,
      record: {
        position: last + 1 + index,
        appendedAt,
        eventId: event.event_id,
        eventType: event.type,
        dcId: event.dc_id,
        routeId: event.route_id,
        sequence: event.sequence,
        occurredAt: event.occurred_at,
        details: undefined,
      },
      also: { expires_at },
    }),
  );
  try {
    await writeTransaction([...markers, lastPut, ...entries]);
    return { kind: 'appended', first: last + 1 };
  } catch (error) {
    const duplicates = events.filter((_, index) => conditionFailedAt(error, index));
    if (duplicates.length > 0)
      return { kind: 'duplicates', eventIds: duplicates.map((event) => event.event_id) };
    if (conditionFailedAt(error, events.length) || isTransactionConflict(error)) return { kind: 'raced' };
    throw error;
  }
}

function entryFromItem(item: Item): StoredEntry {
  return entryCodec.fromItem(item);
}

/** An entry with its event whole: the details as stored with the entry, or as the event's item holds them. */
function feedEntryOf(stored: StoredEntry, details: unknown): FeedEntry {
  return {
    position: stored.position,
    appendedAt: stored.appendedAt,
    event: webhookEventOf(stored, details),
  };
}

/** What the feed knows of an entry without reading its event's item: enough to filter on. */
export type FeedEntryHead = Pick<FeedEntry, 'position' | 'appendedAt'> & {
  event: Omit<WebhookEvent, 'details'>;
};

function headOf(stored: StoredEntry): FeedEntryHead {
  const { event, ...entry } = feedEntryOf(stored, undefined);
  const { details: _details, ...head } = event;
  return { ...entry, event: head };
}

/**
 * The entry at `position` of the account's feed (read consistently), without its event's details; undefined
 * when there is none (or it expired).
 */
export async function getFeedEntry(accountId: string, position: number): Promise<FeedEntryHead | undefined> {
  const stored = await getRecord(positionKey(accountId, position), entryFromItem);
  return stored && headOf(stored);
}

/** Wanted entries whose events' details are read from their items in one request. */
const DETAILS_READ_CHUNK = 25;

/**
 * The account's entries after `afterPosition` (from the oldest kept without it), in position order, read
 * consistently a query page at a time while `take` asks for more. `take` is given each entry in turn (an
 * expired one too: TTL deletes late): whole when `wants` it (its event's details read from the event's item,
 * a few entries at a time), else as its head, which has no details; it answers whether to go on. A wanted
 * entry whose event's item is gone (past its retention) is given as its head too. Stops at the end of the
 * feed (`readAll`), or once `maxRead` entries were read.
 */
export async function readFeed(
  accountId: string,
  afterPosition: number,
  options: { pageSize: number; maxRead: number; wants: (entry: FeedEntryHead) => boolean },
  take: (entry: { whole: FeedEntry } | { head: FeedEntryHead }) => boolean,
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
    const stored = (page.Items ?? []).map(entryFromItem);
    read += stored.length;
    let next = 0;
    while (next < stored.length) {
      // The next few wanted entries' details, read at once; then every entry up to the last of them is given.
      const wanted: StoredEntry[] = [];
      let end = next;
      for (; end < stored.length && wanted.length < DETAILS_READ_CHUNK; end++) {
        const entry = stored[end] as StoredEntry;
        if (entry.details === undefined && options.wants(headOf(entry))) wanted.push(entry);
      }
      const details = wanted.length
        ? await eventDetails(
            accountId,
            wanted.map((entry) => entry.eventId),
          )
        : new Map<string, unknown>();
      for (; next < end; next++) {
        const entry = stored[next] as StoredEntry;
        const head = headOf(entry);
        const found = entry.details !== undefined || details.has(entry.eventId);
        const given =
          found && options.wants(head)
            ? { whole: feedEntryOf(entry, entry.details ?? details.get(entry.eventId)) }
            : { head };
        if (!take(given)) return { readAll: false };
      }
    }
    startKey = page.LastEvaluatedKey;
  } while (startKey && read < options.maxRead);
  return { readAll: !startKey };
}
