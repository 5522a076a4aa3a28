import {
  appendToFeed,
  FEED_RETENTION_MS,
  type FeedEntry,
  type FeedEntryHead,
  feedEntryExpired,
  getFeedEntry,
  MAX_EVENTS_PER_APPEND,
  readFeed,
} from '../data/event-feed';
import type { SubscribableEvent, WebhookEvent } from '../models/event-catalog';
import { ApiError, ForbiddenDcError } from '../shared/errors';
import { PAGE_BYTE_BUDGET } from '../shared/limits';
import { pauseBeforeRetry } from './routes';

export type { FeedEntry };

/**
 * Rounds of an append: with the feed queue's one batch at a time per account nothing else appends to the
 * account's feed, so a round loses only to a batch handed out again while an earlier try of it still runs,
 * or finds events appended before (each such round drops them).
 */
const MAX_APPEND_ROUNDS = 20;

/**
 * Appends the account's events to its feed in the order given, MAX_EVENTS_PER_APPEND a transaction, leaving
 * out those appended before (a message the queue delivered again); returns how many were appended. Throws
 * when other appends kept taking the position (the queue delivers the messages again).
 */
export async function appendEvents(accountId: string, events: readonly WebhookEvent[]): Promise<number> {
  let appended = 0;
  const seen = new Set<string>();
  // An event sent twice (the pipe retried after the queue's five-minute deduplication window) is taken once.
  const unique = events.filter((event) => !seen.has(event.event_id) && seen.add(event.event_id));
  for (let start = 0; start < unique.length; start += MAX_EVENTS_PER_APPEND) {
    let pending = unique.slice(start, start + MAX_EVENTS_PER_APPEND);
    for (let round = 1; pending.length > 0; round++) {
      if (round > MAX_APPEND_ROUNDS)
        throw new Error(`the event feed of ${accountId} kept moving under ${MAX_APPEND_ROUNDS} appends`);
      const outcome = await appendToFeed(accountId, pending, Date.now());
      if (outcome.kind === 'appended') {
        appended += pending.length;
        pending = [];
      } else if (outcome.kind === 'duplicates') {
        const duplicates = new Set(outcome.eventIds);
        pending = pending.filter((event) => !duplicates.has(event.event_id));
      } else await pauseBeforeRetry(round + 1);
    }
  }
  return appended;
}

/** Entries read at most per GET /events: a filter that matches few events ends its page there. */
export const FEED_MAX_READ = 5000;

/**
 * A cursor names an entry of the feed: its position, when it was appended and its event's id, as opaque
 * base64url. It is checked against the entry the caller's own feed holds at that position, so a changed
 * cursor, or another account's (its position holds another event here, or none), is refused.
 */
interface Cursor {
  position: number;
  appendedAt: number;
  eventId: string;
}

const cursorText = (cursor: Cursor): string =>
  Buffer.from(`${cursor.position}.${cursor.appendedAt}.${cursor.eventId}`).toString('base64url');

export const cursorOf = (entry: FeedEntry): string =>
  cursorText({ position: entry.position, appendedAt: entry.appendedAt, eventId: entry.event.event_id });

function invalidCursor(): ApiError {
  return new ApiError('FEED_CURSOR_INVALID', 'after: not a cursor of this account’s event feed');
}

function decodeCursor(text: string): Cursor {
  const match = /^([1-9]\d{0,14})\.(\d{1,15})\.([A-Za-z0-9_-]{1,64})$/.exec(
    Buffer.from(text, 'base64url').toString('utf8'),
  );
  if (!match || Buffer.from(text, 'base64url').toString('base64url') !== text) throw invalidCursor();
  return { position: Number(match[1]), appendedAt: Number(match[2]), eventId: match[3] as string };
}

/** The position a cursor continues after, once it is this account's and not expired (400 / 410). */
async function positionAfter(accountId: string, text: string, now: number): Promise<number> {
  const cursor = decodeCursor(text);
  if (feedEntryExpired(cursor, now)) {
    throw new ApiError(
      'FEED_CURSOR_EXPIRED',
      `after: the cursor is more than ${FEED_RETENTION_MS / 86_400_000} days old; events after it may be gone: read from the oldest kept event (no after)`,
    );
  }
  const entry = await getFeedEntry(accountId, cursor.position);
  if (entry?.event.event_id !== cursor.eventId || entry.appendedAt !== cursor.appendedAt)
    throw invalidCursor();
  return cursor.position;
}

export interface FeedQuery {
  after?: string;
  limit: number;
  dcId?: string;
  routeId?: string;
  type?: SubscribableEvent;
}

export interface FeedPage {
  entries: FeedEntry[];
  /** Where the next page starts: after the last entry read (returned or not); the `after` given when none was. */
  nextCursor: string | null;
  /** True when the page ended before the end of the feed (its limit, byte budget or read budget): more may follow. */
  hasMore: boolean;
}

/**
 * One page of the account's feed after the cursor (from the oldest kept event without one), in position
 * order: at most `limit` entries matching the filters, fewer once their bodies (`bytesOf`) reach the page
 * byte budget, or once FEED_MAX_READ entries were read. The feed is read consistently: an entry is only
 * written once every entry before it is (data/event-feed.ts), so a later page never finds one before its
 * cursor.
 */
export async function readEventFeed(
  caller: { accountId: string; dcIds: readonly string[] },
  query: FeedQuery,
  bytesOf: (entry: FeedEntry) => number,
  now = Date.now(),
): Promise<FeedPage> {
  if (query.dcId !== undefined && !caller.dcIds.includes(query.dcId)) throw new ForbiddenDcError(query.dcId);
  const after = query.after === undefined ? 0 : await positionAfter(caller.accountId, query.after, now);
  const matches = (entry: FeedEntryHead) =>
    (query.dcId === undefined || entry.event.dc_id === query.dcId) &&
    (query.routeId === undefined || entry.event.route_id === query.routeId) &&
    (query.type === undefined || entry.event.type === query.type);
  const entries: FeedEntry[] = [];
  let bytes = 0;
  let last: Cursor | undefined;
  let cut = false;
  const wants = (entry: FeedEntryHead) => !feedEntryExpired(entry, now) && matches(entry);
  const { readAll } = await readFeed(
    caller.accountId,
    after,
    {
      pageSize: query.dcId || query.routeId || query.type ? 1000 : query.limit,
      maxRead: FEED_MAX_READ,
      wants,
    },
    (given) => {
      if ('whole' in given) {
        const size = bytesOf(given.whole);
        // The byte budget ends the page before the entry that would pass it (a page holds at least one).
        if (entries.length > 0 && bytes + size > PAGE_BYTE_BUDGET) {
          cut = true;
          return false;
        }
        entries.push(given.whole);
        bytes += size;
      }
      const entry = 'whole' in given ? given.whole : given.head;
      last = { position: entry.position, appendedAt: entry.appendedAt, eventId: entry.event.event_id };
      cut = entries.length === query.limit;
      return !cut;
    },
  );
  return {
    entries,
    nextCursor: last ? cursorText(last) : (query.after ?? null),
    hasMore: cut || !readAll,
  };
}
