import { cursorOf, type FeedEntry, readEventFeed } from '../../../domain/event-feed';
import { type SubscribableEvent, type WebhookBody, webhookBodyOf } from '../../../models/event-catalog';
import { proxyBytesOf } from '../../../shared/limits';
import { httpHandler } from '../../http-handler';
import { listEvents as endpoint } from './endpoint';

/** An event as the feed answers it: its webhook body (every event of the feed has its DC) and its cursor. */
const feedEventView = (entry: FeedEntry) => ({
  ...(webhookBodyOf(entry.event) as WebhookBody<SubscribableEvent> & { dc_id: string }),
  cursor: cursorOf(entry),
});

export const handler = httpHandler(endpoint, async ({ query, caller }) => {
  const page = await readEventFeed(
    caller,
    { after: query.after, limit: query.limit, dcId: query.dc_id, routeId: query.route_id, type: query.type },
    (entry) => proxyBytesOf(feedEventView(entry)),
  );
  return {
    events: page.entries.map(feedEventView),
    next_cursor: page.nextCursor,
    has_more: page.hasMore,
  };
});
