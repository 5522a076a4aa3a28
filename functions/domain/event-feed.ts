import {
  appendToFeed,
  FEED_RETENTION_MS,
  type FeedEntry,
  feedEntryExpired,
  getFeedEntry,
  readFeed,
} from '../data/event-feed';
import type { SubscribableEvent, WebhookEvent } from '../models/event-catalog';
import { ApiError, ForbiddenDcError } from '../shared/errors';
import { PAGE_BYTE_BUDGET } from '../shared/limits';
import { pauseBeforeRetry } from './routes';

export type { FeedEntry };

/** Appends of one account at once take its positions in turn: each round one of them wins. */
const MAX_APPEND_ATTEMPTS = 20;

/**
 * Appends an event to its account's feed (once: an event delivered again by the queue is not appended
 * again); returns false when it was there already. Throws when other appends kept taking the position
 * (the queue delivers the message again).
 */
export async function appendEvent(accountId: string, event: WebhookEvent): Promise<boolean> {
  for (let attempt = 1; attempt <= MAX_APPEND_ATTEMPTS; attempt++) {
    await pauseBeforeRetry(attempt);
    const outcome = await appendToFeed(accountId, event, Date.now());
    if (outcome !== 'raced') return outcome === 'appended';
  }
  throw new Error(
    `the event feed of ${accountId} kept moving under ${MAX_APPEND_ATTEMPTS} appends of ${event.event_id}`,
  );
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

export const cursorOf = (entry: FeedEntry): string =>
  Buffer.from(`${entry.position}.${entry.appendedAt}.${entry.event.event_id}`).toString('base64url');

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
  const matches = (entry: FeedEntry) =>
    (query.dcId === undefined || entry.event.dc_id === query.dcId) &&
    (query.routeId === undefined || entry.event.route_id === query.routeId) &&
    (query.type === undefined || entry.event.type === query.type);
  const entries: FeedEntry[] = [];
  let bytes = 0;
  let last: FeedEntry | undefined;
  let cut = false;
  const { readAll } = await readFeed(
    caller.accountId,
    after,
    { pageSize: query.dcId || query.routeId || query.type ? 1000 : query.limit, maxRead: FEED_MAX_READ },
    (entry) => {
      if (!feedEntryExpired(entry, now) && matches(entry)) {
        const size = bytesOf(entry);
        // The byte budget ends the page before the entry that would pass it (a page holds at least one).
        if (entries.length > 0 && bytes + size > PAGE_BYTE_BUDGET) {
          cut = true;
          return false;
        }
        entries.push(entry);
        bytes += size;
      }
      last = entry;
      cut = entries.length === query.limit;
      return !cut;
    },
  );
  return {
    entries,
    nextCursor: last ? cursorOf(last) : (query.after ?? null),
    hasMore: cut || !readAll,
  };
}
